"""The chute sensor: an RP2040 at the tower's exit that counts cubes by colour over USB serial.

`cubeproto` is the wire protocol (shared byte for byte with the firmware), `reader` the host side
that turns the board's running totals into readings, `simdevice` a simulated board for laptops
and tests.
"""
