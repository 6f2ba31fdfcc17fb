"""The light install (issue 24), measured: build the wheel from this checkout, install it into a
fresh virtual environment without extras, and time what a new user does first.

    python benchmarks/bench_install.py [--train] [--out benchmarks/results/install.md]

Rows: `pip install` of the wheel (wall seconds, the environment's size on disk, whether torch
came with it), then from that environment `sketchpad solve` (a new device: it certifies the
shipped model first), `sketchpad serve` until /api/health is ready and the page and its files
load, and `sketchpad train`, which must stop with one line naming the [train] extra.  --train
also installs `sketchpad[train]` into a second environment (the heavy install, for comparison).
pip reads its packages from wherever this machine's pip is configured (here: on-disk indexes;
nothing is downloaded from PyPI in this sandbox), so the times are install times, not network
times.  The machine is shared: the load average is recorded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sketchpad.model.environment import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ("torch", "transformers", "peft", "onnx", "onnxscript")


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def run(cmd, **kw) -> tuple[subprocess.CompletedProcess, float]:
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return r, time.perf_counter() - t


def install(tmp: Path, name: str, target: str) -> dict:
    env_dir = tmp / name
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    before = du(env_dir)
    r, seconds = run([str(py), "-m", "pip", "install", "--quiet", target], timeout=3600)
    if r.returncode != 0:
        raise SystemExit(f"pip install {target} failed: {r.stderr[-2000:]}")
    site = Path(run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])[0].stdout.strip())
    have = sorted(n for n in TRAIN if (site / n).is_dir())
    return {"env": env_dir, "py": py, "seconds": seconds, "mb": (du(env_dir) - before) / 2**20, "train": have}


def serve(env: dict, bin_dir: Path, cwd: Path) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = time.perf_counter()
    proc = subprocess.Popen(
        [str(bin_dir / "sketchpad"), "serve", "--port", str(port), "--db", str(cwd / "c.sqlite")],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=30).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                raise SystemExit(f"sketchpad serve stopped: {proc.stdout.read()}")
            time.sleep(0.2)
        ready = time.perf_counter() - t
        page = httpx.get(f"{base}/", timeout=30)
        files = [httpx.get(base + p, timeout=30).status_code for p in ("/app.js", "/model/model.json", "/docs")]
        solved = httpx.post(f"{base}/api/solve", json={"expr": "99999 + 1"}, timeout=60).json()["result"]
        return {
            "ready": ready,
            "page": page.status_code == 200 and "Sketchpad" in page.text and files == [200, 200, 200],
            "solve": solved == "100000",
        }
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", action="store_true", help="also install sketchpad[train] (minutes, ~1.5 GB)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "install.md"))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sketchpad-install-"))
    rows, notes = [], []
    try:
        load_before = load()
        r, build_s = run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(tmp / "dist"),
                str(ROOT),
            ],
            timeout=1800,
        )
        if r.returncode != 0:
            raise SystemExit(f"pip wheel failed: {r.stderr[-2000:]}")
        wheel = next((tmp / "dist").glob("sketchpad-*.whl"))
        rows.append(
            (
                "build the wheel (`pip wheel --no-deps`)",
                f"{build_s:.1f} s",
                f"{wheel.stat().st_size / 2**20:.1f} MB wheel",
            )
        )
        light = install(tmp, "light", str(wheel))
        rows.append(
            (
                "`pip install sketchpad-*.whl` into a fresh venv (no extras)",
                f"{light['seconds']:.1f} s",
                f"{light['mb']:.0f} MB installed; [train] packages present: {', '.join(light['train']) or 'none'}",
            )
        )
        bin_dir = light["env"] / "bin"
        env = dict(os.environ, SKETCHPAD_CACHE_DIR=str(tmp / "cache"))
        env.pop("PYTHONPATH", None)
        expr = "123456789123456789 * -987654321987654321 + gcd(84, 36)"
        r, s = run([str(bin_dir / "sketchpad"), "solve", expr], env=env, cwd=tmp, timeout=900)
        ok = r.returncode == 0 and r.stdout.strip() == str(123456789123456789 * -987654321987654321 + 12)
        rows.append(
            (
                f'`sketchpad solve "{expr}"` (new device: certifies first)',
                f"{s:.1f} s",
                "right" if ok else f"WRONG: {r.stdout} {r.stderr}",
            )
        )
        r, s = run([str(bin_dir / "sketchpad"), "solve", "2+2"], env=env, cwd=tmp, timeout=900)
        rows.append(
            (
                '`sketchpad solve "2+2"` (cached certificate)',
                f"{s:.1f} s",
                "right" if r.stdout.strip() == "4" else "WRONG",
            )
        )
        sv = serve(env, bin_dir, tmp)
        rows.append(
            (
                "`sketchpad serve` until /api/health is ready",
                f"{sv['ready']:.1f} s",
                f"page, app.js, model.json, /docs: {'200' if sv['page'] else 'FAILED'}; /api/solve: {'right' if sv['solve'] else 'WRONG'}",
            )
        )
        r, s = run([str(bin_dir / "sketchpad"), "train", "--out", str(tmp / "m")], env=env, cwd=tmp, timeout=300)
        rows.append(("`sketchpad train --out m`", f"exit {r.returncode}", f"`{r.stderr.strip()}`"))
        if args.train:
            heavy = install(tmp, "heavy", f"{wheel}[train]")
            rows.append(
                (
                    "`pip install 'sketchpad-*.whl[train]'` into a fresh venv",
                    f"{heavy['seconds']:.1f} s",
                    f"{heavy['mb']:.0f} MB installed; [train] packages present: {', '.join(heavy['train'])}",
                )
            )
        else:
            notes.append("The [train] install was not measured in this run (--train measures it).")
        load_after = load()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = [
        "# The light install (benchmarks/bench_install.py)",
        "",
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; {machine()}, "
        f"Python {platform.python_version()}; load average (1, 5, 15 min) {load_before} before, {load_after} after "
        "(a shared machine: other engineers' tests ran at the same time). pip installs from this machine's "
        "on-disk indexes (no network).",
        "",
        "| step | time | result |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
        *notes,
    ]
    text = "\n".join(lines).rstrip() + "\n"
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
