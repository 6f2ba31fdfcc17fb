"""The product's only way to get a model stepper: load it, and let it run only under a
certificate that the rule (policy.py) accepts for this model, here.

    stepper = load_certified(model_dir, backend, gate)

1. The model is loaded; the loader records every file it read (stepper.manifest).
2. A certificate is looked for among the model's committed certificates (they hold on the
   machine that made them) and this device's cache (cache.py).  Each is checked by the rule.
3. If none holds, the device certifies itself now: all of V, about a second on a CPU.  It says
   so in one line (views, smallest margin, time) and caches the certificate when it holds.
4. Otherwise the model is refused (Uncertified, exit 1), naming the failing views or the
   rule's reasons.  allow_uncertified=True (--allow-uncertified) is the only way around.

`stepper.certificate` then says which certificate let it run (or that none did).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import strictjson
from ..errors import SketchpadError
from ..model.loading import load_stepper, resolve_model_dir
from . import cache, policy


class Uncertified(SketchpadError):
    """The model has no certificate that holds here and could not certify itself."""

    exit_code = 1


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def committed(model_dir: Path) -> list[Path]:
    return sorted((Path(model_dir) / "certificates").glob("*.json"))


def find_certificate(expect: policy.Expectation, model_dir: Path):
    """(certificate, where) for the first candidate the rule accepts, else (None, None)."""
    for path in committed(model_dir):
        try:
            cert = strictjson.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if policy.check(cert, expect).ok:
            return cert, str(path)
    cert = cache.load(expect)
    if cert is not None and policy.check(cert, expect).ok:
        return cert, str(cache.path_for(expect))
    return None, None


def self_certify(stepper, expect: policy.Expectation, announce=_stderr):
    """Run the suite here; cache and return (cert, verdict, path or None)."""
    from .run import certify

    t = time.perf_counter()
    cert = certify(stepper)
    verdict = policy.check(cert, expect)
    seconds = time.perf_counter() - t
    r = cert["predicate"]["result"]
    path = cache.store(expect, cert) if verdict.ok else None
    if announce:
        env = expect.environment or {}
        where = f"{stepper.backend}, {env.get('device', {}).get('name', 'this device')}"
        announce(
            f"sketchpad: certified this model on this device ({where}): {r['passed_views']}/{r['views']} "
            f"views, smallest margin {r['min_margin']:.3f} (rule: > "
            f"{cert['predicate']['margin_rule']['required']:.3f}), {seconds:.2f} s"
            + (f"; cached in {path}" if path else "; the rule does NOT hold")
        )
    return cert, verdict, path


def load_certified(
    model_dir=None, backend: str | None = None, gate: float = 1.0, allow_uncertified: bool = False, announce=_stderr
):
    d = resolve_model_dir(model_dir)
    stepper = load_stepper(d, backend, gate)
    if allow_uncertified:
        stepper.certificate = {"source": "none: --allow-uncertified"}
        if announce:
            announce(
                f"sketchpad: warning: running the {stepper.backend} model in {d} without a certificate "
                f"(--allow-uncertified): its answers carry no guarantee"
            )
        return stepper
    expect = policy.expect_from(stepper)
    cert, where = find_certificate(expect, d)
    source = "found"
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
    stepper.certificate = {
        "source": source,
        "path": where,
        "views": r["views"],
        "min_margin": r["min_margin"],
        "finished": cert["predicate"]["time"]["finished"],
    }
    return stepper
