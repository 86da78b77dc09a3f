"""The simulated tray: a physically based renderer of camera pictures of the dice tower's tray
with known truth. Import it through `companion.devices.tray_render`."""
