"""Run the derive jobs: compare each file a job makes with the one on disk, and write or report."""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from .jobs import JOBS, ROOT, Job


def select(names: list[str] | None) -> list[Job]:
    """The jobs named (all when none), in JOBS order; ValueError names an unknown one."""
    known = {j.name for j in JOBS}
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        raise ValueError(f"unknown job {unknown[0]!r}; the jobs are: {', '.join(j.name for j in JOBS)}")
    return [j for j in JOBS if not names or j.name in names]


def _show(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def run(jobs: list[Job], check: bool, progress: bool = False) -> tuple[list[str], int]:
    """Check (or write) the jobs' files.  Returns (stale or rewritten files as 'path (job)', files
    examined).  Writing removes the files a job no longer makes; checking reports them."""
    changed, seen = [], 0
    for job in tqdm(jobs, desc="derive", unit="job", disable=not progress):
        made = job.files()
        for path, text in made.items():
            seen += 1
            if path.is_file() and path.read_text() == text:
                continue
            changed.append(f"{_show(path)} ({job.name})")
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        for path in job.extras(made):
            changed.append(f"{_show(path)} ({job.name}: no longer generated)")
            if not check:
                path.unlink()
    return changed, seen


def check(names: list[str] | None = None) -> list[str]:
    """The stale derived files, as 'path (job)'; empty when every one is fresh."""
    return run(select(names), check=True)[0]
