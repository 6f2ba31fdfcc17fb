"""One certificate rule, three places: the Python rule (sketchpad/certify/policy.py), the
server's upload check, and the page's rule (web/certify/policy.js, run by Node on the same
JSON).  Every tampering of the matrix (tests/policy_matrix.py) is refused with a reason that
names it; the untampered certificate passes.  And the rule on real files: swapping two step
tokens in a copy's vocabulary, or editing its model.json, is caught by the loader's digests."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
from fastapi.testclient import TestClient

from sketchpad import views
from sketchpad.certify import policy
from sketchpad.certify.run import certify
from sketchpad.certify.verify import browser_expectation
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.loading import load_stepper
from sketchpad.server import Settings, create_app

from model_helpers import one_thread  # noqa: F401
from policy_matrix import cases, edited_copies, honest_certificate, hostile_copy

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory):
    d = tmp_path_factory.mktemp("model") / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d)
    return d


@pytest.fixture(scope="module")
def matrix(model_copy, tmp_path_factory):
    cert, expect = honest_certificate(model_copy)
    return cases(
        cert,
        expect,
        edited_copies(model_copy, tmp_path_factory.mktemp("edited")),
        hostile_copy(tmp_path_factory.mktemp("h")),
    )


def _expect(e: dict) -> policy.Expectation:
    return policy.Expectation(e["backend"], e["files"], e["gate"], e["environment"], e.get("rows"))


@pytest.fixture(scope="module")
def committed_matrix():
    """The same tampering, of the shipped browser certificate (sketchpad/data/default_model/
    certificates/browser.json: a claim, but a real one) checked against what a page would load
    on the device that made it: no suite runs, so the mutation harness's rule mutants
    (mutation/mutants.toml) die in seconds."""
    cert = json.loads((DEFAULT_MODEL_DIR / "certificates" / "browser.json").read_text())
    ex = browser_expectation(DEFAULT_MODEL_DIR, 1.0)
    env = cert["predicate"]["environment"]
    return cases(cert, {"backend": "browser", "files": ex.files, "gate": 1.0, "environment": env, "rows": ex.rows}, {})


def test_committed_matrix_on_the_python_rule(committed_matrix):
    test_matrix_on_the_python_rule(committed_matrix)


def test_committed_matrix_on_the_page_rule(committed_matrix, tmp_path):
    test_matrix_on_the_page_rule(committed_matrix, tmp_path)


def test_matrix_on_the_python_rule(matrix):
    assert len(matrix) >= 20
    for c in matrix:
        verdict = policy.check(c["cert"], _expect(c["expect"]))
        assert sorted(set(verdict.codes())) == sorted(c["codes"]), (c["name"], verdict.reasons)
        assert verdict.ok is (not c["codes"]), c["name"]  # the decision itself, not only its reasons
        for code, message in verdict.reasons:  # each reason says what is wrong, in words
            assert len(message) > 20, (c["name"], code, message)


def _no_nan(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None  # JSON has no NaN: both rules refuse null alike
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    return x


def test_matrix_on_the_page_rule(matrix, tmp_path):
    rows = [{"view": list(r["view"]), "step": list(r["step"]), "witness": r["witness"]} for r in views.load()]
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(_no_nan({"rows": rows, "cases": matrix})))
    out = subprocess.run(
        ["node", str(ROOT / "web" / "tests" / "policy-matrix.mjs"), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    for c in matrix:
        assert sorted(set(got[c["name"]])) == sorted(c["codes"]), (c["name"], got[c["name"]])


def test_matrix_on_the_server_upload(matrix, model_copy, tmp_path):
    """The server re-checks every upload with the rule for what the page loads from it; what
    only the sending device can know (its environment, its gate) it records as that device's
    claim.  A certificate for an edited model is refused by a server serving the edited model."""
    apps = {}

    def client_for(c):
        d = c["model_dir"] or str(model_copy)
        if d not in apps:
            apps[d] = TestClient(
                create_app(Settings(db_path=str(tmp_path / f"{len(apps)}.sqlite"), model_dir=d, stepper="reference")),
                base_url="http://127.0.0.1",
            )
        return apps[d]

    for c in matrix:
        r = client_for(c).post(
            "/api/certificates", content=json.dumps(c["cert"]), headers={"Content-Type": "application/json"}
        )
        if not c["codes"] or not c["server"]:  # recorded (200: the same certificate was recorded before)
            assert r.status_code == 201 or (r.status_code == 200 and r.json()["duplicate"]), (c["name"], r.text)
        else:
            assert 400 <= r.status_code < 500, (c["name"], r.status_code, r.text)
    for client in apps.values():  # the registry stays readable
        assert client.get("/api/certificates").status_code == 200


@pytest.mark.usefixtures("one_thread")
def test_swapped_step_tokens_in_the_vocabulary_are_caught(model_copy, tmp_path):
    """The torch loader hashes the vocabulary it reads: a certificate made before two step
    tokens were swapped no longer holds, and the swapped model gives a wrong answer."""
    st = load_stepper(model_copy, "torch")
    cert = certify(st, batch_sizes=(1436, 97))
    assert policy.check(cert, policy.expect_from(st)).ok
    d = tmp_path / "swapped"
    shutil.copytree(model_copy, d, ignore=shutil.ignore_patterns("onnx", "certificates"))
    vocab = json.loads((d / "sketchpad_vocab.json").read_text())
    ids = vocab["token_ids"]
    a, b = "<s:3_:ADD>", "<s:4_:ADD>"
    ids[a], ids[b] = ids[b], ids[a]
    (d / "sketchpad_vocab.json").write_text(json.dumps(vocab, indent=1, sort_keys=True) + "\n")
    swapped = load_stepper(d, "torch")
    verdict = policy.check(cert, policy.expect_from(swapped))
    assert verdict.codes() == ["subject-digest"] and "sketchpad_vocab.json" in verdict.summary()
    from sketchpad import solve

    assert solve("1 + 2", swapped).value != 3  # the swap changes answers


def test_rule_json_is_the_rule_python_applies():
    # Its freshness is tests/test_derived.py's; here, what the page reads is Python's rule.
    rule = json.loads((ROOT / "web" / "generated" / "certificate-rule.json").read_text())
    assert rule == json.loads(json.dumps(policy.rule_json()))
    assert rule["view_set"]["count"] == len(views.load()) and rule["margin_floor"] == policy.MARGIN_FLOOR
