"""Where a stepper runs, as the certificate rule compares it: the backend, its execution
provider, dtype, inference library versions and build, thread settings, and the device's
identity.  A certificate made in another environment is not accepted for this one
(sketchpad.certify.policy).

The device identity is what the kernels' numbers can depend on: the CPU's vendor and model
string, and the instruction sets the math libraries pick their kernels by (AVX2, FMA,
AVX-512 and its extensions, AMX on x86; NEON dot products, SVE on ARM), the OS and the
architecture.  A model string alone is easy to guess and says nothing about, say, a virtual
machine that hides AVX-512 from its guest.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

# CPU flags (Linux /proc/cpuinfo names) that select different float kernels in MLAS, oneDNN
# and PyTorch's ATen: only these are recorded, so that unrelated flags (a microcode mitigation)
# do not make every certificate stale.
KERNEL_FLAGS = (
    "sse4_1",
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512dq",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "avx_vnni",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
    "amx_fp16",
    "asimd",
    "asimdhp",
    "asimddp",
    "fphp",
    "i8mm",
    "bf16",
    "sve",
    "sve2",
)


def _cpuinfo() -> dict:
    """The first processor's fields in /proc/cpuinfo ({} where there is none)."""
    out = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if not line.strip():
                if out:
                    break
                continue
            key, _, value = line.partition(":")
            out.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return out


def cpu_name() -> str:
    """The CPU's model string (/proc/cpuinfo), else what the platform module knows."""
    info = _cpuinfo()
    return info.get("model name") or info.get("Model") or platform.processor() or platform.machine()


def machine() -> str:
    """The one description of this machine that benchmarks and reports print."""
    return f"{cpu_name()} ({platform.machine()}), {os.cpu_count()} cores, {platform.system()}"


def cpu_device() -> dict:
    info = _cpuinfo()
    flags = set((info.get("flags") or info.get("Features") or "").split())
    return {
        "kind": "cpu",
        "vendor": info.get("vendor_id") or info.get("CPU implementer") or platform.processor() or None,
        "name": cpu_name(),
        "isa": [f for f in KERNEL_FLAGS if f in flags],
        "machine": platform.machine(),
        "os": platform.system(),
    }


def environment(
    backend: str, provider: str, library: dict, device: dict, dtype: str = "float32", threads: dict | None = None
) -> dict:
    return {
        "backend": backend,
        "execution_provider": provider,
        "dtype": dtype,
        "library": dict(sorted(library.items())),
        "threads": threads,
        "device": device,
    }
