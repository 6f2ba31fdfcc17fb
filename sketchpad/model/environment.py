"""Where a stepper runs, as the certificate rule compares it: the backend, its execution
provider, dtype, inference library versions and the device's identity.  A certificate made
in another environment is not accepted for this one (sketchpad.certify.policy)."""

from __future__ import annotations

import platform
from pathlib import Path


def cpu_name() -> str:
    """The CPU's model string (/proc/cpuinfo), else what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_device() -> dict:
    return {"kind": "cpu", "name": cpu_name(), "machine": platform.machine()}


def environment(backend: str, provider: str, library: dict, device: dict, dtype: str = "float32") -> dict:
    return {
        "backend": backend,
        "execution_provider": provider,
        "dtype": dtype,
        "library": dict(sorted(library.items())),
        "device": device,
    }
