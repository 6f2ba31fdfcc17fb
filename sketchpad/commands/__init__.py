"""One module per `sketchpad` subcommand; each defines register(subparsers)."""
