"""ONNX export: parity with PyTorch on every view, the gate as a graph input (gate 0 = the
exported base model, array-equal), the ONNX stepper, and ONNX certification of the shipped
model (a perturbed ONNX file must fail it).

The export path is tested on a tiny random-initialised gated Qwen3.5 model saved in the same
layout as a real one (base/, adapter/, sketchpad_vocab.json) and loaded by the same code.
Its LoRA B matrices are randomised so that gate 1 differs from gate 0.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from sketchpad import views as V
from sketchpad.cli import main


def build_tiny_model(model_dir):
    from sketchpad.model import backbone
    from sketchpad.model import tokenizer as T
    from sketchpad.model.adapter import ADAPTER_DIR, BASE_DIR, new_adapter
    from sketchpad.model.adapter_config import AdapterConfig

    steps = T.step_vocabulary()
    hf = T.build_char_tokenizer(steps)
    base = backbone.build_base(backbone.tiny_config(len(hf)), seed=3)
    backbone.save_base(base, hf, model_dir / BASE_DIR)
    model = new_adapter(base, AdapterConfig(rank=4), seed=3)
    g = torch.Generator().manual_seed(4)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 0.05)
    model.save_pretrained(model_dir / ADAPTER_DIR, safe_serialization=True)
    T.ViewTokenizer.from_hf(hf, steps).save(model_dir)
    return model_dir


EXPORT_LOG: list[str] = []  # what the export printed on stderr (the module fixture's run)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    import contextlib
    import io

    model_dir = build_tiny_model(tmp_path_factory.mktemp("tiny"))
    out = model_dir / "onnx"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        args = ["export", "--model", str(model_dir), "--out", str(out), "--base", "--dtype", "float16"]
        assert main([*args, "--quantize", "int8"]) == 0
    EXPORT_LOG[:] = err.getvalue().splitlines()
    return model_dir, out


def test_export_says_each_stage_with_its_time_and_memory(exported):
    """A full-size export runs for minutes: one line per stage, with the memory it has needed."""
    stages = [line for line in EXPORT_LOG if line.startswith("[")]
    assert [line.split("]")[0] + "]" for line in stages] == [f"[{k}/8]" for k in range(1, 9)], EXPORT_LOG
    assert all(" s, RSS " in line and "GB (peak " in line for line in stages)
    assert any("free PyTorch" in line for line in stages)  # before ONNX Runtime loads the graph
    assert any(line.startswith("parity on 1436 views") for line in EXPORT_LOG)


def test_export_writes_the_variants_beside_it(exported):
    from sketchpad.certify.rows import check_export

    model_dir, out = exported
    meta32 = json.loads((out / "model.json").read_text())
    for name, dtype in (("float16", "float16"), ("int8", "int8")):
        d = model_dir / f"onnx-{name}"
        meta = json.loads((d / "model.json").read_text())
        assert meta["dtype"] == dtype and meta["variant_of"]["onnx_sha256"] == meta32["onnx_sha256"]
        assert meta["encoding"] == meta32["encoding"] and meta["steps"] == meta32["steps"]
        assert meta["parity"]["views"] == 1436 and "onnxruntime" in meta["conversion"]["tool"]
        assert check_export((d / "model.onnx").read_bytes(), meta).ok  # the verifier's own check passes
        assert (d / "model.onnx").stat().st_size < (out / "model.onnx").stat().st_size


def test_a_random_weight_model_ends_with_a_clear_failed_verdict(exported, capsys, tmp_path, monkeypatch):
    """The tiny model's weights are random: certification must say FAILED and name the first
    failing views (not all of them, not a traceback), exit 1, and cache nothing."""
    monkeypatch.setenv("SKETCHPAD_CACHE_DIR", str(tmp_path / "cache"))
    model_dir, _ = exported
    assert main(["certify", "--model", str(model_dir), "--out", str(tmp_path / "c.json")]) == 1
    out = capsys.readouterr()
    lines = out.out.strip().splitlines()
    fails = [line for line in lines if line.startswith("FAIL  ") and "..." not in line]
    cert = json.loads((tmp_path / "c.json").read_text())["predicate"]
    assert cert["result"]["failed_views"] > 10 and len(fails) == 10
    assert fails[0].startswith(f"FAIL  {cert['result']['failures'][0]['view']} ")
    assert f"and {cert['result']['failed_views'] - 10:,} more failing views" in out.out
    failed, views = cert["result"]["failed_views"], cert["result"]["views"]
    headline = f"FAILED: {failed} of {views} views fail ({views - failed} pass), smallest margin "
    assert lines[-1].startswith(headline) and "Traceback" not in out.out + out.err
    assert not list((tmp_path / "cache").glob("onnx-*.json"))


def view_list():
    return [r["view"] for r in V.load()]


def test_parity_on_every_view(exported):
    _, out = exported
    rep = json.loads((out / "parity.json").read_text())
    assert rep["views"] == len(V.load())
    assert rep["identical_steps"] == rep["views"] and rep["mismatches"] == []
    assert rep["max_abs_logit_diff"] < 1e-5 * max(1.0, rep["max_abs_logit"])  # float32 rounding only
    meta = json.loads((out / "model.json").read_text())
    assert meta["parity"]["max_abs_logit_diff"] == rep["max_abs_logit_diff"]
    assert meta["views_sha256"] == V.file_sha256()


def test_gate_is_a_graph_input_and_gate0_is_the_base_exactly(exported):
    from sketchpad.export.parity import ort_session, run_onnx

    _, out = exported
    sess = ort_session(out / "model.onnx")
    assert [i.name for i in sess.get_inputs()] == ["input_ids", "gate"]
    from sketchpad.model.onnx_stepper import OnnxStepper

    ids = OnnxStepper(out).encode(view_list())
    base = run_onnx(ort_session(out / "base.onnx"), ids, None)
    g0 = run_onnx(sess, ids, 0.0)
    g1 = run_onnx(sess, ids, 1.0)
    assert np.array_equal(g0, base)  # bit for bit, not close
    assert np.abs(g1 - base).max() > 1e-2  # the adapter does something at gate 1


def test_onnx_stepper_matches_torch(exported):
    from sketchpad.export.source import load
    from sketchpad.model.onnx_stepper import OnnxStepper

    model_dir, _ = exported
    vs = view_list()
    h = load(model_dir)
    for gate in (1.0, 0.0, 0.5):
        st = OnnxStepper(model_dir, gate=gate)
        ort_logits, torch_logits = st.logits(vs), h.torch_logits(vs, gate)
        assert ort_logits.shape == (len(vs), len(h.steps))
        assert np.abs(ort_logits - torch_logits).max() < 1e-4
        assert st(vs) == [h.steps[k] for k in torch_logits.argmax(1)]


def test_onnx_stepper_batches_of_any_size(exported):
    from sketchpad.model.onnx_stepper import OnnxStepper

    st = OnnxStepper(exported[0])
    vs = view_list()
    whole = st.logits(vs)
    for n in (1, 2, 7):
        assert np.allclose(st.logits(vs[:n]), whole[:n], atol=1e-5)
    assert st([]) == [] and st.logits([]).shape == (0, len(st.steps))


def test_token_table_equals_the_tokenizer(exported):
    from sketchpad.export.encoding import apply
    from sketchpad.model.tokenizer import ViewTokenizer

    model_dir, out = exported
    table = json.loads((out / "model.json").read_text())["encoding"]
    tok = ViewTokenizer.load(model_dir)
    vs = view_list()
    assert [apply(table, v) for v in vs] == tok.encode(vs).tolist()


def test_export_refuses_a_non_model_directory(tmp_path, capsys):
    assert main(["export", "--model", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "not a model directory" in capsys.readouterr().err


# --- the shipped model: ONNX certification, and a perturbed graph must fail ------------------

FAST = None  # the certifier's default batch sizes: all of V at once, and one view at a time


@pytest.fixture(scope="module")
def shipped_copy(tmp_path_factory):
    import shutil

    from sketchpad.model import DEFAULT_MODEL_DIR

    d = tmp_path_factory.mktemp("shipped") / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d)
    return d


def test_shipped_onnx_export_is_certified(shipped_copy):
    from sketchpad.certify import policy
    from sketchpad.certify.run import certify
    from sketchpad.model.manifest import sha256_file
    from sketchpad.model.onnx_stepper import OnnxStepper

    st = OnnxStepper(shipped_copy)
    stmt = certify(st, batch_sizes=FAST)
    assert policy.check(stmt, policy.expect_from(st)).ok
    p = stmt["predicate"]
    assert p["result"]["passed"] and p["result"]["passed_views"] == len(V.load())
    assert p["backend"]["name"] == "onnx" and p["environment"]["execution_provider"] == "CPUExecutionProvider"
    runs = p["runs"]  # all of V, one view per pass, shuffled 1-512, shuffled on another thread count
    assert [r["shuffled"] for r in runs] == [False, False, True, True] and p["suite"]["seed"] is not None
    assert runs[0]["batch_sizes"] == [1436, 1436] and runs[1]["batch_sizes"] == [1, 1]
    assert 1 <= runs[2]["batch_sizes"][0] <= runs[2]["batch_sizes"][1] <= 512 and runs[2]["batches"] > 2
    assert runs[3]["label"].endswith("1 thread(s)")
    names = {s["name"]: s["digest"]["sha256"] for s in stmt["subject"]}
    assert names["onnx/model.onnx"] == sha256_file(shipped_copy / "onnx" / "model.onnx")
    assert "onnx/model.json" in names and "sketchpad/model/onnx_stepper.py" in names
    meta = json.loads((shipped_copy / "onnx" / "model.json").read_text())
    assert meta["parity"]["passed"] and meta["views_sha256"] == V.file_sha256()


def test_perturbed_onnx_file_fails_certification(shipped_copy):
    import onnx
    from onnx import numpy_helper

    from sketchpad.certify import policy
    from sketchpad.certify.run import certify
    from sketchpad.model.onnx_stepper import OnnxStepper

    honest = OnnxStepper(shipped_copy)
    cert = certify(honest, batch_sizes=(len(V.load()),))
    path = shipped_copy / "onnx" / "model.onnx"
    m = onnx.load(str(path))
    emb = next(i for i in m.graph.initializer if i.name.endswith("embed_tokens.weight"))
    w = numpy_helper.to_array(emb)
    noise = np.random.default_rng(0).normal(0, 0.5 * float(w.std()), w.shape).astype(w.dtype)
    emb.CopyFrom(numpy_helper.from_array(w + noise, emb.name))
    onnx.save(m, str(path))
    # The certificate no longer holds for the file the loader now reads ...
    perturbed = OnnxStepper(shipped_copy)
    verdict = policy.check(cert, policy.expect_from(perturbed))
    assert verdict.codes() == ["subject-digest"] and "onnx/model.onnx" in verdict.summary()
    # ... and certifying the perturbed graph afresh finds the views it now gets wrong.
    p = certify(perturbed, batch_sizes=(len(V.load()),))["predicate"]
    assert not p["result"]["passed"] and p["result"]["failed_views"] > 0
    assert all(not f["pass"] for f in p["result"]["failures"])


def test_onnx_stepper_matches_the_torch_stepper():
    """The shipped model: OnnxStepper.logits equals TorchStepper.logits up to float32 rounding,
    and every view of V (and a solve) gets the same step from both."""
    from sketchpad.model import DEFAULT_MODEL_DIR
    from sketchpad.model.onnx_stepper import OnnxStepper
    from sketchpad.model.torch_stepper import load as load_torch
    from sketchpad.solve import solve

    vs = view_list()
    onnx_st, torch_st = OnnxStepper(DEFAULT_MODEL_DIR), load_torch(DEFAULT_MODEL_DIR)
    a, b = onnx_st.logits(vs), torch_st.logits(vs)
    assert a.shape == b.shape == (len(vs), len(onnx_st.steps))
    assert onnx_st.steps == list(torch_st.vocab.steps)
    assert np.abs(a - b).max() < 1e-5 * np.abs(b).max()
    assert onnx_st(vs) == torch_st(vs)
    expr = "123456789 * -987654321 + gcd(84, 36) - 10 // 3"
    assert solve(expr, onnx_st).value == solve(expr, torch_st).value == 123456789 * -987654321 + 12 - 3
