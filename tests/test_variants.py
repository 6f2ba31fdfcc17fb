"""The shipped model's smaller variants (onnx-float16/, onnx-int8/ beside onnx/): what `sketchpad
export --variants-only` makes from the float32 export, byte for byte; each a model of its own
with its own certificate; a variant whose suite fails (int8: quantised activations cost the
shipped model 6 views) keeps its failed certificate and is never used; the server serves and
lists them.  Also the large-model mode of the ONNX stepper (a 0.8B-parameter export), forced
here on the shipped model: batches split, one copy of the weights, files re-read only if unchanged."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from sketchpad import solve
from sketchpad import views as V
from sketchpad.certify import policy
from sketchpad.certify.certified import Uncertified, load_certified
from sketchpad.cli import main
from sketchpad.errors import InputError
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.loading import load_stepper

VARIANTS = {"float16": DEFAULT_MODEL_DIR / "onnx-float16", "int8": DEFAULT_MODEL_DIR / "onnx-int8"}


@pytest.fixture()
def device(tmp_path, monkeypatch):
    monkeypatch.setenv("SKETCHPAD_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_the_shipped_variants_are_what_export_makes_from_the_float32_export(tmp_path, capsys):
    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR / "onnx", d / "onnx")
    assert (
        main(["export", "--out", str(d / "onnx"), "--dtype", "float16", "--quantize", "int8", "--variants-only"]) == 0
    )
    err = capsys.readouterr().err
    assert [line[:5] for line in err.splitlines() if line.startswith("[")] == ["[1/3]", "[2/3]", "[3/3]"]
    meta32 = json.loads((DEFAULT_MODEL_DIR / "onnx" / "model.json").read_text())
    for name, shipped in VARIANTS.items():
        assert (d / f"onnx-{name}" / "model.onnx").read_bytes() == (shipped / "model.onnx").read_bytes()
        meta = json.loads((shipped / "model.json").read_text())
        assert meta["dtype"] == name and meta["variant_of"]["onnx_sha256"] == meta32["onnx_sha256"]
        assert meta["parity"]["views"] == len(V.load())


def test_variants_only_needs_a_float32_export_and_a_variant(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "--quantize", "int8", "--variants-only"]) == 2
    assert "holds no export" in capsys.readouterr().err
    assert main(["export", "--out", str(DEFAULT_MODEL_DIR / "onnx"), "--variants-only"]) == 2
    assert "needs --dtype float16 and/or --quantize int8" in capsys.readouterr().err


def test_the_float16_variant_certifies_itself_and_solves(device):
    st = load_certified(VARIANTS["float16"], announce=None)
    assert st.certificate["source"] == "self-certified" and st.certificate["min_margin"] > 1.0
    shipped = load_stepper(DEFAULT_MODEL_DIR).manifest.files["onnx/model.onnx"]
    assert st.stepper.manifest.files["onnx/model.onnx"] != shipped
    assert solve("98765 * 4321", st).value == 98765 * 4321


def test_the_int8_variant_fails_its_suite_and_is_never_used(device, capsys):
    with pytest.raises(Uncertified, match="does not pass certification on this device .* Failing views: "):
        load_certified(VARIANTS["int8"], announce=None)
    assert main(["solve", "--model", str(VARIANTS["int8"]), "7 + 5"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "Traceback" not in out.err and "does not pass certification" in out.err


@pytest.mark.parametrize("name,passed", [("float16", True), ("int8", False)])
def test_each_variant_keeps_its_own_certificate(name, passed, capsys):
    """Committed: made on the build machine (claims here).  The int8 one is kept although it failed."""
    path = DEFAULT_MODEL_DIR / "certificates" / f"onnx-{name}.json"
    cert = json.loads(path.read_text())
    assert cert["predicate"]["result"]["passed"] is passed
    assert cert["predicate"]["environment"]["dtype"] == "float32"  # ONNX Runtime's inputs and outputs
    names = {s["name"]: s["digest"]["sha256"] for s in cert["subject"]}
    assert names["onnx/model.onnx"] == load_stepper(VARIANTS[name]).manifest.files["onnx/model.onnx"]
    stepper = load_stepper(VARIANTS[name])
    # On every machine: consistent in all but the environment.  On another CPU (CI's may differ
    # from the build machine's kernel flags) the environment check, and only it, must refuse.
    verdict = policy.check(cert, policy.expect_from(stepper, compare_environment=False))
    assert verdict.ok is passed and (passed or "failed-views" in verdict.codes()), verdict.reasons
    env, now = cert["predicate"]["environment"], stepper.environment()
    here = all(env.get(k) == now.get(k) for k in policy.ENVIRONMENT_FIELDS)
    code = main(["certify", "--verify", str(path), "--model", str(VARIANTS[name])])
    out = capsys.readouterr().out
    if passed and here:
        assert code == 0 and out.startswith("claim: consistent"), out
    elif passed:
        assert code == 1 and out.startswith("claim: inconsistent (was made in another environment"), out
    else:
        assert code == 1 and "failed-views" in out, out


def test_the_server_serves_and_lists_the_variants(tmp_path):
    from fastapi.testclient import TestClient

    from sketchpad.server.app import Settings, create_app

    s = Settings(db_path=str(tmp_path / "c.sqlite"), model_dir=DEFAULT_MODEL_DIR, stepper="reference")
    with TestClient(create_app(s)) as client:
        listed = client.get("/api/model").json()["variants"]
        assert [v["name"] for v in listed] == ["float32", "float16", "int8"]
        for v in listed:
            r = client.get(v["url"])
            assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
            assert r.json()["onnx_sha256"] == v["sha256"] and v["bytes"] == r.json()["onnx_bytes"]
        assert client.get("/model-int8/model.onnx").content == (VARIANTS["int8"] / "model.onnx").read_bytes()


# --- the large-model mode (a 0.8B-parameter export), forced on the shipped model ---------------


@pytest.fixture()
def large(tmp_path, monkeypatch, device):
    from test_loading_bytes import resave_external

    from sketchpad.model import onnx_stepper

    d = tmp_path / "big"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("base", "adapter", "certificates", "onnx-*"))
    resave_external(d)
    monkeypatch.setattr(onnx_stepper, "LARGE_MODEL_BYTES", 0)
    monkeypatch.setattr(onnx_stepper, "LARGE_MAX_BATCH", 100)
    return d


def test_a_large_export_keeps_one_copy_splits_batches_and_certifies(large):
    from sketchpad.certify.run import certify

    st = load_stepper(large, "onnx")
    assert st.large and st.max_batch == 100 and st.external is None  # the session holds the weights, not us
    views = [r["view"] for r in V.load()]
    small = load_stepper(DEFAULT_MODEL_DIR, "onnx").logits(views)
    got = st.logits(views)
    assert got.shape == small.shape and np.array_equal(got.argmax(1), small.argmax(1))
    assert np.abs(got - small).max() < 1e-4
    env = st.environment()["threads"]
    assert env["max_batch"] == 100 and env["one_thread_below"] is None
    cert = certify(st, seed=11)
    runs = [r["label"] for r in cert["predicate"]["runs"]]
    assert runs[0] == "all of V in order, batches of 100" and runs[2].endswith("batches of 1-100")
    assert len(runs) == 3 and cert["predicate"]["result"]["passed"]  # one session: no second thread count
    assert policy.check(cert, policy.expect_from(st)).ok


def test_a_large_export_reads_its_data_again_only_if_unchanged(large):
    st = load_stepper(large, "onnx")
    other = st.with_threads(1)  # read and hashed again: the same file
    assert np.array_equal(other.logits([V.load()[0]["view"]]), st.logits([V.load()[0]["view"]]))
    data = bytearray((large / "onnx" / "model.onnx.data").read_bytes())
    data[-5] ^= 0x10
    (large / "onnx" / "model.onnx.data").write_bytes(bytes(data))
    with pytest.raises(InputError, match="changed on disk since it was loaded and hashed"):
        st.with_threads(1)
