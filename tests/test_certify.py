"""The certifier: the shipped model passes; injected faults fail and are named; tampered
files are caught by --verify; restoring passes again."""
import json
import shutil

import numpy as np
import pytest
from safetensors.torch import load_file, save_file

from certify import backends, certify, verify_certificate
from certify.statement import STATEMENT_TYPE
from sketchpad.cli import main
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.tokenizer import ViewTokenizer
from sketchpad.views import file_sha256, load
from model_helpers import one_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")

FAST = (1436, 97)          # two batch sizes; the CLI default adds batch 1, slower for CI


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory):
    d = tmp_path_factory.mktemp("model") / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d)
    return d


@pytest.fixture(scope="module")
def cert(model_copy):
    return certify(model_copy, batch_sizes=FAST)


def test_default_model_passes_every_view(cert):
    assert cert["_type"] == STATEMENT_TYPE
    p = cert["predicate"]
    assert p["result"]["passed"] and p["result"]["failed_views"] == 0
    assert p["view_set"]["count"] == len(load()) == len(p["per_view"])
    assert p["view_set"]["sha256"] == file_sha256()
    assert all(r["pass"] and r["got"] == r["expected"] for r in p["per_view"])
    assert p["result"]["min_margin"] == pytest.approx(min(r["margin"] for r in p["per_view"]), abs=1e-4)
    assert p["result"]["min_margin"] >= 4.0                       # the documented target
    assert p["batch_consistency"]["max_abs_logit_diff"] < 1e-3
    names = {s["name"] for s in cert["subject"]}
    assert {"base/model.safetensors", "adapter/adapter_model.safetensors", "base/tokenizer.json",
            "sketchpad_vocab.json", "sketchpad/data/views.jsonl"} <= names


def test_committed_certificate_verifies():
    rep = verify_certificate(DEFAULT_MODEL_DIR / "certificates" / "torch.json")
    assert rep.ok, rep.problems
    assert rep.checked_files >= 8


def _faulty(view_key, wrong_index):
    """A torch backend that forces one view's step to a wrong step token."""
    torch_be = backends.BACKENDS["torch"]

    class Forced:
        def __init__(self, inner):
            self.inner = inner

        def logits(self, views):
            out = np.array(self.inner.logits(views))
            for i, v in enumerate(views):
                if v.key() == view_key:
                    out[i, wrong_index] = out[i].max() + 10.0
            return out

    return backends.Backend("torch-forced", lambda d, g: Forced(torch_be.open(d, g)), torch_be.describe)


def test_forced_step_fails_naming_the_view(model_copy):
    entries = load()
    victim = entries[500]
    vt = ViewTokenizer.load(model_copy)
    wrong = next(i for i, s in enumerate(vt.steps) if s != victim["step"])
    backends.register(_faulty(victim["view"].key(), wrong))
    try:
        res = certify(model_copy, backend="torch-forced", batch_sizes=FAST)["predicate"]["result"]
    finally:
        del backends.BACKENDS["torch-forced"]
    assert not res["passed"]
    assert [f["view"] for f in res["failures"]] == [victim["view"].key()]
    assert res["failures"][0]["got"] == vt.steps[wrong].key()
    assert res["failures"][0]["witness"] == victim["witness"]


def test_perturbed_adapter_fails_then_restored_passes(model_copy, capsys):
    path = model_copy / "adapter" / "adapter_model.safetensors"
    original = path.read_bytes()
    weights = load_file(path)
    key = next(k for k in weights if "lm_head" in k and "lora_B" in k)
    weights[key] = weights[key].flip(0).contiguous()                 # scramble the step directions
    save_file(weights, path)
    try:
        code = main(["certify", "--model", str(model_copy), "--batch-sizes", "1436,97",
                     "--out", str(model_copy / "bad.json")])
        out = capsys.readouterr().out
        assert code == 1
        bad = json.loads((model_copy / "bad.json").read_text())["predicate"]["result"]
        assert bad["failed_views"] > 0
        first = bad["failures"][0]["view"]
        assert f"FAIL  {first}" in out                                # the failing view is named
    finally:
        path.write_bytes(original)
    code = main(["certify", "--model", str(model_copy), "--batch-sizes", "1436,97",
                 "--out", str(model_copy / "good.json")])
    assert code == 0


def test_verify_catches_a_tampered_weight_file(model_copy, capsys):
    cert = model_copy / "certificates" / "torch.json"
    assert main(["certify", "--verify", str(cert)]) == 0
    path = model_copy / "base" / "model.safetensors"
    original = path.read_bytes()
    tampered = bytearray(original)
    tampered[-3] ^= 0x01                                              # one bit of one weight
    path.write_bytes(bytes(tampered))
    try:
        capsys.readouterr()
        assert main(["certify", "--verify", str(cert)]) == 1
        out = capsys.readouterr().out
        assert "base/model.safetensors" in out and "FAILED" in out
    finally:
        path.write_bytes(original)
    assert main(["certify", "--verify", str(cert)]) == 0


def test_verify_rejects_a_non_certificate(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"_type": "something else"}))
    assert not verify_certificate(p).ok
    assert main(["certify", "--verify", str(tmp_path / "missing.json")]) == 2


def test_unknown_backend_is_a_user_error(model_copy):
    assert main(["certify", "--model", str(model_copy), "--backend", "abacus"]) == 2
