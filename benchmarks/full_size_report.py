"""benchmarks/results/full_size*.md from bench_full_size.py's JSON (kept apart: the bench runs, this writes).

python benchmarks/full_size_report.py [benchmarks/results/full_size.json]   # rewrite the .md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _mb(n) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 1e7 else f"{n / 1e6:,.2f} MB"


def _files(step: dict) -> str:
    return " + ".join(f"`{k}` {_mb(v)}" for k, v in (step.get("files") or {}).items())


def _step_rows(r: dict) -> list[str]:
    rows = []
    labels = {
        "build": "build the checkpoint (random weights)",
        "export": "`sketchpad export` (float32, parity on all of V)",
        "float16": "`--dtype float16 --variants-only`",
        "int8": "`--quantize int8 --variants-only` (calibration on all of V)",
        "certify-float32": "`sketchpad certify`, float32 (ONNX Runtime, 2 threads)",
        "certify-int8": "`sketchpad certify`, int8 (ONNX Runtime, 2 threads)",
    }
    for key, label in labels.items():
        s = r.get(key)
        if not s:
            continue
        what = _files(s) or (_mb(s["bytes_on_disk"]) + " on disk" if "bytes_on_disk" in s else "")
        if "verdict" in s:
            res = s["result"]
            what = f"{'passed' if res['passed'] else 'FAILED'}: {res['passed_views']}/{res['views']} views"
        rows.append(
            f"| {label} | {s['seconds']:,.0f} s | **{s['peak_rss_gb']:.2f} GB** | {s['least_available_gb']} GB "
            f"| {s['load']} | exit {s['exit']}; {what} |"
        )
    return rows


def _certify_rows(r: dict) -> list[str]:
    rows = []
    for key in ("certify-float32", "certify-int8"):
        s = r.get(key)
        for run in (s or {}).get("runs", []):
            lo, hi = run["batch_sizes"]
            sizes = f"{lo}" if lo == hi else f"{lo}-{hi}"
            rows.append(
                f"| {key.split('-')[1]} | {run['label']} | {run['batches']:,} of {sizes} | {run['seconds']:,.1f} s "
                f"| {run['seconds_per_batch']:,.3f} s |"
            )
    return rows


def write_markdown(r: dict, path) -> None:
    dates = r.get("dates") or {}
    out = [
        f"# Full size: {'a Qwen3.5-0.8B-shaped' if r.get('scale') == 'full' else 'a ' + str(r.get('scale')) + '-size Qwen3.5'}"
        " model from checkpoint to certificate",
        "",
        "`python benchmarks/bench_full_size.py"
        + ("" if r.get("scale") == "full" else f" --scale {r.get('scale')}")
        + "` (each step alone, in its own process; peak RSS of its whole process tree, sampled 4 times a"
        " second; the least memory the machine had available meanwhile). Random weights: the suite is"
        " expected to FAIL; the figures are time and memory.",
        "",
        f"- machine: {r.get('machine')}",
        f"- config: {json.dumps(r.get('config')) if r.get('config') else 'Qwen3.5-0.8B text config (752,393,024 parameters)'}",
        f"- dates: {', '.join(f'{k} {v}' for k, v in dates.items())}",
        "",
        "| step | time | peak RSS | least available | load (1/5/15 min) | result |",
        "|---|---:|---:|---:|---|---|",
        *_step_rows(r),
        "",
    ]
    certs = _certify_rows(r)
    if certs:
        out += [
            "Time per batch in the suite (from the certificates):",
            "",
            "| variant | run | batches | total | per batch |",
            "|---|---|---:|---:|---:|",
            *certs,
            "",
        ]
        for key in ("certify-float32", "certify-int8"):
            s = r.get(key)
            if s and s.get("verdict"):
                out += [f"- {key}: `{s['verdict'][:220]}`; first failing views {', '.join(s['first_failures'])}"]
        out.append("")
    for p in (r.get("page"), r.get("page-float16")):
        if not p:
            continue
        batches = p.get("batches") or []
        per = ", ".join(f"{b['views']} views in {b['ms'] / 1000:.1f} s" for b in batches)
        out += [
            f"The page (headless Chromium, wasm, 2 threads), the {p['variant']} variant, load {p['load']}:",
            "",
            f"- state `{p.get('state')}` after {p.get('load_seconds')} s: {p.get('model_status')} {p.get('error') or ''}",
            f"- its suite's first batches: {per or 'none'}",
            f"- progress line: {p.get('progress_line', '')}",
            f"- Chromium's processes: {p.get('rss_after_load_gb')} GB after loading, peak {p.get('peak_rss_gb')} GB "
            f"(least available {p.get('least_available_gb')} GB)",
            "",
        ]
    Path(path).write_text("\n".join(out))


if __name__ == "__main__":
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/full_size.json")
    write_markdown(json.loads(src.read_text()), src.with_suffix(".md"))
