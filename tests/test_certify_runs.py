"""The certifier compares every run, not only the first (certify/run.py; the page's
web/certify/run.js has the same test in web/tests/certify-run.test.mjs).

A model that is wrong only in one batch composition is the case the runs exist for: wrong only
in a batch of 97 views (with `--batch-sizes 1436,97`), or only when it sees one view at a time
(the default suite, whose all-at-once run comes first).  Each fails the suite, the rule refuses
the certificate, and the drift records how far the runs disagree."""

import numpy as np
import pytest

from sketchpad.certify import policy
from sketchpad.certify.run import certify, shuffled
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.loading import load_stepper
from sketchpad.views import load

from model_helpers import one_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")

V = load()


@pytest.fixture(scope="module")
def shipped():
    return load_stepper(DEFAULT_MODEL_DIR, "onnx")


class WrongInOneComposition:
    """The shipped model, except that in a batch of `size` views the view `victim` favours a
    wrong step by 10 logits."""

    def __init__(self, inner, size: int, victim: str):
        self.inner, self.size, self.victim = inner, size, victim
        self.backend, self.steps, self.manifest = inner.backend, inner.steps, inner.manifest
        self.gate_value, self.threads = inner.gate_value, inner.threads

    def logits(self, views):
        out = np.array(self.inner.logits(views))
        if len(views) == self.size:
            for i, v in enumerate(views):
                if v.key() == self.victim:
                    wrong = (int(out[i].argmax()) + 1) % out.shape[1]
                    out[i, wrong] = out[i].max() + 10.0
        return out

    def environment(self):
        return self.inner.environment()


def _refused_for(cert, shipped, victim):
    res = cert["predicate"]["result"]
    assert not res["passed"] and res["failed_views"] == 1
    assert [f["view"] for f in res["failures"]] == [victim]
    verdict = policy.check(cert, policy.expect_from(shipped))
    assert verdict.codes() == ["failed-views"] and victim in verdict.summary()
    return res["failures"][0]


def test_a_model_wrong_at_one_batch_size_only_fails(shipped):
    victim = V[0]["view"].key()  # V in order: the first view is in the first batch of 97
    cert = certify(WrongInOneComposition(shipped, 97, victim), batch_sizes=(len(V), 97))
    failure = _refused_for(cert, shipped, victim)
    assert failure["got"] == V[0]["step"].key()  # the first run (all of V at once) was right
    assert failure["got_by_run"]["batch 97"] != V[0]["step"].key()
    assert cert["predicate"]["drift"]["max_abs_logit_diff"] >= 10.0
    assert not cert["predicate"]["margin_rule"]["holds"]  # a drift of 10 asks for a margin above 21


def test_a_model_wrong_only_one_view_at_a_time_fails_the_default_suite(shipped):
    seed = 20261202
    order, sizes = shuffled(len(V), seed)
    # a victim that the shuffled run presents in a batch of more than one view: only the
    # one-view-per-pass run can see it alone
    alone = {order[sum(sizes[:k])] for k, s in enumerate(sizes) if s == 1}
    at = next(i for i in range(len(V)) if i not in alone)
    victim = V[at]["view"].key()
    cert = certify(WrongInOneComposition(shipped, 1, victim), seed=seed)
    labels = [r["label"] for r in cert["predicate"]["runs"]]
    assert labels[:2] == ["all of V at once", "one view per pass"]
    failure = _refused_for(cert, shipped, victim)
    assert failure["got_by_run"]["one view per pass"] != V[at]["step"].key()


def test_the_shipped_model_passes_every_composition(shipped):
    cert = certify(shipped, seed=20261202)
    assert cert["predicate"]["result"]["passed"] and cert["predicate"]["suite"]["runs"] >= 3
    assert policy.check(cert, policy.expect_from(shipped)).ok
