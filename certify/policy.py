"""The certificate rule: the one place that decides whether a certificate lets a model run.

    verdict = check(cert, expect_from(stepper))     # or an Expectation built by hand
    verdict.ok, verdict.reasons                      # [(code, message), ...]

The verifier decides what must be covered, never the certificate.  A certificate passes only
if, checked against what the loader itself loaded (`Expectation`):

  files        every file the loader read and every source file that turns a view into a step
               (the loader's manifest, sketchpad.model.manifest) is a subject, with an equal
               sha256; so is the shipped view-set export.  Extra subjects are ignored.
  tool         it was made by this version of sketchpad.
  view set     its view set is the shipped V (sha256 and count), and it has one passing row
               per view of V: no view missing, none foreign, none twice, and each row's step
               equal to the shipped reference step.
  margin       the smallest margin over its rows exceeds DRIFT_FACTOR x the drift it measured
               (the largest logit difference between its runs at different batch sizes and
               thread counts) plus MARGIN_FLOOR.  This is the perturbation theorem
               (lean/Sketchpad/Perturb.lean): a margin above 2e leaves every step unchanged
               under any logit perturbation up to e.  The floor covers drift the certificate
               did not measure (another batch split or kernel path on the same device and
               library): 1 logit is ~10^4 times the float32 drift measured on CPU (~1e-4).
  environment  same backend, execution provider, dtype, inference library versions and build,
               thread settings and device identity (CPU vendor, model and instruction sets, OS
               and architecture; the browser, its version and WebGPU adapter): a certificate
               from another device does not hold for this one.
  gate         the adapter gate it certified is the gate in use.
  rows         the graph the loader loaded is row-independent (sketchpad.certify.rows), as the
               verifier itself establishes on the loaded bytes; the certificate's word on it is
               not asked.  (The torch backend runs fixed library code: not applicable.)

A certificate that passes this rule is still only a claim unless this device's own suite made
it (certified.py): the rule re-derives what it can, but the logits and drift it records can be
written by anyone.

The same rule runs in the page (web/certify/policy.js) from the generated
web/generated/certificate-rule.json (`rule_json`); tests run one tampering matrix on both.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field

from .. import views
from ..version import __version__
from .rows_table import table_json
from .statement import PREDICATE_TYPE, STATEMENT_TYPE

MARGIN_FLOOR = 1.0
DRIFT_FACTOR = 2.0
VIEW_SET_NAME = "sketchpad/data/views.jsonl"
# Fields of an environment, per backend, that must be equal (web/certify/policy.js builds the
# browser's from the rule JSON).
ENVIRONMENT_FIELDS = ("backend", "execution_provider", "dtype", "library", "threads", "device")
# The suite keeps its results per chunk of consecutive batches holding at least this many views
# (certify/run.py, certify/resume.py; the page reads it from the rule JSON).
SUITE_CHUNK_VIEWS = 256


@dataclass(frozen=True)
class ViewSet:
    sha256: str
    count: int
    steps: dict  # view key -> reference step key


@functools.lru_cache(maxsize=1)
def shipped_view_set() -> ViewSet:
    rows = views.load()
    return ViewSet(views.file_sha256(), len(rows), {r["view"].key(): r["step"].key() for r in rows})


@dataclass
class Expectation:
    """What a certificate must cover: the loader's view of the model, here."""

    backend: str
    files: dict  # {subject name: sha256}: every file the loader read, and its code
    gate: float
    environment: dict | None  # None: not compared (a server checking another device's upload)
    rows: dict | None = None  # the verifier's row-independence verdict on the loaded graph (None: torch)

    def required_files(self) -> dict:
        return {**self.files, VIEW_SET_NAME: shipped_view_set().sha256}


def expect_from(stepper, compare_environment: bool = True) -> Expectation:
    """The expectation for a loaded stepper (sketchpad.model.loading.load_stepper)."""
    # lazy: cold path, rows* (~15 ms) load for a verdict, not on `import sketchpad`
    from .rows import verdict_for

    rows = verdict_for(stepper)
    return Expectation(
        stepper.backend,
        dict(stepper.manifest.files),
        stepper.gate_value,
        stepper.environment() if compare_environment else None,
        None if rows is None else rows.as_dict(),
    )


@dataclass
class Verdict:
    reasons: list = field(default_factory=list)  # [(code, message)]
    facts: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.reasons

    def fail(self, code: str, message: str) -> None:
        self.reasons.append((code, message))

    def codes(self) -> list[str]:
        return [c for c, _ in self.reasons]

    def summary(self, limit: int = 3) -> str:
        return "; ".join(m for _, m in self.reasons[:limit]) + (
            f" (and {len(self.reasons) - limit} more)" if len(self.reasons) > limit else ""
        )


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _get(d, *path):
    for k in path:
        d = d.get(k) if isinstance(d, dict) else None
    return d


def margin_rule(drift: float) -> float:
    return DRIFT_FACTOR * drift + MARGIN_FLOOR


def check(cert, expect: Expectation) -> Verdict:
    """Every reason the certificate does not let the expected model run (none: it does)."""
    v = Verdict()
    if (
        not isinstance(cert, dict)
        or cert.get("_type") != STATEMENT_TYPE
        or cert.get("predicateType") != PREDICATE_TYPE
        or not isinstance(cert.get("predicate"), dict)
    ):
        v.fail(
            "format", f"not a sketchpad certificate (needs _type {STATEMENT_TYPE} and predicateType {PREDICATE_TYPE})"
        )
        return v
    p = cert["predicate"]
    _backend(p, expect, v)
    _subjects(cert.get("subject"), expect, v)
    tool = _get(p, "tool", "version")
    if tool != __version__:
        v.fail("tool-version", f"made by sketchpad {tool}, this is sketchpad {__version__}")
    _views(p, v)
    _margin(p, v)
    if expect.environment is not None:
        _environment(p.get("environment"), expect.environment, v)
    gate = _get(p, "adapter", "gate")
    if not _finite(gate) or float(gate) != float(expect.gate):
        v.fail("gate", f"certifies the adapter at gate {gate}, not at gate {expect.gate:g}")
    if expect.rows is not None and not expect.rows.get("ok"):
        v.fail("rows", f"is for a graph that is not shown to be row-independent: {expect.rows.get('message')}")
    return v


