// The two kinds of failure, kept apart as in sketchpad/errors.py: InputError is the user's
// (bad expression, division by zero, over a limit); StepperFault is the stepper's (a step the
// procedure cannot follow).  The page shows the first as a plain message, the second as a fault.

export class InputError extends Error {
  constructor(message) { super(message); this.name = 'InputError'; }
}

export class StepperFault extends Error {
  constructor(message) { super(message); this.name = 'StepperFault'; }
}
