"""The bytes hashed are the bytes run, on every backend: torch builds the model from the bytes its
manifest hashed (bit-identical to transformers' and peft's own loading from the files), ONNX
Runtime takes external data from the hashed bytes too (a model re-saved with its weights in
model.onnx.data certifies, solves and names that file), a graph whose external data lies
outside its directory is refused, a data file that is not the one model.json names (tampered,
truncated) is refused in one line, and the page does all of this the same way (certifies,
solves, refuses).  Also: the environment names the device by what its kernels depend on."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys

import numpy as np
import onnx
import pytest
import torch

from sketchpad import solve
from sketchpad import views as V
from sketchpad.certify import policy
from sketchpad.certify.certified import load_certified
from sketchpad.cli import main
from sketchpad.errors import InputError
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.loading import load_stepper


def test_torch_builds_the_model_from_the_hashed_bytes_bit_for_bit():
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from sketchpad.model.adapter import load_adapted
    from sketchpad.model.backbone import forward_logits
    from sketchpad.model.manifest import Manifest

    m = Manifest(DEFAULT_MODEL_DIR)
    model, vocab, _ = load_adapted(DEFAULT_MODEL_DIR, 1.0, m)
    base = AutoModelForCausalLM.from_pretrained(DEFAULT_MODEL_DIR / "base", dtype=torch.float32, use_safetensors=True)
    ref = PeftModel.from_pretrained(base.eval(), DEFAULT_MODEL_DIR / "adapter", is_trainable=False).eval()
    a, b = model.state_dict(), ref.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    ids = vocab.encode([r["view"] for r in V.load()][:300])
    with torch.no_grad():
        assert torch.equal(forward_logits(model, ids), forward_logits(ref, ids))
    assert set(m.files) == {
        "sketchpad_vocab.json",
        "base/config.json",
        "base/model.safetensors",
        "adapter/adapter_config.json",
        "adapter/adapter_model.safetensors",
    }
    for name, digest in m.files.items():
        assert hashlib.sha256((DEFAULT_MODEL_DIR / name).read_bytes()).hexdigest() == digest


def resave_external(d):
    """Re-save d/onnx/model.onnx with its weights in model.onnx.data, and model.json naming both
    (as `sketchpad export` writes a large model)."""
    g = onnx.load(d / "onnx" / "model.onnx")
    onnx.save_model(
        g, d / "onnx" / "model.onnx", save_as_external_data=True, location="model.onnx.data", size_threshold=256
    )
    relist(d)


def relist(d):
    """model.json naming the graph and data file as they now are (what a publisher would write)."""
    meta = json.loads((d / "onnx" / "model.json").read_text())
    graph, data = (d / "onnx" / "model.onnx").read_bytes(), (d / "onnx" / "model.onnx.data").read_bytes()
    meta.update(onnx_sha256=hashlib.sha256(graph).hexdigest(), onnx_bytes=len(graph))
    meta["external_data"] = {"model.onnx.data": {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}}
    (d / "onnx" / "model.json").write_text(json.dumps(meta, indent=1))


@pytest.fixture()
def external_copy(tmp_path, monkeypatch):
    """The shipped model (float32 export only) with its ONNX weights in onnx/model.onnx.data, a
    fresh device."""
    monkeypatch.setenv("SKETCHPAD_CACHE_DIR", str(tmp_path / "cache"))
    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("base", "adapter", "certificates", "onnx-*"))
    resave_external(d)
    return d


def test_external_data_is_hashed_and_run_from_the_same_bytes(external_copy):
    d = external_copy
    inline = (DEFAULT_MODEL_DIR / "onnx" / "model.onnx").stat().st_size
    assert (d / "onnx" / "model.onnx").stat().st_size < inline * 0.6 and (
        d / "onnx" / "model.onnx.data"
    ).stat().st_size > 400_000
    st = load_certified(d, "onnx", announce=None)
    assert st.certificate["source"] == "self-certified"
    assert (
        st.stepper.manifest.files["onnx/model.onnx.data"]
        == hashlib.sha256((d / "onnx" / "model.onnx.data").read_bytes()).hexdigest()
    )
    assert solve("7 + 5", st).value == 12
    shipped = load_stepper(DEFAULT_MODEL_DIR, "onnx")
    views = [r["view"] for r in V.load()]
    assert np.array_equal(st.stepper.logits(views), shipped.logits(views))  # the same weights, read from memory
    # one flipped byte of the data file: refused, as it is not the file model.json names
    data = bytearray((d / "onnx" / "model.onnx.data").read_bytes())
    data[-5] ^= 0x10
    (d / "onnx" / "model.onnx.data").write_bytes(bytes(data))
    with pytest.raises(InputError, match="does not match model.json .* a tampered or incomplete file is refused"):
        load_stepper(d, "onnx")
    # and when the publisher rewrites model.json too, the cached certificate no longer covers it
    relist(d)
    tampered = load_stepper(d, "onnx")
    cert = json.loads(next((d.parent / "cache").glob("onnx-gate1-*.json")).read_text())["certificate"]
    verdict = policy.check(cert, policy.expect_from(tampered))
    assert set(verdict.codes()) == {"subject-digest"} and "onnx/model.onnx.data" in verdict.summary()


@pytest.mark.parametrize("cut", ["truncated", "unlisted"])
def test_a_data_file_model_json_does_not_name_is_refused_in_one_line(external_copy, cut, capsys):
    d = external_copy
    path = d / "onnx" / "model.onnx.data"
    if cut == "truncated":  # an interrupted download
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        meta = json.loads((d / "onnx" / "model.json").read_text())
        del meta["external_data"]
        (d / "onnx" / "model.json").write_text(json.dumps(meta))
    assert main(["solve", "--model", str(d), "1 + 1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert ("does not match model.json" if cut == "truncated" else "does not name the graph's external data") in err


@pytest.mark.parametrize("location", ["../evil.data", "/etc/passwd", "sub/model.data", ".hidden", "a%2e%2e"])
def test_external_data_outside_the_export_is_refused(external_copy, location, capsys):
    d = external_copy
    g = onnx.load(d / "onnx" / "model.onnx", load_external_data=False)
    for t in g.graph.initializer:
        for e in t.external_data:
            if e.key == "location":
                e.value = location
    (d / "onnx" / "model.onnx").write_bytes(g.SerializeToString())
    with pytest.raises(InputError, match="external data outside its directory"):
        load_stepper(d, "onnx")
    assert main(["solve", "--model", str(d), "1 + 1"]) == 2
    assert "outside its directory" in capsys.readouterr().err


def test_the_environment_names_what_the_kernels_depend_on():
    env = load_stepper(DEFAULT_MODEL_DIR, "onnx").environment()
    dev = env["device"]
    assert {"vendor", "name", "isa", "machine", "os"} <= set(dev) and dev["os"]
    if sys.platform.startswith("linux"):
        assert dev["vendor"] and isinstance(dev["isa"], list)
    assert env["library"]["onnxruntime_build"] and env["threads"]["intra_op"] >= 1
    honest = {"predicate": {"environment": env}}
    for field, change in (("isa", ["sse4_2"]), ("vendor", "GenuineIntel")):
        other = json.loads(json.dumps(honest))
        other["predicate"]["environment"]["device"][field] = change
        v = policy.Verdict()
        policy._environment(other["predicate"]["environment"], env, v)
        assert v.codes() == ["environment"] and field in v.summary()


@pytest.mark.browser
def test_the_page_loads_external_data_as_hashed_bytes_certifies_and_solves(external_copy):
    from sketchpad.certify.chromium import available, browser, wait_until

    if available() is not None:
        pytest.skip(available())
    from sketchpad.certify.browser_backend import certify_in_browser
    from sketchpad.server.live import page_server

    with page_server(external_copy) as url:
        cert = certify_in_browser(url)
        assert cert["predicate"]["result"]["passed"]
        subjects = {s["name"]: s["digest"]["sha256"] for s in cert["subject"]}
        data = (external_copy / "onnx" / "model.onnx.data").read_bytes()
        assert subjects["onnx/model.onnx.data"] == hashlib.sha256(data).hexdigest()
        with browser() as b:  # a fresh profile: certifies itself, then solves
            p = b.new_context().new_page()
            p.goto(url + "/?provider=wasm&speed=6&expr=98765%20*%204321")
            wait_until(p, "document.body.dataset.state === 'ready'", timeout=120_000)
            p.click("#solve")
            wait_until(p, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=120_000)
            assert p.inner_text("#answer").strip() == str(98765 * 4321), p.inner_text("#error")
            assert p.evaluate("document.body.dataset.certified") == "yes"


@pytest.mark.browser
@pytest.mark.parametrize("attack", ["tampered", "escaping"])
def test_the_page_refuses_a_tampered_or_escaping_data_file(external_copy, attack):
    from sketchpad.certify.chromium import available, browser, wait_until

    if available() is not None:
        pytest.skip(available())
    from sketchpad.server.live import page_server

    d = external_copy
    with page_server(d) as url, browser() as b:  # the server checked the export; the files change after
        if attack == "tampered":
            data = bytearray((d / "onnx" / "model.onnx.data").read_bytes())
            data[-5] ^= 0x10
            (d / "onnx" / "model.onnx.data").write_bytes(bytes(data))
            words = "does not match model.json"
        else:
            g = onnx.load(d / "onnx" / "model.onnx", load_external_data=False)
            for t in g.graph.initializer:
                for e in t.external_data:
                    if e.key == "location":
                        e.value = "../onnx/model.onnx.data"
            (d / "onnx" / "model.onnx").write_bytes(g.SerializeToString())
            relist(d)
            words = "names external data outside its directory"
        p = b.new_context().new_page()
        p.goto(url + "/?provider=wasm&speed=6")
        wait_until(p, "['ready', 'failed'].includes(document.body.dataset.state)", timeout=120_000)
        assert p.evaluate("document.body.dataset.state") == "failed"
        assert words in p.inner_text("#error") and p.inner_text("#answer").strip() == ""
