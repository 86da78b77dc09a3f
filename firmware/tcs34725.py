"""TCS34725 colour sensor driver (MicroPython): the caller hands over its I2C bus, as in micropython-lib.

Only what the chute needs: power on with a chosen integration time and gain, and read the four
channels (red, green, blue, clear) that the chip integrates at the same moment.
"""

import time

TYPE_CHECKING = False  # MicroPython has no typing module; the names below are for readers
if TYPE_CHECKING:
    import machine

ADDRESS = 0x29
_CMD = 0x80  # command bit: the next byte names a register
_AUTO_INC = 0x20  # read several registers in one transfer
_ENABLE = 0x00
_ATIME = 0x01
_CONTROL = 0x0F
_ID = 0x12
_STATUS = 0x13
_CDATA = 0x14  # C, R, G, B: four little-endian 16-bit values from here
_PON = 0x01
_AEN = 0x02
_AVALID = 0x01
CHIP_IDS = (0x44, 0x4D)  # TCS34725 and TCS34727
_GAINS = {1: 0, 4: 1, 16: 2, 60: 3}
CYCLE_US = 2400  # one integration cycle lasts 2.4 ms


class TCS34725:
    """One sensor on `i2c` (anything with machine.I2C's readfrom_mem/writeto_mem).

    Errors on the bus surface as OSError, exactly as machine.I2C raises them.
    """

    def __init__(
        self, i2c: "machine.I2C", address: int = ADDRESS, cycles: int = 1, gain: int = 16
    ) -> None:
        if cycles < 1 or cycles > 256:
            raise ValueError("integration cycles must be 1..256")
        if gain not in _GAINS:
            raise ValueError("gain must be 1, 4, 16 or 60")
        self.i2c = i2c
        self.address = address
        self.cycles = cycles
        self.gain = gain

    def _write(self, register: int, value: int) -> None:
        self.i2c.writeto_mem(self.address, _CMD | register, bytes((value,)))

    def _read(self, register: int, n: int) -> bytes:
        return self.i2c.readfrom_mem(self.address, _CMD | _AUTO_INC | register, n)

    def init(self) -> None:
        """Check the chip id, set timing and gain, start integrating; OSError(19) if no chip."""
        chip = self._read(_ID, 1)[0]
        if chip not in CHIP_IDS:
            raise OSError(19)  # ENODEV: something else answers at this address
        self._write(_ATIME, 256 - self.cycles)
        self._write(_CONTROL, _GAINS[self.gain])
        self._write(_ENABLE, _PON)
        time.sleep_ms(3)  # the oscillator needs 2.4 ms after power-on before integrating
        self._write(_ENABLE, _PON | _AEN)

    def period_ms(self) -> int:
        """Milliseconds between fresh readings (the integration time, rounded up)."""
        return (self.cycles * CYCLE_US + 999) // 1000

    def full_scale(self) -> int:
        """The largest count a channel can reach with this integration time."""
        return min(65535, 1024 * self.cycles)

    def valid(self) -> bool:
        """True once the first integration since power-on has completed."""
        return bool(self._read(_STATUS, 1)[0] & _AVALID)

    def read_raw(self) -> tuple:
        """(red, green, blue, clear) counts of the latest completed integration."""
        data = self._read(_CDATA, 8)
        c = data[0] | (data[1] << 8)
        r = data[2] | (data[3] << 8)
        g = data[4] | (data[5] << 8)
        b = data[6] | (data[7] << 8)
        return (r, g, b, c)
