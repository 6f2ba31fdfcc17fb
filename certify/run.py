"""The exhaustive check: every view of V, on one backend, at two batch sizes.

A view passes when the backend's step (argmax over the step tokens) equals the reference
step at every batch size and the top-1 logit is strictly above the top-2 (a tie is a fail: an
argmax that a rounding could flip is no guarantee).  The certificate records each view's
result, the smallest margin and where it occurs, and the largest logit difference between
the two batch sizes (a backend's numbers may depend on how views are batched).
"""
from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

import numpy as np

from sketchpad import __version__
from sketchpad.model.stepper import steps_and_margins
from sketchpad.model.tokenizer import ViewTokenizer
from sketchpad.views import file_sha256, load

from . import backends, statement

PREDICATE_TYPE = "https://sketchpad.invalid/certificate/v1"


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def run_backend(handle, views, batch_size: int) -> tuple[np.ndarray, float]:
    """All views through `handle.logits`, `batch_size` at a time; (logits, seconds)."""
    t = time.perf_counter()
    parts = [np.asarray(handle.logits(views[k:k + batch_size]), dtype=np.float32)
             for k in range(0, len(views), batch_size)]
    return np.concatenate(parts), time.perf_counter() - t


def _display(path: Path) -> str:
    """A path relative to the working directory when it is inside it (certificates get committed)."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _model_info(model_dir: Path) -> dict:
    cfg = json.loads((model_dir / "base" / "config.json").read_text())
    ad = json.loads((model_dir / "adapter" / "adapter_config.json").read_text())
    return {"architecture": cfg.get("architectures", [None])[0], "model_type": cfg.get("model_type"),
            "hidden_size": cfg.get("hidden_size"), "layer_types": cfg.get("layer_types"),
            "vocab_size": cfg.get("vocab_size")}, \
           {"type": ad.get("peft_type"), "rank": ad.get("r"), "alpha": ad.get("lora_alpha"),
            "target_modules": sorted(ad.get("target_modules") or [])}


def certify(model_dir: Path, backend: str = "torch", gate: float = 1.0,
            batch_sizes: tuple[int, ...] | None = None, view_entries=None) -> dict:
    """Run the check and return the in-toto Statement (a dict)."""
    model_dir = Path(model_dir)
    be = backends.get(backend)
    entries = view_entries if view_entries is not None else load()
    views = [e["view"] for e in entries]
    expected = [e["step"] for e in entries]
    batch_sizes = tuple(batch_sizes or (len(views), 1))
    steps_vocab = ViewTokenizer.load(model_dir).steps
    started = _now()
    t_open = time.perf_counter()
    handle = be.open(model_dir, gate)
    open_s = time.perf_counter() - t_open

    runs, seconds = [], {}
    for bs in batch_sizes:
        logits, s = run_backend(handle, views, bs)
        runs.append(logits)
        seconds[str(bs)] = round(s, 4)
    diff = np.abs(runs[0] - runs[1]).max(axis=1) if len(runs) > 1 else np.zeros(len(views))

    per_view, failed = [], []
    min_m, min_at = float("inf"), None
    results = [steps_and_margins(lg, steps_vocab) for lg in runs]
    for i, (v, exp) in enumerate(zip(views, expected)):
        gots = [r[0][i] for r in results]
        margin = float(min(r[1][i] for r in results))
        ok = all(g == exp for g in gots) and margin > 0.0
        row = {"view": v.key(), "expected": exp.key(), "got": gots[0].key(), "margin": round(margin, 4),
               "pass": ok}
        if len({g for g in gots}) > 1:
            row["got_by_batch_size"] = {str(bs): g.key() for bs, g in zip(batch_sizes, gots)}
        per_view.append(row)
        if not ok:
            failed.append(dict(row, witness=entries[i].get("witness")))
        if margin < min_m:
            min_m, min_at = margin, i
    finished = _now()
    worst = int(diff.argmax()) if len(diff) else 0

    model, adapter = _model_info(model_dir)
    desc = be.describe()
    extra_files = be.files(model_dir)
    subj = statement.subjects(model_dir, extra_files)
    digests = {s["name"]: s["digest"]["sha256"] for s in subj}
    predicate = {
        "tool": {"name": "sketchpad certify", "version": __version__},
        "model": dict(model, dir=_display(model_dir),
                      weights_sha256={n: d for n, d in digests.items() if n.startswith("base/") and n.endswith(".safetensors")}),
        "adapter": dict(adapter, gate=float(gate),
                        weights_sha256={n: d for n, d in digests.items() if n.startswith("adapter/") and n.endswith(".safetensors")}),
        "view_set": {"name": statement.VIEW_SET_NAME, "sha256": file_sha256(), "count": len(views)},
        "backend": {"name": backend, "device": desc.get("device", {})},
        "versions": desc.get("versions", {}),
        "batch_sizes": list(batch_sizes),
        "batch_consistency": {"max_abs_logit_diff": float(diff.max()) if len(diff) else 0.0,
                              "at_view": views[worst].key() if views else None},
        "result": {"passed": not failed, "views": len(views), "passed_views": len(views) - len(failed),
                   "failed_views": len(failed), "failures": failed,
                   "min_margin": round(min_m, 6) if views else None,
                   "min_margin_view": views[min_at].key() if views else None,
                   "min_margin_step": expected[min_at].key() if views else None},
        "time": {"started": started, "finished": finished, "model_load_seconds": round(open_s, 4),
                 "seconds_by_batch_size": seconds},
        "per_view": per_view,
    }
    return statement.statement(subj, PREDICATE_TYPE, predicate)


def write(stmt: dict, out: Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stmt, indent=1) + "\n")
    return out
