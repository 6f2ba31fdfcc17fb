"""Progress for long jobs (a full-size export or certification takes many minutes): a line per
stage with its time and the process's memory, and an ETA for a job counted in units.

    stages = Stages(4, log)                      # log: a function of one line
    with stages("export the graph"):            # [2/4] export the graph: 71.2 s, RSS 3.1 GB (peak 3.4 GB)
        ...
    eta = Eta(total=5744)
    eta.line(done)                               # '1,024/5,744 (18%), 2 min 10 s, about 10 min left'

Memory is read from the operating system: the resident set now (/proc/self/statm) and the
largest it has been since the process started (getrusage's ru_maxrss), so a stage's line says
what the whole run has needed so far.  Nothing here imports a model library.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time


def rss_bytes() -> int | None:
    """This process's resident set size now (None where /proc is not available)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def peak_rss_bytes() -> int | None:
    """The largest resident set this process has had (None where getrusage is not available)."""
    try:
        import resource  # lazy: resource is Unix-only (None where it is missing)
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # kilobytes on Linux, bytes on macOS


def gb(n: int | None) -> str:
    return "?" if n is None else f"{n / 1e9:.2f} GB"


def memory() -> str:
    return f"RSS {gb(rss_bytes())} (peak {gb(peak_rss_bytes())})"


def duration(seconds: float) -> str:
    """'4.2 s', '3 min 5 s', '1 h 2 min'."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    if m < 60:
        return f"{m} min {s} s"
    h, m = divmod(m, 60)
    return f"{h} h {m} min"


class Stages:
    """Numbered stages, one line each when it ends: its time and the memory so far."""

    def __init__(self, total: int, log):
        self.total, self.log, self.k = total, log, 0

    @contextlib.contextmanager
    def __call__(self, label: str):
        self.k += 1
        t = time.perf_counter()
        yield
        self.log(f"[{self.k}/{self.total}] {label}: {duration(time.perf_counter() - t)}, {memory()}")


class Eta:
    """Done/total with the elapsed time and a remaining-time estimate from the rate so far."""

    def __init__(self, total: int, done: int = 0):
        self.total, self.start_done, self.t0 = total, done, time.perf_counter()

    def remaining(self, done: int) -> float | None:
        ran = done - self.start_done
        if ran <= 0:
            return None
        return (time.perf_counter() - self.t0) / ran * (self.total - done)

    def line(self, done: int) -> str:
        left = self.remaining(done)
        pct = 100 * done / self.total if self.total else 100.0
        return f"{done:,}/{self.total:,} ({pct:.0f}%), {duration(time.perf_counter() - self.t0)}" + (
            f", about {duration(left)} left" if left is not None and done < self.total else ""
        )
