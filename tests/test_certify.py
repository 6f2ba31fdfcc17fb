"""The certification suite and `sketchpad certify`: the shipped model passes every view on both
backends; an injected fault fails and is named with its witness; a scrambled adapter fails the
CLI and restoring it passes; --verify catches a one-bit change in a weight file."""

import json
import shutil

import numpy as np
import pytest
from safetensors.torch import load_file, save_file

from sketchpad.certify import policy
from sketchpad.certify.run import certify
from sketchpad.certify.statement import STATEMENT_TYPE
from sketchpad.cli import main
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.loading import load_stepper
from sketchpad.views import file_sha256, load

from model_helpers import one_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")

FAST = (1436, 97)  # two batch sizes; the CLI default adds batch 1, slower for CI


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory):
    d = tmp_path_factory.mktemp("model") / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d)
    return d


@pytest.fixture(scope="module", params=["torch", "onnx"])
def loaded(request, model_copy):
    return load_stepper(model_copy, request.param)


@pytest.fixture(scope="module")
def cert(loaded):
    return certify(loaded, batch_sizes=FAST)


def test_default_model_passes_every_view_under_the_rule(loaded, cert):
    assert cert["_type"] == STATEMENT_TYPE
    p = cert["predicate"]
    assert p["result"]["passed"] and p["result"]["failed_views"] == 0
    assert p["view_set"]["count"] == len(load()) == len(p["per_view"])
    assert p["view_set"]["sha256"] == file_sha256()
    assert all(r["pass"] and r["got"] == r["expected"] for r in p["per_view"])
    assert p["result"]["min_margin"] == pytest.approx(min(r["margin"] for r in p["per_view"]), abs=1e-4)
    assert p["result"]["min_margin"] >= 4.0  # the documented target
    assert 0 <= p["drift"]["max_abs_logit_diff"] < 1e-3
    assert p["margin_rule"]["holds"] and p["margin_rule"]["required"] >= policy.MARGIN_FLOOR
    assert p["environment"]["backend"] == loaded.backend and p["environment"]["device"]["name"]
    names = {s["name"] for s in cert["subject"]}
    assert set(loaded.manifest.files) | {"sketchpad/data/views.jsonl"} == names
    assert policy.check(cert, policy.expect_from(loaded)).ok


def test_subjects_are_what_each_loader_loaded(model_copy):
    torch_files = set(load_stepper(model_copy, "torch").manifest.files)
    onnx_files = set(load_stepper(model_copy, "onnx").manifest.files)
    assert {
        "base/config.json",
        "base/model.safetensors",
        "adapter/adapter_config.json",
        "adapter/adapter_model.safetensors",
        "sketchpad_vocab.json",
        "sketchpad/model/torch_stepper.py",
        "sketchpad/model/gate.py",
    } <= torch_files
    assert "base/tokenizer.json" not in torch_files  # never read to make a step
    assert {"onnx/model.json", "onnx/model.onnx", "sketchpad/model/onnx_stepper.py"} <= onnx_files
    assert not any(n.startswith(("base/", "adapter/")) for n in onnx_files)


def test_loaders_read_nothing_outside_their_manifest(model_copy, monkeypatch):
    """Every file a loader opens from Python under the model directory is in its manifest
    (safetensors opens its files natively, and those are named by construction)."""
    import builtins
    import io
    from pathlib import Path

    opened = []
    real_open = io.open

    def spy(file, *a, **k):
        opened.append(file)
        return real_open(file, *a, **k)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    root = model_copy.resolve()
    for backend in ("torch", "onnx"):
        opened.clear()
        st = load_stepper(model_copy, backend)
        under = {
            Path(f).resolve().relative_to(root).as_posix()
            for f in opened
            if isinstance(f, (str, Path)) and Path(f).resolve().is_relative_to(root)
        }
        assert under, backend
        assert under <= set(st.manifest.files), (backend, under - set(st.manifest.files))


