"""The flagship at full size, from checkpoint to certificate (not a test; minutes to an hour):

    build   a Qwen3.5-0.8B-shaped checkpoint with random weights (bench_paper_scale.build_model_dir)
    export  `sketchpad export` (float32, weights in model.onnx.data), then the float16 and int8
            variants (`--variants-only`, one command each)
    certify `sketchpad certify` on ONNX Runtime, float32 and int8 (each resumable, with an ETA)
    page    headless Chromium loads the int8 variant (wasm), starts the page's suite and reports
            its first batches (time, JS heap) and the browser's memory (page-float16: the same
            with the float16 variant)

Each step runs alone, as its own process, measured from outside: wall time and the peak resident
memory of its whole process tree (sampled 4 times a second).  A step does not start unless the
machine has MIN_FREE_GB available (the machine is shared).  Results: benchmarks/results/full_size.json
(every figure) and full_size.md; with --scale quarter (8 layers, a quarter of the vocabulary:
231 M parameters) it writes full_size-quarter.* instead, which is what the full-size design was
measured on first.

    python benchmarks/bench_full_size.py [--scale full|quarter] [--steps build,export,...] [--workdir DIR] [--keep]

A random-weight model fails its suite: the point is the time, the memory and a clear FAILED.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.full_size_report import write_markdown  # noqa: E402
from sketchpad.certify.chromium import browser, wait_until  # noqa: E402
from sketchpad.model.environment import machine as described  # noqa: E402
from sketchpad.server.live import page_server  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
SCALES = {"full": {}, "quarter": {"vocab_size": 62080, "num_hidden_layers": 8}}
STEPS = ("build", "export", "float16", "int8", "certify-float32", "certify-int8", "page", "page-float16")
MIN_FREE_GB = {"full": 12.0, "quarter": 6.0}
PAGE_BATCHES = 2  # batches of the page's suite to time before stopping it


class Sampler:
    """Peak RSS of a process and its descendants, and the least memory the machine had available."""

    def __init__(self, pid: int, only=None):
        self.pid, self.only, self.peak, self.least_free = pid, only, 0, psutil.virtual_memory().available
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def tree_rss(self) -> int:
        try:
            root = psutil.Process(self.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return 0
        total = 0
        for p in procs:
            try:
                if self.only is None or self.only(p):
                    total += p.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.tree_rss())
            self.least_free = min(self.least_free, psutil.virtual_memory().available)
            self._stop.wait(0.25)

    def stop(self):
        self._stop.set()
        self._thread.join()


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def need_memory(scale: str) -> None:
    free = psutil.virtual_memory().available / 1e9
    if free < MIN_FREE_GB[scale]:
        sys.exit(f"bench_full_size: only {free:.1f} GB available, {MIN_FREE_GB[scale]} GB needed: not starting")


def run(name: str, cmd: list[str], work: Path, scale: str, env=None) -> dict:
    need_memory(scale)
    log = work / f"{name}.log"
    print(f"[{name}] {' '.join(cmd)}  (load {load()})", flush=True)
    t = time.perf_counter()
    load0 = load()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}, cwd=ROOT)
        sampler = Sampler(proc.pid)
        rc = proc.wait()
        sampler.stop()
    seconds = time.perf_counter() - t
    text = log.read_text()
    print(f"[{name}] exit {rc}, {seconds:.0f} s, peak RSS {sampler.peak / 1e9:.2f} GB", flush=True)
    return {
        "command": " ".join(cmd),
        "exit": rc,
        "seconds": round(seconds, 1),
        "peak_rss_gb": round(sampler.peak / 1e9, 2),
        "least_available_gb": round(sampler.least_free / 1e9, 1),
        "load": f"{load0} at start, {load()} at end",
        "output_tail": text.splitlines()[-25:],
    }


def step_build(work: Path, scale: str) -> dict:
    code = (
        "import sys, pathlib; sys.path.insert(0, 'benchmarks'); import bench_paper_scale as b; "
        f"n = b.build_model_dir(pathlib.Path({str(work / 'm')!r}), **{SCALES[scale]!r}); print('parameters', n)"
    )
    r = run("build", [sys.executable, "-c", code], work, scale)
    r["bytes_on_disk"] = sum(p.stat().st_size for p in (work / "m").rglob("*") if p.is_file())
    return r


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "sketchpad", *args]


def export_files(d: Path) -> dict:
    return {p.name: p.stat().st_size for p in sorted(d.glob("model.onnx*"))} if d.is_dir() else {}


def step_export(work: Path, scale: str) -> dict:
    m = work / "m"
    r = run("export", cli("export", "--model", str(m), "--out", str(m / "onnx"), "--external-data", "yes"), work, scale)
    r["files"] = export_files(m / "onnx")
    return r


def step_variant(work: Path, scale: str, name: str) -> dict:
    m = work / "m"
    flag = ["--dtype", "float16"] if name == "float16" else ["--quantize", "int8"]
    r = run(name, cli("export", "--out", str(m / "onnx"), *flag, "--variants-only"), work, scale)
    r["files"] = export_files(m / f"onnx-{name}")
    return r


def step_certify(work: Path, scale: str, variant: str) -> dict:
    m = work / "m"
    target = m if variant == "float32" else m / f"onnx-{variant}"
    out = work / f"certificate-{variant}.json"
    r = run(
        f"certify-{variant}",
        cli("certify", "--model", str(target), "--out", str(out)),
        work,
        scale,
        env={"SKETCHPAD_CACHE_DIR": str(work / "cache")},
    )
    if out.is_file():
        p = json.loads(out.read_text())["predicate"]
        r["runs"] = [
            {
                "label": x["label"],
                "batches": x["batches"],
                "batch_sizes": x["batch_sizes"],
                "seconds": x["seconds"],
                "seconds_per_batch": round(x["seconds"] / max(1, x["batches"]), 3),
            }
            for x in p["runs"]
        ]
        res = p["result"]
        r["verdict"] = next((line for line in r["output_tail"] if line.startswith(("PASSED", "FAILED"))), None)
        r["result"] = {k: res[k] for k in ("passed", "views", "passed_views", "failed_views", "min_margin")}
        r["first_failures"] = [f["view"] for f in res["failures"][:5]]
        r["drift"] = p["drift"]["max_abs_logit_diff"]
    return r


def chromium_only(p) -> bool:
    return "chrom" in p.name().lower()


def step_page(work: Path, scale: str, variant: str = "int8") -> dict:
    """The page loads the variant and starts its suite; PAGE_BATCHES batches are timed."""

    need_memory(scale)
    print(f"[page] Chromium, wasm, the {variant} variant (load {load()})", flush=True)
    out = {"variant": variant, "load": load()}
    sampler = Sampler(os.getpid(), only=chromium_only)
    try:
        with page_server(work / "m") as url, browser() as b:
            page = b.new_context().new_page()
            t = time.perf_counter()
            page.goto(f"{url}/?provider=wasm&variant={variant}")
            wait_until(page, "['ready', 'failed'].includes(document.body.dataset.state)", timeout=3_600_000)
            out["state"] = page.evaluate("document.body.dataset.state")
            out["load_seconds"] = round(time.perf_counter() - t, 1)
            out["model_status"] = page.inner_text("#model-status")
            out["error"] = page.inner_text("#error")
            out["rss_after_load_gb"] = round(sampler.tree_rss() / 1e9, 2)
            if out["state"] == "ready":
                page.click("#certify")
                log = "async () => (await import('/cert-panel.js')).batchLog"
                wait_until(page, f"(async () => (await ({log})()).length >= {PAGE_BATCHES})()", timeout=7_200_000)
                out["batches"] = page.evaluate(log)
                out["progress_line"] = page.inner_text("#cert-result")
    finally:
        sampler.stop()
    out["peak_rss_gb"] = round(sampler.peak / 1e9, 2)
    out["least_available_gb"] = round(sampler.least_free / 1e9, 1)
    out["load"] += f" at start, {load()} at end"
    print(f"[page] {json.dumps({k: v for k, v in out.items() if k != 'batches'})[:400]}", flush=True)
    return out


def machine() -> str:
    """The shared machine description, with the memory this benchmark is about."""

    return f"{described()}, {psutil.virtual_memory().total / 1e9:.0f} GB RAM"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", choices=tuple(SCALES), default="full")
    ap.add_argument("--steps", default=",".join(STEPS))
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--keep", action="store_true", help="keep the work directory (default: delete it at the end)")
    args = ap.parse_args()
    steps = args.steps.split(",")
    work = Path(args.workdir or f"/tmp/sketchpad-full-size-{args.scale}")
    work.mkdir(parents=True, exist_ok=True)
    name = "full_size" if args.scale == "full" else f"full_size-{args.scale}"
    path = RESULTS / f"{name}.json"
    results = json.loads(path.read_text()) if path.is_file() else {}
    results.update(scale=args.scale, machine=machine(), config=SCALES[args.scale])
    try:
        for step in steps:
            if step == "build":
                results["build"] = step_build(work, args.scale)
            elif step == "export":
                results["export"] = step_export(work, args.scale)
            elif step in ("float16", "int8"):
                results[step] = step_variant(work, args.scale, step)
            elif step.startswith("certify-"):
                results[step] = step_certify(work, args.scale, step.split("-", 1)[1])
            elif step in ("page", "page-float16"):
                results[step] = step_page(work, args.scale, "int8" if step == "page" else "float16")
            else:
                sys.exit(f"unknown step {step!r} (use {', '.join(STEPS)})")
            results.setdefault("dates", {})[step] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            path.write_text(json.dumps(results, indent=1) + "\n")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    write_markdown(results, RESULTS / f"{name}.md")
    print(f"wrote {path} and {RESULTS / f'{name}.md'}")


if __name__ == "__main__":
    main()
