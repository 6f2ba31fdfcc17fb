"""The local web server: the static page (web/), ONNX Runtime Web's files, the model's ONNX
export, and a small JSON API.  See app.py for the routes.

`Settings` and `create_app` are loaded on first use, so that `sketchpad --help` and the
commands that only read the server's defaults (service.Capacity) do not import FastAPI."""

__all__ = ["Settings", "create_app"]


def __getattr__(name):
    if name in __all__:
        from . import app  # lazy: FastAPI loads on first use (see above)

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
