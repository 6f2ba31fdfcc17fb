"""Two kinds of failure, kept apart on purpose.

`InputError` is the user's: a malformed expression, a division by zero, a number over the
size limit.  Every entry point shows its message on one line and exits with code 2 (HTTP 4xx).

`StepperFault` is the stepper's: it emitted a step the procedure cannot follow (a symbol that
is not a digit where a digit belongs, a scan that never halts).  A certified model never does
this; the runtime stops with exit code 3 rather than guessing.
"""


class SketchpadError(Exception):
    exit_code = 1


class InputError(SketchpadError, ValueError):
    exit_code = 2


class StepperFault(SketchpadError, RuntimeError):
    exit_code = 3
