"""One module per `sketchpad` subcommand; each defines register(subparsers).

The stepper options shared by the commands that compute (solve, poly) live here."""


def add_stepper_arguments(p) -> None:
    p.add_argument("--stepper", choices=("reference", "model"), default=None,
                   help="who computes the steps (default: the shipped model when present)")
    p.add_argument("--model", metavar="DIR", help="a model directory (implies --stepper model)")
    p.add_argument("--backend", choices=("torch", "onnx"), default="torch", help="how the model runs")
    p.add_argument("--gate", type=float, default=1.0, help="adapter gate (1 = sheet executor)")
    p.add_argument("--allow-uncertified", action="store_true",
                   help="run a model that has no passing certificate for this backend")