def _backend(p: dict, expect: Expectation, v: Verdict) -> None:
    name = _get(p, "backend", "name")
    if name != expect.backend:
        v.fail("backend", f"made on backend {name!r}, not {expect.backend!r}")


def _subjects(subjects, expect: Expectation, v: Verdict) -> None:
    have = {}
    if isinstance(subjects, list):
        for s in subjects:
            name, digest = _get(s, "name"), _get(s, "digest", "sha256")
            if isinstance(name, str) and isinstance(digest, str):
                have.setdefault(name, digest)
    for name, digest in sorted(expect.required_files().items()):
        if name not in have:
            v.fail("subject-missing", f"does not cover {name}, which the loader loads")
        elif have[name] != digest:
            v.fail(
                "subject-digest", f"names {name} with sha256 {have[name][:12]}..., the loaded file has {digest[:12]}..."
            )


def _views(p: dict, v: Verdict) -> None:
    vs = shipped_view_set()
    sha, count = _get(p, "view_set", "sha256"), _get(p, "view_set", "count")
    if sha != vs.sha256 or count != vs.count:
        v.fail(
            "view-set",
            f"is for a view set of {count} views (sha256 {str(sha)[:12]}...), not the shipped "
            f"V of {vs.count} views ({vs.sha256[:12]}...)",
        )
    rows = p.get("per_view")
    if not isinstance(rows, list):
        v.fail("per-view", "has no per-view results")
        return
    seen, foreign, dup, wrong, margins = set(), [], [], [], []
    for r in rows:
        key = _get(r, "view")
        if not isinstance(key, str) or key not in vs.steps:
            foreign.append(str(key))
            continue
        if key in seen:
            dup.append(key)
            continue
        seen.add(key)
        m = _get(r, "margin")
        if _get(r, "got") != vs.steps[key] or _get(r, "pass") is not True or not _finite(m) or m <= 0:
            wrong.append(key)
        elif _finite(m):
            margins.append(float(m))
    missing = len(vs.steps) - len(seen)
    if missing or foreign or dup:
        what = [
            f"{missing} views of V missing" if missing else "",
            f"{len(foreign)} views not in V (first {foreign[0]!r})" if foreign else "",
            f"{len(dup)} views twice (first {dup[0]!r})" if dup else "",
        ]
        v.fail(
            "per-view",
            f"has results for {len(rows)} rows, not exactly the {vs.count} views of V: "
            + ", ".join(w for w in what if w),
        )
    if wrong:
        v.fail("failed-views", f"{len(wrong)} views do not pass (first: {', '.join(wrong[:3])})")
    v.facts["min_margin"] = min(margins) if margins and not wrong else None


def _margin(p: dict, v: Verdict) -> None:
    drift = _get(p, "drift", "max_abs_logit_diff")
    m = v.facts.get("min_margin")
    if not _finite(drift) or drift < 0:
        v.fail("margin", "records no measured drift (drift.max_abs_logit_diff), so no margin rule can hold")
        return
    need = margin_rule(float(drift))
    v.facts.update(drift=float(drift), required_margin=need)
    if m is not None and not m > need:
        v.fail(
            "margin",
            f"smallest margin {m:.4f} is not above {DRIFT_FACTOR:g} x drift {drift:.3g} + floor "
            f"{MARGIN_FLOOR:g} = {need:.4f}",
        )


def _canon(x) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def _environment(got, want: dict, v: Verdict) -> None:
    if not isinstance(got, dict):
        v.fail("environment", "records no environment (backend, provider, dtype, library, device)")
        return
    differ = [k for k in ENVIRONMENT_FIELDS if _canon(got.get(k)) != _canon(want.get(k))]
    if differ:
        v.fail(
            "environment",
            "was made in another environment: "
            + "; ".join(f"{k} {_canon(got.get(k))} here is {_canon(want.get(k))}" for k in differ),
        )


def rule_json() -> dict:
    """The rule's constants for JavaScript (web/generated/certificate-rule.json)."""
    # lazy: onnx_stepper loads onnxruntime; the rule is read without it
    from ..model.onnx_stepper import BROWSER_CODE, LARGE_MAX_BATCH, LARGE_MODEL_BYTES, META

    vs = shipped_view_set()
    return {
        "format": "sketchpad-certificate-rule/1",
        "statement_type": STATEMENT_TYPE,
        "predicate_type": PREDICATE_TYPE,
        "tool_version": __version__,
        "margin_floor": MARGIN_FLOOR,
        "drift_factor": DRIFT_FACTOR,
        "view_set": {"name": VIEW_SET_NAME, "sha256": vs.sha256, "count": vs.count},
        "environment_fields": list(ENVIRONMENT_FIELDS),
        "browser": {"backend": "browser", "model_json": META, "code": list(BROWSER_CODE)},
        "rows": table_json(),
        # how the page runs its suite (certify/run.py and the ONNX stepper: the same numbers)
        "suite": {
            "chunk_views": SUITE_CHUNK_VIEWS,
            "large_model_bytes": LARGE_MODEL_BYTES,
            "large_max_batch": LARGE_MAX_BATCH,
            "max_shuffled_batch": 512,
        },
    }