def _forced(inner, view_key, wrong_index):
    """The loaded model, except that one view's logits favour a wrong step."""

    class Forced:
        backend, steps, manifest, gate_value = inner.backend, inner.steps, inner.manifest, inner.gate_value

        def logits(self, views):
            out = np.array(inner.logits(views))
            for i, v in enumerate(views):
                if v.key() == view_key:
                    out[i, wrong_index] = out[i].max() + 10.0
            return out

        def environment(self):
            return inner.environment()

    return Forced()


def test_forced_step_fails_naming_the_view(model_copy):
    inner = load_stepper(model_copy, "onnx")
    victim = load()[500]
    wrong = next(i for i, s in enumerate(inner.steps) if s != victim["step"])
    stmt = certify(_forced(inner, victim["view"].key(), wrong), batch_sizes=FAST)
    res = stmt["predicate"]["result"]
    assert not res["passed"]
    assert [f["view"] for f in res["failures"]] == [victim["view"].key()]
    assert res["failures"][0]["got"] == inner.steps[wrong].key()
    assert res["failures"][0]["witness"] == victim["witness"]
    verdict = policy.check(stmt, policy.expect_from(inner))
    assert verdict.codes() == ["failed-views"] and victim["view"].key() in verdict.summary()


def test_perturbed_adapter_fails_then_restored_passes(model_copy, capsys):
    path = model_copy / "adapter" / "adapter_model.safetensors"
    original = path.read_bytes()
    weights = load_file(path)
    key = next(k for k in weights if "lm_head" in k and "lora_B" in k)
    weights[key] = weights[key].flip(0).contiguous()  # scramble the step directions
    save_file(weights, path)
    try:
        code = main(
            [
                "certify",
                "--model",
                str(model_copy),
                "--backend",
                "torch",
                "--batch-sizes",
                "1436,97",
                "--out",
                str(model_copy / "bad.json"),
            ]
        )
        out = capsys.readouterr().out
        assert code == 1
        bad = json.loads((model_copy / "bad.json").read_text())["predicate"]["result"]
        assert bad["failed_views"] > 0
        first = bad["failures"][0]["view"]
        assert f"FAIL  {first}" in out  # the failing view is named
    finally:
        path.write_bytes(original)
    code = main(
        [
            "certify",
            "--model",
            str(model_copy),
            "--backend",
            "torch",
            "--batch-sizes",
            "1436,97",
            "--out",
            str(model_copy / "good.json"),
        ]
    )
    assert code == 0


def test_verify_catches_a_tampered_weight_file(model_copy, capsys):
    cert = model_copy / "fresh-torch.json"
    assert (
        main(
            [
                "certify",
                "--model",
                str(model_copy),
                "--backend",
                "torch",
                "--batch-sizes",
                "1436,97",
                "--out",
                str(cert),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["certify", "--verify", str(cert), "--model", str(model_copy)]) == 0
    assert capsys.readouterr().out.startswith("claim: consistent (")  # a file is a claim, never proof
    path = model_copy / "base" / "model.safetensors"
    original = path.read_bytes()
    tampered = bytearray(original)
    tampered[-3] ^= 0x01  # one bit of one weight
    path.write_bytes(bytes(tampered))
    try:
        capsys.readouterr()
        assert main(["certify", "--verify", str(cert), "--model", str(model_copy)]) == 1
        out = capsys.readouterr().out
        assert "base/model.safetensors" in out and "claim: inconsistent" in out and "[subject-digest]" in out
    finally:
        path.write_bytes(original)
    capsys.readouterr()
    assert main(["certify", "--verify", str(cert), "--model", str(model_copy), "--rerun"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("claim: consistent") and "proof: this device ran the suite" in out and "the rule holds" in out


def test_verify_rejects_a_non_certificate(tmp_path, capsys):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"_type": "something else"}))
    assert main(["certify", "--verify", str(p)]) == 1
    assert "[format]" in capsys.readouterr().out
    assert main(["certify", "--verify", str(tmp_path / "missing.json")]) == 2
    p.write_text('{"_type": NaN}')
    assert main(["certify", "--verify", str(p)]) == 2


def test_unknown_backend_is_a_user_error(model_copy):
    with pytest.raises(SystemExit) as e:
        main(["certify", "--model", str(model_copy), "--backend", "abacus"])
    assert e.value.code == 2
