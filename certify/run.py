"""The certification suite: every view of V through a loaded stepper, compared with the
reference step, written as a certificate (an in-toto Statement, certify/statement.py).

    stmt = certify(stepper)       # stepper: sketchpad.model.loading.load_stepper(...)
    verdict = policy.check(stmt, policy.expect_from(stepper))

V runs at two batch sizes (all of V at once, and one view per pass) and, where the backend's
numbers can depend on it, at another thread count.  A view passes when every run gives the
reference step with a margin above 0; the certificate records each view's step and smallest
margin, the drift (the largest logit difference between the runs), and the numbers of the
margin rule.  Whether the certificate lets the model run is policy.check's decision alone.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import numpy as np

from .. import __version__
from ..model.readout import steps_and_margins
from . import policy
from .statement import statement


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _display(path) -> str:
    """A path relative to the working directory when it is inside it (certificates get committed)."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def run_views(logits_fn, views, batch_size: int) -> tuple[np.ndarray, float]:
    """All views through `logits_fn`, `batch_size` at a time; (logits, seconds)."""
    t = time.perf_counter()
    parts = [
        np.asarray(logits_fn(views[k : k + batch_size]), dtype=np.float32) for k in range(0, len(views), batch_size)
    ]
    return (np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)), time.perf_counter() - t


def _runs(stepper, n: int, batch_sizes):
    """(label, batch size, logits function) of every run: each batch size, and one more
    thread count where the backend offers it (ONNX Runtime's intra-op threads)."""
    out = [(f"batch {bs}", bs, stepper.logits) for bs in batch_sizes]
    other = getattr(stepper, "with_threads", None)
    if other is not None:
        alt = other(1 if stepper.threads != 1 else 2)
        out.append((f"batch {batch_sizes[0]}, {alt.threads} thread(s)", batch_sizes[0], alt.logits))
    return out


def certify(stepper, batch_sizes: tuple[int, ...] | None = None, view_entries=None, progress=None) -> dict:
    """Run the suite on `stepper` and return the certificate (a dict)."""
    from .. import views as V

    entries = view_entries if view_entries is not None else V.load()
    views = [e["view"] for e in entries]
    expected = [e["step"] for e in entries]
    batch_sizes = tuple(batch_sizes or (len(views), 1))
    started = _now()
    results, seconds = [], {}
    runs = _runs(stepper, len(views), batch_sizes)
    for label, bs, fn in runs:
        logits, s = run_views(fn, views, bs)
        results.append((logits, *steps_and_margins(logits, stepper.steps)))
        seconds[label] = round(s, 4)
        if progress:
            progress(label, s)
    base = results[0][0]
    diff = np.zeros(len(views))
    for logits, _, _ in results[1:]:
        diff = np.maximum(diff, np.abs(base - logits).max(axis=1))
    drift = float(diff.max()) if len(diff) else 0.0

    per_view, failed = [], []
    for i, (v, exp) in enumerate(zip(views, expected)):
        gots = [r[1][i] for r in results]
        margin = float(min(r[2][i] for r in results))
        ok = all(g == exp for g in gots) and margin > 0.0
        row = {"view": v.key(), "expected": exp.key(), "got": gots[0].key(), "margin": round(margin, 4), "pass": ok}
        if len(set(gots)) > 1:
            row["got_by_run"] = {label: g.key() for (label, _, _), g in zip(runs, gots)}
        per_view.append(row)
        if not ok:
            failed.append(dict(row, witness=entries[i].get("witness")))
    margins = [r["margin"] for r in per_view]
    at = int(np.argmin(margins)) if margins else 0
    min_margin = float(margins[at]) if margins else None
    need = policy.margin_rule(drift)
    worst = int(diff.argmax()) if len(diff) else 0
    vs = policy.shipped_view_set()
    subjects = stepper.manifest.subjects() + [{"name": policy.VIEW_SET_NAME, "digest": {"sha256": V.file_sha256()}}]
    predicate = {
        "tool": {"name": "sketchpad certify", "version": __version__},
        "model": {
            "dir": _display(stepper.manifest.root),
            "manifest_sha256": stepper.manifest.digest(),
            **(stepper.describe() if hasattr(stepper, "describe") else {}),
        },
        "adapter": {"gate": float(stepper.gate_value)},
        "backend": {"name": stepper.backend},
        "environment": stepper.environment(),
        "view_set": {
            "name": policy.VIEW_SET_NAME,
            "sha256": V.file_sha256(),
            "count": len(views),
            "shipped": V.file_sha256() == vs.sha256,
        },
        "runs": [{"label": label, "batch_size": bs, "seconds": seconds[label]} for label, bs, _ in runs],
        "drift": {"max_abs_logit_diff": drift, "at_view": views[worst].key() if views else None},
        "margin_rule": {
            "floor": policy.MARGIN_FLOOR,
            "factor": policy.DRIFT_FACTOR,
            "drift": drift,
            "required": need,
            "min_margin": min_margin,
            "holds": bool(min_margin is not None and min_margin > need),
        },
        "result": {
            "passed": not failed,
            "views": len(views),
            "passed_views": len(views) - len(failed),
            "failed_views": len(failed),
            "failures": failed,
            "min_margin": min_margin,
            "min_margin_view": views[at].key() if views else None,
            "min_margin_step": expected[at].key() if views else None,
        },
        "time": {"started": started, "finished": _now(), "seconds_by_run": seconds},
        "per_view": per_view,
    }
    return statement(subjects, predicate)
