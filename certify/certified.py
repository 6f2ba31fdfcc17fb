"""The product's only way to get a model stepper: load it, and let it run only under a
certificate that this device's own suite produced and that the rule (policy.py) accepts for
this model, here.

    stepper = load_certified(model_dir, backend, gate)

1. The model is loaded; the loader records every file it read (stepper.manifest) and runs
   what it hashed.
2. Its graph must be row-independent (rows.py: the verifier's own analysis of the loaded
   bytes); otherwise it is refused before it runs a single view.
3. Proof is looked for in this device's cache only (cache.py: entries tagged with this user's
   key).  Certificates shipped in the model's certificates/ folder, on a server or in a
   download are claims: anyone can write one, so they are never proof here.
4. Without proof, the device certifies itself now: all of V in several batch compositions,
   about a second on a CPU.  It says so in one line (with a progress bar on a terminal when it
   takes more than a second) and caches the certificate when it holds.
5. Otherwise the model is refused (Uncertified, exit 1), naming the failing views or the
   rule's reasons.  allow_uncertified=True (--allow-uncertified) is the only way around.

What it returns is a CertifiedStepper: the loaded stepper and the certificate that lets it
run (or, under allow_uncertified, a record saying that none did).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .. import strictjson
from ..errors import SketchpadError
from ..model.loading import load_stepper, resolve_model_dir
from . import cache, policy


@dataclass(frozen=True)
class CertifiedStepper:
    """A model stepper and the certificate that lets it run here.  `certificate` is a summary:
    source ("cached", "self-certified", or "none: ..." under allow_uncertified), and where a
    certificate holds: path, views, min_margin, finished (when it was made) and claims (the
    certificates the model ships, which are never proof here).  Called like the stepper."""

    stepper: object
    certificate: dict

    def __call__(self, views):
        return self.stepper(views)

    @property
    def name(self) -> str:
        return self.stepper.name

    @property
    def backend(self) -> str:
        return self.stepper.backend


class Uncertified(SketchpadError):
    """The model has no certificate that holds here and could not certify itself."""

    exit_code = 1


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def committed(model_dir: Path) -> list[Path]:
    """The certificates a model ships with: claims of the machines that made them."""
    return sorted((Path(model_dir) / "certificates").glob("*.json"))


def find_certificate(expect: policy.Expectation, model_dir: Path | None = None, warn=cache.warn):
    """(certificate, where) from this device's own cache when the rule accepts it, else
    (None, None).  `model_dir` is not searched: what a model ships is a claim, not proof."""
    cert = cache.load(expect, warn=warn)
    if cert is not None and policy.check(cert, expect).ok:
        return cert, str(cache.path_for(expect))
    return None, None


def write(cert: dict, out) -> Path:
    """Write a certificate to `out` (strict JSON: no NaN or Infinity)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(strictjson.dumps(cert, indent=1) + "\n")
    return out


def certify_and_cache(stepper, batch_sizes=None, out=None, warn=cache.warn, resume=None, announce=None):
    """Run the suite on `stepper` here and judge it with the rule; cache the certificate as
    this device's proof when it holds and ran the device's own compositions (not fixed
    `batch_sizes`), and write it to `out` too when asked.  The one way `certify`, `train` and
    a model's first use certify: returns (cert, verdict, paths written).  resume: keep and reuse
    an interrupted suite's chunks (certify/resume.py; default: for a long suite only)."""
    from .run import (  # the runner loads numpy: only when a suite runs (`import sketchpad` stays light)
        certify,
        long_suite,
    )

    expect = policy.expect_from(stepper)
    resume = long_suite(stepper) if resume is None else resume
    seed = None if batch_sizes else cache.suite_seed(warn=warn)
    cert = certify(stepper, batch_sizes=batch_sizes, seed=seed, resume=resume, announce=announce)
    verdict = policy.check(cert, expect)
    where = [write(cert, out)] if out else []
    if verdict.ok and not batch_sizes:
        stored = cache.store(expect, cert, warn=warn)
        where += [stored] if stored else []
    return cert, verdict, where


def self_certify(stepper, expect: policy.Expectation, announce=_stderr, warn=cache.warn):
    """Run the suite here; cache and return (cert, verdict, path or None)."""
    t = time.perf_counter()
    cert, verdict, stored = certify_and_cache(stepper, warn=warn, announce=announce)
    path = stored[0] if stored else None
    seconds = time.perf_counter() - t
    r = cert["predicate"]["result"]
    if announce:
        env = expect.environment or {}
        where = f"{stepper.backend}, {env.get('device', {}).get('name', 'this device')}"
        runs = cert["predicate"]["suite"]["runs"]
        announce(
            f"sketchpad: certified this model on this device ({where}): {r['passed_views']}/{r['views']} "
            f"views in {runs} batch compositions, smallest margin {r['min_margin']:.3f} (rule: > "
            f"{cert['predicate']['margin_rule']['required']:.3f}), {seconds:.2f} s"
            + (f"; cached in {path}" if path else "; the rule does NOT hold" if not verdict.ok else "; not cached")
        )
    return cert, verdict, path


def _refuse_rows(stepper, expect: policy.Expectation, d: Path, allow_uncertified: bool, announce) -> bool:
    """Refuse a graph that is not row-independent (True: run it anyway, allowed)."""
    if expect.rows is None or expect.rows["ok"]:
        return False
    why = f"its graph is not shown to be row-independent: {expect.rows['message']}"
    if not allow_uncertified:
        raise Uncertified(f"the model in {d} is refused before it runs: {why} (--allow-uncertified runs it anyway)")
    if announce:
        announce(f"sketchpad: warning: running the model in {d} although {why} (--allow-uncertified)")
    return True


def load_certified(
    model_dir=None, backend: str | None = None, gate: float = 1.0, allow_uncertified: bool = False, announce=_stderr
) -> CertifiedStepper:
    """The model in `model_dir` (default: the shipped one) and the certificate that lets it run here."""
    d = resolve_model_dir(model_dir)
    stepper = load_stepper(d, backend, gate)
    expect = policy.expect_from(stepper)
    if _refuse_rows(stepper, expect, d, allow_uncertified, announce):
        return CertifiedStepper(stepper, {"source": "none: --allow-uncertified (graph not row-independent)"})
    if allow_uncertified:
        if announce:
            announce(
                f"sketchpad: warning: running the {stepper.backend} model in {d} without a certificate "
                f"(--allow-uncertified): its answers carry no guarantee"
            )
        return CertifiedStepper(stepper, {"source": "none: --allow-uncertified"})
    cert, where = find_certificate(expect)
    source = "cached"
    if cert is None:
        cert, verdict, where = self_certify(stepper, expect, announce)
        where = str(where) if where else None
        source = "self-certified"
        if not verdict.ok:
            fails = cert["predicate"]["result"]["failures"]
            named = "; ".join(
                f"{f['view']} gives {f['got']}, expected {f['expected']} (witness {f['witness']})" for f in fails[:3]
            )
            raise Uncertified(
                f"the model in {d} does not pass certification on this device ({stepper.backend}, "
                f"gate {gate:g}): "
                f"{verdict.summary()}"
                + (f". Failing views: {named}" if named else "")
                + " (--allow-uncertified runs it anyway)"
            )
    r = cert["predicate"]["result"]
    summary = {
        "source": source,
        "path": where,
        "views": r["views"],
        "min_margin": r["min_margin"],
        "finished": cert["predicate"]["time"]["finished"],
        "claims": [str(p) for p in committed(d)],
    }
    return CertifiedStepper(stepper, summary)
