"""One module per `sketchpad` subcommand; each defines register(subparsers) and a run(args)
that validates its input before it loads anything heavy (a model, torch).

The stepper options shared by the commands that compute (solve, poly, bench) live here, and
`stepper_from` turns them into a stepper through the one choice the product makes
(sketchpad.steppers.get)."""

from ..steppers import get


def add_stepper_arguments(p) -> None:
    p.add_argument(
        "--stepper",
        choices=("model", "reference"),
        default=None,
        help="who computes the steps: the model (default; certified on this device before "
        "its first use) or the reference stepper (the specification itself)",
    )
    p.add_argument("--model", metavar="DIR", help="a model directory (default: the shipped model)")
    p.add_argument(
        "--backend",
        choices=("onnx", "torch"),
        default=None,
        help="how the model runs: onnx (ONNX Runtime; the default when the model has an "
        "export) or torch (PyTorch + peft)",
    )
    p.add_argument("--gate", type=float, default=1.0, help="adapter gate (1 = the sheet executor)")
    p.add_argument(
        "--allow-uncertified", action="store_true", help="run a model that has no certificate that holds on this device"
    )


def stepper_from(args):
    """The stepper the options ask for (loads and, if needed, certifies the model)."""

    if args.stepper == "reference":
        return get("reference")
    return get(
        "model", model=args.model, backend=args.backend, gate=args.gate, allow_uncertified=args.allow_uncertified
    )
