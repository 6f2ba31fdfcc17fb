"""The pre-registered problem sets (JSONL, hashed in SHA256SUMS before any evaluation).  This
folder installs as `sketchpad.problems`, so `sketchpad bench SET` works from a wheel too."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
