"""The one exception type the CLI turns into a one-line message and an exit code."""


class KeybenchError(Exception):
    """A problem the user can fix: bad input, a missing emulator, a bad fixture.

    The message is one line and says what to do; exit_code 2 means bad input or
    environment, 1 means the run itself found a problem (failures, lost writes).
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(" ".join(message.split()))
        self.exit_code = exit_code
