"""`python -m derive [--check] [JOB ...]`: write (or check) every file generated from the spec."""

from __future__ import annotations

import argparse
import sys

from .jobs import JOBS
from .runner import run, select


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m derive",
        description="Write every file derived from the specification, or check that each is fresh.",
        epilog="jobs: " + "; ".join(f"{j.name}: {j.what}" for j in JOBS),
    )
    ap.add_argument("jobs", nargs="*", metavar="JOB", help="only these jobs (default: all, in order)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale file")
    ap.add_argument("--list", action="store_true", help="name the jobs and what each writes")
    args = ap.parse_args(argv)
    if args.list:
        for j in JOBS:
            print(f"{j.name:16} {j.what}")
        return 0
    try:
        jobs = select(args.jobs)
    except ValueError as e:
        print(f"python -m derive: {e}", file=sys.stderr)
        return 2
    changed, seen = run(jobs, check=args.check, progress=sys.stderr.isatty())
    if args.check:
        for entry in changed:
            print(f"stale: {entry}", file=sys.stderr)
        if changed:
            print(f"{len(changed)} stale of {seen} derived files: run python -m derive", file=sys.stderr)
            return 1
        print(f"up to date: {seen} derived files, {len(jobs)} jobs")
        return 0
    for entry in changed:
        print(f"wrote {entry}" if "no longer generated" not in entry else f"removed {entry}")
    print(f"{len(changed)} of {seen} derived files rewritten or removed, {len(jobs)} jobs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
