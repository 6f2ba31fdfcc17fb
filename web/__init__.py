"""The web page's static files.  This folder installs as `sketchpad.web`, so the server finds
the page in a wheel exactly as in a checkout: `sketchpad.web.ROOT` is its document root."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
