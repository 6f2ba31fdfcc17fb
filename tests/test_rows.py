"""Row independence (sketchpad/certify/rows.py and web/certify/rows.js): the shipped graph and
re-exports of other architectures pass, every hostile or mixing graph of tests/rows_vectors.py
gets the reason it must, the Python and JavaScript checks agree node for node, and what they
accept really is row-independent when ONNX Runtime runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from hostile import KINDS, hostile_graph
from rows_vectors import LENGTH, STEPS, graph, vectors, write

from sketchpad.certify.rows import check_graph
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.onnx_proto import ProtoError, external_files, read_model

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = DEFAULT_MODEL_DIR / "onnx" / "model.onnx"
node_missing = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """A tiny random Qwen3.5 (gated LoRA, random B) and a tiny plain Qwen3 (tied embeddings),
    exported by `sketchpad export`: the check must not be fitted to the one shipped graph."""
    import torch
    from transformers import Qwen3Config

    from sketchpad.cli import main
    from sketchpad.model import backbone
    from sketchpad.model import tokenizer as T
    from sketchpad.model.adapter import ADAPTER_DIR, BASE_DIR, new_adapter
    from sketchpad.model.adapter_config import AdapterConfig

    def qwen3(vocab):
        return Qwen3Config(
            vocab_size=vocab,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            tie_word_embeddings=True,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
        )

    out = {}
    for name, config in (("qwen3.5", backbone.tiny_config), ("qwen3", qwen3)):
        d = tmp_path_factory.mktemp(name.replace(".", ""))
        steps = T.step_vocabulary()
        hf = T.build_char_tokenizer(steps)
        base = backbone.build_base(config(len(hf)), seed=5)
        backbone.save_base(base, hf, d / BASE_DIR)
        model = new_adapter(base, AdapterConfig(rank=4), seed=5)
        with torch.no_grad():
            for pname, p in model.named_parameters():
                if "lora_B" in pname:
                    p.normal_(0, 0.05)
        model.save_pretrained(d / ADAPTER_DIR, safe_serialization=True)
        T.ViewTokenizer.from_hf(hf, steps).save(d)
        assert main(["export", "--model", str(d), "--out", str(d / "onnx")]) == 0
        out[name] = d / "onnx" / "model.onnx"
    return out


@pytest.fixture(scope="module")
def external(tmp_path_factory):
    """The shipped graph re-saved with its weights in an external data file."""
    d = tmp_path_factory.mktemp("external")
    m = onnx.load(SHIPPED)
    onnx.save_model(m, d / "model.onnx", save_as_external_data=True, location="model.onnx.data", size_threshold=256)
    return d / "model.onnx"


# The shipped model's float16 and int8 variants (ONNX Runtime's converter and static quantiser:
# Cast, QuantizeLinear/DequantizeLinear with fixed scales, Gather of int8 rows).
VARIANTS = [SHIPPED.parent.parent / f"onnx-{v}" / "model.onnx" for v in ("float16", "int8")]


def test_the_shipped_graph_and_other_exports_are_row_independent(exports, external):
    for path in [SHIPPED, *exports.values(), external, *VARIANTS]:
        v = check_graph(path.read_bytes(), LENGTH, 170)
        assert v.ok, (path, v.message)
    assert external_files(read_model(external.read_bytes())) == ["model.onnx.data"]


@pytest.mark.parametrize("name,data,code", vectors(), ids=[v[0] for v in vectors()])
def test_each_vector_gets_its_verdict(name, data, code):
    v = check_graph(data, LENGTH, STEPS)
    assert v.code == code, v.message
    if code:  # a refusal names the node and says why in words
        assert v.message and (v.node is not None or code == "rows-format"), v


def test_the_hostile_graphs_are_refused_with_their_cause():
    expect = {"batch-size": ("rows-shape", "Mul"), "batch-content": ("rows-mix", "ReduceMax")}
    expect["random"] = ("rows-random", "RandomUniformLike")
    for kind in KINDS:
        v = check_graph(hostile_graph(kind), LENGTH, 170)
        if kind == "wrong":
            assert v.ok  # row-independent, only wrong: the suite's job
            continue
        code, op = expect[kind]
        assert v.code == code and f"({op})" in v.message, (kind, v.message)


def _duplicate_field(data: bytes) -> bytes:
    """The model with its graph field given twice (protobuf would merge the two)."""
    m = onnx.load_from_string(data)
    extra = onnx.ModelProto()
    extra.graph.CopyFrom(m.graph)
    return data + extra.SerializeToString()


def test_ambiguous_protobuf_is_refused():
    data = graph([onnx.helper.make_node("Identity", ["x"], ["y"])])
    with pytest.raises(ProtoError, match="twice"):
        read_model(_duplicate_field(data))
    v = check_graph(_duplicate_field(data), LENGTH, STEPS)
    assert v.code == "rows-format" and "twice" in v.message
    assert check_graph(data[:-7], LENGTH, STEPS).code == "rows-format"  # truncated


def _cases(tmp_path, exports, external) -> list[dict]:
    cases = [dict(file=v["file"], length=LENGTH, steps=STEPS) for v in write(tmp_path)]
    data = graph([onnx.helper.make_node("Identity", ["x"], ["y"])])
    for name, blob in (("dup.onnx", _duplicate_field(data)), ("cut.onnx", data[:-7])):
        (tmp_path / name).write_bytes(blob)
        cases.append(dict(file=str(tmp_path / name), length=LENGTH, steps=STEPS))
    for kind in KINDS:
        (tmp_path / f"{kind}.onnx").write_bytes(hostile_graph(kind))
        cases.append(dict(file=str(tmp_path / f"{kind}.onnx"), length=LENGTH, steps=170))
    for path in [SHIPPED, *exports.values(), external, *VARIANTS]:
        cases.append(dict(file=str(path), length=LENGTH, steps=170))
    return cases


def _summary(data: bytes) -> dict:
    try:
        m = read_model(data)
    except ProtoError as e:
        return {"error": str(e)}
    g = m["graph"]
    return {
        "ir_version": m["ir_version"],
        "opsets": m["opsets"],
        "functions": m["functions"],
        "external": external_files(m),
        "inputs": g["inputs"],
        "outputs": g["outputs"],
        "initializers": [[t["name"], t["data_type"], t["dims"], t["values"], t["external"]] for t in g["initializers"]],
        "nodes": [
            [n["op"], n["domain"], n["name"], n["inputs"], n["outputs"], {k: a["type"] for k, a in n["attrs"].items()}]
            for n in g["nodes"]
        ],
    }


@node_missing
def test_python_and_the_page_read_and_judge_every_graph_alike(tmp_path, exports, external):
    """Same reader output, same verdict, same message and the same fact for every node."""
    cases = _cases(tmp_path, exports, external)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    r = subprocess.run(
        ["node", str(ROOT / "web" / "tests" / "rows-vectors.mjs"), str(tmp_path / "cases.json")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert len(got) == len(cases) > 60
    for c, js in zip(cases, got):
        data = Path(c["file"]).read_bytes()
        v = check_graph(data, c["length"], c["steps"], trace=True)
        assert js["verdict"] == dict(v.as_dict(), trace=v.trace), c["file"]
        assert js["summary"] == json.loads(json.dumps(_summary(data))), c["file"]


def _session(data: bytes):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])


def _run(sess, ids):
    feeds = {"input_ids": ids}
    if any(i.name == "gate" for i in sess.get_inputs()):
        feeds["gate"] = np.ones(1, np.float32)
    return sess.run(None, feeds)[0]


@pytest.mark.parametrize(
    "name,data", [(n, d) for n, d, c in vectors() if c is None], ids=[n for n, _, c in vectors() if c is None]
)
def test_what_the_check_accepts_is_row_independent_in_onnx_runtime(name, data):
    """Each row's logits are the same whatever the other rows hold and however many there are."""
    sess = _session(data)
    rng = np.random.default_rng(1)
    ids = rng.integers(0, 32, size=(6, LENGTH), dtype=np.int64)
    alone = np.concatenate([_run(sess, ids[i : i + 1]) for i in range(6)])
    together = _run(sess, ids)
    other = ids.copy()
    other[1:] = rng.integers(0, 32, size=(5, LENGTH))
    assert np.allclose(alone, together, atol=1e-5), name
    assert np.array_equal(_run(sess, other)[0], together[0]), name


def test_the_mixing_graphs_really_mix_rows_in_onnx_runtime():
    """The refusals are not for show: these graphs give a row another answer when its batch changes."""
    mixing = {"softmax along the batch", "reduce over the batch", "batch size into data", "cumsum along the batch"}
    for name, data, _code in vectors():
        if name not in mixing:
            continue
        sess = _session(data)
        ids = np.random.default_rng(2).integers(0, 32, size=(4, LENGTH), dtype=np.int64)
        assert not np.allclose(_run(sess, ids)[-1:], _run(sess, ids[-1:]), atol=1e-4), name
