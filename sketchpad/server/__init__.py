"""The local web server: the static page (web/), ONNX Runtime Web's files, the model's ONNX
export, and a small JSON API.  See app.py for the routes."""
from .app import Settings, create_app

__all__ = ["Settings", "create_app"]
