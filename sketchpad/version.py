"""The package's version, in a module of its own so that any layer can read it without
importing the package's public face (sketchpad/__init__.py, which sits above every layer)."""

__version__ = "0.2.0"
