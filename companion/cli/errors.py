"""The one exception a command raises for bad input: its message is shown, the status is 2."""


class CommandError(Exception):
    """Bad input or an unusable file: the message says what went wrong and what to do."""
