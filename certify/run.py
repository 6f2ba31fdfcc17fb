"""The certification suite: every view of V through a loaded stepper, compared with the
reference step, written as a certificate (an in-toto Statement, certify/statement.py).

    stmt = certify(stepper, seed=cache.suite_seed())   # stepper: sketchpad.model.loading.load_stepper(...)
    verdict = policy.check(stmt, policy.expect_from(stepper))

V runs several times, in the batch compositions a solve can meet (`compositions`): all of V at
once, one view per pass, and V shuffled into batches of random sizes (1 to 512 views), the
shuffle and the sizes drawn from a seed of this device (certify/cache.py's suite_seed: the
model's publisher cannot know it); on ONNX Runtime V shuffled runs once more, all at once, on
another intra-op thread count.  Every row's logits are compared across all runs: the drift is
the largest difference of any logit of any view between any two runs, and a view passes only
when every run gives the reference step with a margin above 0.  The static row-independence
check (certify/rows.py) is what makes a step a function of its view; these runs are defence
in depth, and measure the drift the margin rule needs.  Whether the certificate lets the
model run is policy.check's decision alone.

A stepper with a `max_batch` (a large ONNX export: sketchpad/model/onnx_stepper.py) never runs
more views at once, in a solve or here: "all of V" becomes V in order in batches of max_batch,
the shuffled batches are drawn up to it, and as it runs one session for every batch size there
is no second thread count to compare.  At full size the suite takes many minutes, so it runs in
chunks (consecutive batches of at least CHUNK_VIEWS views), shows its progress with an ETA, and
with resume=True keeps each chunk's logits (certify/resume.py) so that an interrupted suite
starts again where it stopped and ends with the same certificate.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from .. import views as V
from ..model.readout import steps_and_margins
from ..progress import Eta
from ..version import __version__
from . import policy
from .cache import suite_seed
from .resume import Journal
from .rows import NotRowIndependent, verdict_for
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
    return run_batches(logits_fn, views, [batch_size] * -(-len(views) // max(1, batch_size)))


def run_batches(logits_fn, views, sizes, tick=None) -> tuple[np.ndarray, float]:
    """Views in order through `logits_fn` in batches of `sizes`; (logits, seconds)."""
    t = time.perf_counter()
    parts, k = [], 0
    for size in sizes:
        if k >= len(views):
            break
        parts.append(np.asarray(logits_fn(views[k : k + size]), dtype=np.float32))
        k += size
        if tick:
            tick(len(parts[-1]))
    return (np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)), time.perf_counter() - t


CHUNK_VIEWS = policy.SUITE_CHUNK_VIEWS  # a chunk: consecutive batches of a run holding at least this many views
ETA_EVERY = 30.0  # seconds between progress lines when stderr is not a terminal


def chunk_groups(sizes: list[int], min_views: int = CHUNK_VIEWS) -> list[tuple[int, int]]:
    """[(first batch, end batch)] covering `sizes` in order, each holding >= min_views views
    (the last may hold fewer).  web/certify/run.js groups the same way."""
    groups, start, held = [], 0, 0
    for i, size in enumerate(sizes):
        held += size
        if held >= min_views:
            groups.append((start, i + 1))
            start, held = i + 1, 0
    if start < len(sizes):
        groups.append((start, len(sizes)))
    return groups


@contextlib.contextmanager
def _bar(progress, total: int, done: int = 0):
    """A tick function: `progress(done, total)` if given, else a tqdm bar on a terminal that
    shows itself only when the suite takes more than a second, and elsewhere (a log, a pipe) a
    line with the ETA every ETA_EVERY seconds once the suite has run that long."""
    if progress is not None:
        count = [done]

        def tick(k):
            count[0] += k
            progress(count[0], total)

        yield tick
        return

    eta, count, last = Eta(total, done), [done], [time.perf_counter()]
    terminal = sys.stderr.isatty()

    def lines(k):
        count[0] += k
        if not terminal and time.perf_counter() - last[0] >= ETA_EVERY:
            last[0] = time.perf_counter()
            print(f"sketchpad: certifying: {eta.line(count[0])}", file=sys.stderr, flush=True)

    with tqdm(total=total, initial=done, delay=1.0, disable=None, leave=False, unit="view", desc="certifying") as bar:

        def tick(k):
            bar.update(k)
            lines(k)

        yield tick


def mulberry32(seed: int):
    """A small 32-bit generator (web/certify/run.js has the same, number for number)."""
    state = seed & 0xFFFFFFFF

    def imul(a, b):
        return (a * b) & 0xFFFFFFFF

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = imul(state ^ (state >> 15), state | 1)
        t = ((t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF) ^ t
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return draw


def shuffled(n: int, seed: int, max_batch: int = 512) -> tuple[list[int], list[int]]:
    """(order, batch sizes): a permutation of range(n) and sizes from 1 to max_batch drawn
    log-uniformly, both from `seed` (web/certify/run.js: the same for the same seed)."""
    draw = mulberry32(seed)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = int(draw() * (i + 1))
        order[i], order[j] = order[j], order[i]
    sizes, left, top = [], n, math.log2(max_batch)
    while left > 0:
        size = min(left, int(2 ** (draw() * top)))
        sizes.append(size)
        left -= size
    return order, sizes


def compositions(stepper, n: int, seed: int, batch_sizes=None) -> list[dict]:
    """The runs of the suite: {label, fn, order (None: V in order), sizes}."""
    cap = getattr(stepper, "max_batch", None)
    if batch_sizes:
        return [
            {"label": f"batch {bs}", "fn": stepper.logits, "order": None, "sizes": [bs] * -(-n // bs)}
            for bs in batch_sizes
        ]
    top = min(512, cap) if cap else 512
    order, sizes = shuffled(n, seed, top)
    everything = (
        {"label": "all of V at once", "sizes": [n]}
        if not cap or cap >= n
        else {"label": f"all of V in order, batches of {cap}", "sizes": [cap] * -(-n // cap)}
    )
    runs = [
        {**everything, "fn": stepper.logits, "order": None},
        {"label": "one view per pass", "fn": stepper.logits, "order": None, "sizes": [1] * n},
        {"label": f"shuffled, {len(sizes)} batches of 1-{top}", "fn": stepper.logits, "order": order, "sizes": sizes},
    ]
    other = getattr(stepper, "with_threads", None)
    if other is not None and not cap:
        alt = other(1 if stepper.threads != 1 else 2)
        runs.append(
            {"label": f"shuffled, all at once, {alt.threads} thread(s)", "fn": alt.logits, "order": order, "sizes": [n]}
        )
    return runs


def certify(
    stepper,
    batch_sizes: tuple[int, ...] | None = None,
    view_entries=None,
    progress=None,
    seed: int | None = None,
    resume: bool = False,
    announce=None,
) -> dict:
    """Run the suite on `stepper` and return the certificate (a dict).  A graph that is not
    shown to be row-independent (certify/rows.py) is refused before any view runs.
    batch_sizes: run V in order at exactly these sizes instead (tests, `--batch-sizes`).
    seed: the suite order's seed (default: this device's, certify/cache.py).
    resume: keep each chunk's results in this user's cache and reuse those an interrupted run
    of the same suite left (certify/resume.py); announce(line) says so."""

    rows = verdict_for(stepper)
    if rows is not None and not rows.ok:
        raise NotRowIndependent(
            f"the graph is not shown to be row-independent, so no suite can certify it: {rows.message}"
        )
    entries = view_entries if view_entries is not None else V.load()
    views = [e["view"] for e in entries]
    expected = [e["step"] for e in entries]
    if seed is None and not batch_sizes:
        seed = suite_seed()
    runs = compositions(stepper, len(views), seed, batch_sizes)
    journal = _journal(stepper, runs, len(views)) if resume else None
    started = journal.started if journal else _now()
    plans = [[(g, sum(run["sizes"][g[0] : g[1]])) for g in chunk_groups(run["sizes"])] for run in runs]
    kept = {(r, c): journal.get(r, c) for r, plan in enumerate(plans) for c in range(len(plan))} if journal else {}
    kept = {k: v for k, v in kept.items() if v is not None and v[0].shape == (plans[k[0]][k[1]][1], len(stepper.steps))}
    done = sum(plans[r][c][1] for r, c in kept)
    if kept and announce:
        announce(
            f"sketchpad: resuming the certification suite: {len(kept)} of {sum(map(len, plans))} chunks "
            f"({done:,} of {len(views) * len(runs):,} view runs) kept from the run started {started}"
        )
    results, seconds = [], {}
    with _bar(progress, len(views) * len(runs), done) as tick:
        for r, run in enumerate(runs):
            order = run["order"] or range(len(views))
            seq = [views[i] for i in order]
            parts, k, spent = [], 0, 0.0
            for c, ((b0, b1), held) in enumerate(plans[r]):
                if (r, c) in kept:
                    logits, s = kept[(r, c)]
                else:
                    logits, s = run_batches(run["fn"], seq[k : k + held], run["sizes"][b0:b1], tick)
                    if journal:
                        journal.put(r, c, logits, s)
                parts.append(logits)
                k, spent = k + held, spent + s
            logits = np.concatenate(parts) if parts else np.zeros((0, len(stepper.steps)), np.float32)
            if run["order"]:
                back = np.empty_like(logits)
                back[np.asarray(run["order"])] = logits
                logits = back
            results.append((logits, *steps_and_margins(logits, stepper.steps)))
            seconds[run["label"]] = round(spent, 4)
    stacked = np.stack([r[0] for r in results])
    diff = (stacked.max(axis=0) - stacked.min(axis=0)).max(axis=1) if len(views) else np.zeros(0)
    drift = float(diff.max()) if len(diff) else 0.0
    cert = _certificate(stepper, entries, views, expected, runs, results, seconds, drift, diff, seed, rows, started)
    if journal:
        cert["predicate"]["time"]["resumed"] = {"chunks": journal.resumed_chunks, "view_runs": done}
        journal.finish()
    return cert


def long_suite(stepper) -> bool:
    """Whether the suite on this stepper runs long enough to keep its chunks (resume=True) by
    default: a large ONNX export, or a torch model that is not small."""
    return bool(getattr(stepper, "max_batch", None)) or getattr(stepper, "small", True) is False


def _journal(stepper, runs, n: int):
    return Journal.open(policy.expect_from(stepper), runs, n)


def _certificate(stepper, entries, views, expected, runs, results, seconds, drift, diff, seed, rows, started) -> dict:
    per_view, failed = [], []
    for i, (v, exp) in enumerate(zip(views, expected)):
        gots = [r[1][i] for r in results]
        margin = float(min(r[2][i] for r in results))
        ok = all(g == exp for g in gots) and margin > 0.0
        row = {"view": v.key(), "expected": exp.key(), "got": gots[0].key(), "margin": round(margin, 4), "pass": ok}
        if len(set(gots)) > 1:
            row["got_by_run"] = {run["label"]: g.key() for run, g in zip(runs, gots)}
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
        "runs": [
            {
                "label": run["label"],
                "batches": len(run["sizes"]),
                "batch_sizes": [min(run["sizes"]), max(run["sizes"])],
                "shuffled": run["order"] is not None,
                "seconds": seconds[run["label"]],
            }
            for run in runs
        ],
        "suite": {"seed": seed, "runs": len(runs), "row_independence": None if rows is None else "checked: passed"},
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
