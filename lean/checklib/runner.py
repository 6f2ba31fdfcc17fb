"""Compiling one module with the checker, as `lake build` does: its result, time, memory, errors."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import threading
import time
from pathlib import Path

from .common import MSG_RE, SORRY_RE, human_bytes


def filter_output(raw: str) -> list[str]:
    """Drop the checker's `[DEBUG…]` noise, including the multi-line echo of the file's first
    200 characters and the import-path lines."""
    lines, skipping = [], False
    for line in raw.splitlines():
        if line.startswith("[DEBUG"):
            skipping = "Input file content" in line
            continue
        if skipping:
            continue
        if line.startswith("  - /") or line.startswith("  mainModule?"):
            continue
        lines.append(line)
    return lines


DECL_RE = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:(?:private|protected|public|noncomputable|partial|unsafe)\s+)*"
    r"(theorem|lemma|def|abbrev|instance|structure|inductive|example)\s+([^\s:(\[{]+)"
)


def enclosing_decl(path: Path, line_no: int) -> str:
    """The declaration a message's line belongs to (the last one starting at or above it)."""
    try:
        lines = path.read_text().splitlines()[:line_no]
    except OSError:
        return ""
    for line in reversed(lines):
        m = DECL_RE.match(line)
        if m:
            return f"{m.group(1)} {m.group(2)}"
    return ""


class Result:
    def __init__(self, mod: str):
        self.mod = mod
        self.status = "SKIP"
        self.seconds = 0.0
        self.peak = 0
        self.errors: list[str] = []
        self.lines: list[str] = []
        self.note = ""


def run_module(
    mod: str,
    node: Path,
    glue: Path,
    lib: Path,
    src_root: Path,
    build: Path,
    timeout: float,
    mem_limit: int,
    rel_prefix: str,
    extra_args: list[str],
) -> Result:
    res = Result(mod)
    rel = mod.replace(".", "/") + ".lean"
    olean = build / (mod.replace(".", "/") + ".olean")
    olean.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".olean", ".olean.private", ".olean.server", ".ir", ".ilean"):
        stale = olean.with_suffix(suffix)
        if stale.exists():
            stale.unlink()
    env = dict(os.environ)
    env["LEAN_PATH"] = f"{lib}:{build}"

    def raise_stack() -> None:
        try:
            resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (ValueError, OSError):
            pass
        os.setsid()

    out_path = build / (mod + ".log")
    t0 = time.monotonic()
    with open(out_path, "w") as out:
        proc = subprocess.Popen(
            [str(node), "--stack-size=3900", str(glue), rel, "-o", str(olean), *extra_args],
            cwd=src_root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=raise_stack,
        )
        killed = {"why": ""}
        done = threading.Event()

        def guard() -> None:
            status = Path(f"/proc/{proc.pid}/status")
            while not done.wait(1.0):
                try:
                    m = re.search(r"VmRSS:\s+(\d+) kB", status.read_text())
                except OSError:
                    return
                rss = int(m.group(1)) * 1024 if m else 0
                if rss > mem_limit:
                    killed["why"] = f"killed: memory {human_bytes(rss)} over the limit {human_bytes(mem_limit)}"
                elif time.monotonic() - t0 > timeout:
                    killed["why"] = f"killed: over the time limit of {timeout:.0f} s"
                else:
                    continue
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                return

        th = threading.Thread(target=guard, daemon=True)
        th.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        th.join()
    res.seconds = time.monotonic() - t0
    res.peak = usage.ru_maxrss * 1024
    res.lines = filter_output(out_path.read_text(errors="replace"))
    errors: list[str] = []
    current: list[str] | None = None
    for line in res.lines:
        m = MSG_RE.match(line)
        if m:
            current = None
            text = line.replace(m.group("file"), rel_prefix + m.group("file"), 1)
            decl = enclosing_decl(src_root / m.group("file"), int(m.group("line")))
            if decl:
                text += f"  [in {decl}]"
            if m.group("sev") == "error" or SORRY_RE.search(line):
                current = [text]
                errors.append(current)  # type: ignore[arg-type]
        elif current is not None and len(current) < 12:
            current.append(line if len(line) <= 240 else line[:240] + " …")
        elif "worker sent an error" in line or "RuntimeError" in line or "Aborted(" in line:
            errors.append([line])  # type: ignore[arg-type]
    res.errors = ["\n".join(e) for e in errors]  # type: ignore[arg-type]
    if killed["why"]:
        res.status, res.note = "FAIL", killed["why"]
    elif proc.returncode != 0 or res.errors:
        res.status = "FAIL"
        if not res.errors:
            res.note = f"exit status {proc.returncode}"
            tail = [line for line in res.lines if line.strip()][-6:]
            res.errors = ["\n".join(line[:240] for line in tail)] if tail else []
    elif not olean.exists():
        res.status, res.note = "FAIL", "no .olean written"
    else:
        res.status = "PASS"
    return res
