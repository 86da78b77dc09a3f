"""Lines from the host over a stream (USB CDC on the board, a pty on the unix port), without blocking."""

import select

import cubeproto as P

TYPE_CHECKING = False  # MicroPython has no typing module; the names below are for readers
if TYPE_CHECKING:
    import io


class LineIn:
    """Collects bytes from `stream` (with a binary `.read(1)`) into lines; `poll()` never waits.

    `pollable` is what select.poll watches (default: the stream itself); on the board that is
    `sys.stdin`, while the bytes are read from `sys.stdin.buffer`.
    """

    def __init__(self, stream: "io.BufferedReader", pollable: object = None) -> None:
        self.stream = stream
        self.poller = select.poll()
        self.poller.register(stream if pollable is None else pollable, select.POLLIN)
        self.buf = bytearray()
        self.closed = False

    def poll(self) -> "bytes | None":
        """The next complete line (bytes, newline stripped) if one has arrived, else None."""
        while self.poller.poll(0):
            byte = self.stream.read(1)
            if not byte:
                # End of file: the host side of the link went away (only happens off the board).
                self.closed = True
                return None
            if byte == b"\n":
                line = bytes(self.buf)
                self.buf = bytearray()
                return line
            if len(self.buf) >= P.MAX_LINE:
                self.buf = bytearray()  # no frame is this long: drop it, resync at the next newline
            self.buf.extend(byte)
        return None
