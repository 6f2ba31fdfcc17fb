"""The certificate against a hostile model publisher, one test per attack, each through the
command line, the Python API and the server (the page: tests/test_browser_hostile.py).  Every
attack is built here from the shipped model (tests/hostile.py) and shown to be real - it
answers 7 + 5 = 13 once the defences are bypassed - and then never gives a wrong answer: it
is refused with a reason naming its cause, or the solve answers right.

1. a graph that reads its batch size (Shape(input_ids)): right only at the old suite's batches;
2. a graph whose rows look at other rows (is MUL 9 9 8 in the batch?);
3. a graph with an unseeded RandomUniformLike;
4. a forged certificate shipped in the model directory (a wrong model, "certified");
5. a forged certificate written into this device's cache;
6. weight bytes swapped between the hash and the load.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hostile import TARGET, forged_certificate, hostile_model

from sketchpad import solve
from sketchpad.certify import cache, policy
from sketchpad.certify.certified import Uncertified, load_certified
from sketchpad.certify.run import certify
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.loading import load_stepper
from sketchpad.server import Settings, create_app

ROOT = Path(__file__).resolve().parents[1]
GRAPH_ATTACKS = {  # kind -> (reason code words, the operator the refusal names)
    "batch-size": ("computed from the batch size", "Mul"),
    "batch-content": ("reduces along the batch axis", "ReduceMax"),
    "random": ("draws random numbers", "RandomUniformLike"),
}


@pytest.fixture()
def device(tmp_path, monkeypatch):
    """A fresh device: an empty certificate cache of its own."""
    d = tmp_path / "cache"
    monkeypatch.setenv("SKETCHPAD_CACHE_DIR", str(d))
    return d


def cli(*args, cache_dir, wrapper: str | None = None):
    env = dict(os.environ, SKETCHPAD_CACHE_DIR=str(cache_dir))
    code = (wrapper or "") + "\nimport sys\nfrom sketchpad.cli import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600, env=env, cwd=ROOT
    )


def _server(model_dir, db, **kw):
    return TestClient(create_app(Settings(db_path=str(db), model_dir=model_dir, **kw)), base_url="http://127.0.0.1")


# ---------------------------------------------------------------- 1-3: graphs that are not row-independent


@pytest.mark.parametrize("kind", sorted(GRAPH_ATTACKS))
def test_a_graph_that_is_not_row_independent_is_refused_everywhere(kind, tmp_path, device):
    words, op = GRAPH_ATTACKS[kind]
    d = hostile_model(tmp_path, kind)
    # The attack is real: with the defences bypassed it answers 13 (random: flips some rows).
    bypassed = load_certified(d, "onnx", allow_uncertified=True, announce=None)
    if kind == "random":
        steps = bypassed([_view(TARGET)] * 3000)
        assert 0 < sum(s.sym == "3" for s in steps) < 3000
    else:
        assert solve("7 + 5", bypassed).value == 13
    # command line: refused before any view runs, naming the cause and the node
    r = cli("solve", "--model", str(d), "7 + 5", cache_dir=device)
    assert r.returncode == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert "not shown to be row-independent" in r.stderr and words in r.stderr and f"({op})" in r.stderr
    r = cli("certify", "--model", str(d), cache_dir=device)
    assert r.returncode == 1 and "not shown to be row-independent" in r.stderr and r.stdout == ""
    # Python API
    from sketchpad import steppers

    with pytest.raises(Uncertified, match=words):
        steppers.get("model", model=d)
    # server: it does not start with such a model ...
    with pytest.raises(Uncertified, match=words), _server(d, tmp_path / "a.sqlite", stepper="model"):
        pass
    # ... and, serving the page only, it says so and records no certificate for it
    honest = certify(load_stepper(DEFAULT_MODEL_DIR, "onnx"), seed=7)
    with _server(d, tmp_path / "b.sqlite", stepper="reference") as c:
        model = c.get("/api/model").json()
        assert model["row_independence"]["ok"] is False and words in model["row_independence"]["message"]
        forged = forged_certificate(honest, d, "browser")
        forged["predicate"]["backend"] = {"name": "browser"}
        r = c.post("/api/certificates", json=forged)
        assert r.status_code == 400 and "row-independent" in r.json()["error"]
        assert c.post("/api/solve", json={"expr": "7 + 5"}).json()["result"] == "12"  # the reference stepper


def _view(v):
    from sketchpad.symbols import View

    return View(*v)


@pytest.mark.parametrize("kind", ["batch-size", "batch-content"])
def test_the_suite_alone_catches_what_the_old_suite_missed(kind, tmp_path):
    """Defence in depth: with the static check out of the way, the old suite (all of V, then one
    view per pass) passes these graphs, and the suite's shuffled batches of 1-512 catch them."""
    st = load_stepper(hostile_model(tmp_path, kind), "onnx")

    class Unchecked:  # the same stepper without its graph: rows.verdict_for cannot see it
        backend, steps, manifest, gate_value = st.backend, st.steps, st.manifest, st.gate_value
        logits, environment, describe = st.logits, st.environment, st.describe

    old = certify(Unchecked(), batch_sizes=(1436, 1))
    assert old["predicate"]["result"]["passed"]  # fooled
    new = certify(Unchecked(), seed=1234)
    failed = [f["view"] for f in new["predicate"]["result"]["failures"]]
    assert failed == [" ".join([TARGET[0], "".join(TARGET[1:])])], failed


# ---------------------------------------------------------------- 4: a forged certificate in the model directory


@pytest.fixture(scope="module")
def honest_here():
    """An honest certificate of the shipped model, made on this device by this code."""
    return certify(load_stepper(DEFAULT_MODEL_DIR, "onnx"), seed=11)


def _forged_wrong_model(tmp_path, honest):
    d = hostile_model(tmp_path, "wrong")
    cert = forged_certificate(honest, d)
    (d / "certificates").mkdir(exist_ok=True)
    (d / "certificates" / "onnx.json").write_text(json.dumps(cert))
    return d, cert


def test_a_forged_certificate_in_the_model_directory_is_only_a_claim(tmp_path, device, honest_here):
    d, cert = _forged_wrong_model(tmp_path, honest_here)
    st = load_stepper(d, "onnx")
    assert policy.check(cert, policy.expect_from(st)).ok  # the forgery passes the rule: it used to be enough
    assert solve("7 + 5", st).value == 13  # and the model is wrong
    r = cli("solve", "--model", str(d), "7 + 5", cache_dir=device)
    assert r.returncode == 1 and r.stdout == ""
    assert "does not pass certification on this device" in r.stderr and "ADD 75_" in r.stderr
    r = cli("certify", "--verify", str(d / "certificates" / "onnx.json"), cache_dir=device)
    assert r.returncode == 0 and r.stdout.startswith("claim: consistent")  # consistent, and only a claim
    r = cli("certify", "--verify", str(d / "certificates" / "onnx.json"), "--rerun", cache_dir=device)
    assert r.returncode == 1 and "proof: this device ran the suite" in r.stdout and "FAILED" in r.stdout
    assert "claim: inconsistent" in r.stdout and "ADD 75_" in r.stdout
    with pytest.raises(Uncertified, match="ADD 75_"):
        load_certified(d, "onnx", announce=None)
    with pytest.raises(Uncertified, match="ADD 75_"), _server(d, tmp_path / "s.sqlite", stepper="model"):
        pass
    with _server(d, tmp_path / "r.sqlite", stepper="reference") as c:
        shown = c.get("/api/model").json()["certificates"]["onnx"]
        assert shown["kind"] == "claim" and shown["claim"].startswith("not checked here")


# ---------------------------------------------------------------- 5: a forged certificate in the cache


def test_a_forged_cache_entry_is_ignored(tmp_path, device, honest_here):
    d, cert = _forged_wrong_model(tmp_path, honest_here)
    shutil.rmtree(d / "certificates")
    st = load_stepper(d, "onnx")
    path = cache.path_for(policy.expect_from(st))
    path.parent.mkdir(parents=True)
    entries = {
        "a bare certificate": cert,
        "a tag of another key": {
            "format": cache.FORMAT,
            "hmac": cache.tag(b"x" * 32, path.name, cert),
            "certificate": cert,
        },
    }
    for name, entry in entries.items():
        path.write_text(json.dumps(entry))
        r = cli("solve", "--model", str(d), "7 + 5", cache_dir=device)
        assert r.returncode == 1 and r.stdout == "", name
        assert "ignoring the certificate cache entry" in r.stderr and "ADD 75_" in r.stderr, (name, r.stderr)
        path.write_text(json.dumps(entry))
        with pytest.raises(Uncertified, match="ADD 75_"):
            load_certified(d, "onnx", announce=None)
        path.write_text(json.dumps(entry))
        with pytest.raises(Uncertified), _server(d, tmp_path / f"{len(name)}.sqlite", stepper="model"):
            pass


# ---------------------------------------------------------------- 6: bytes swapped between hash and load

SWAP = """
import os
from pathlib import Path
from sketchpad.model import manifest as M
_read = M.Manifest.read_bytes
SWAPPED = []
def read_bytes(self, name, at=None):
    data = _read(self, name, at)
    p = self.root / (at or name)
    if name in {names!r} and not SWAPPED:  # hashed: now swap the file on disk for the hostile one
        os.replace(p, str(p) + ".good")
        Path(p).write_bytes(Path({bad!r}).read_bytes())
        SWAPPED.append(p)
    return data
def restore():
    for p in SWAPPED:
        os.replace(str(p) + ".good", p)
    SWAPPED.clear()
    M.Manifest.read_bytes = _read
M.Manifest.read_bytes = read_bytes
import atexit
atexit.register(restore)
"""


def swapping(names, bad):
    """Install the swap in this process; returns its restore()."""
    scope = {}
    exec(compile(SWAP.format(names=names, bad=str(bad)), "swap", "exec"), scope)
    return scope["restore"]


def _bad_weights(d: Path) -> Path:
    """base/model.safetensors with the step "3 carry 1" pushed up wherever "2 carry 1" scores."""
    from safetensors.torch import load_file, save_file

    sd = load_file(d / "base" / "model.safetensors")
    ids = json.loads((d / "sketchpad_vocab.json").read_text())["token_ids"]
    w = sd["lm_head.weight"].clone()
    w[ids["<s:31:ADD>"]] += 50 * w[ids["<s:21:ADD>"]]
    sd["lm_head.weight"] = w
    bad = d.parent / "bad.safetensors"
    save_file(sd, bad, metadata={"format": "pt"})
    return bad


def test_bytes_swapped_between_hash_and_load_are_not_run(tmp_path, device):
    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("certificates"))
    good = hashlib.sha256((d / "base" / "model.safetensors").read_bytes()).hexdigest()
    bad = _bad_weights(d)
    # The attack is real: a model built from the bad bytes does not answer 7 + 5 = 12.
    swapped = tmp_path / "swapped"
    shutil.copytree(d, swapped)
    shutil.copy(bad, swapped / "base" / "model.safetensors")
    with pytest.raises(Exception):  # noqa: B017 - a wrong answer or a stepper fault: never 12
        assert solve("7 + 5", load_stepper(swapped, "torch")).value == 12
    # torch on the command line: the swap happens right after the hash, before the model is built
    wrapper = SWAP.format(names=("base/model.safetensors",), bad=str(bad))
    r = cli("solve", "--model", str(d), "--backend", "torch", "7 + 5", cache_dir=device, wrapper=wrapper)
    assert r.returncode == 0 and r.stdout.strip() == "12", r.stderr
    entry = json.loads(next(device.glob("torch-gate1-*.json")).read_text())
    digests = {s["name"]: s["digest"]["sha256"] for s in entry["certificate"]["subject"]}
    assert digests["base/model.safetensors"] == good  # what was hashed is what ran
    # ONNX Runtime likewise: the graph is swapped for a hostile one right after its hash
    hostile = hostile_model(tmp_path, "wrong") / "onnx" / "model.onnx"
    wrapper = SWAP.format(names=("onnx/model.onnx",), bad=str(hostile))
    r = cli("solve", "--model", str(d), "7 + 5", cache_dir=device, wrapper=wrapper)
    assert r.returncode == 0 and r.stdout.strip() == "12", r.stderr
    # Python API and the server, in this process
    restore = swapping(("base/model.safetensors",), bad)
    try:
        assert solve("7 + 5", load_certified(d, "torch", announce=None)).value == 12
    finally:
        restore()
    restore = swapping(("base/model.safetensors",), bad)
    try:
        with _server(d, tmp_path / "t.sqlite", stepper="model", backend="torch") as c:
            assert c.post("/api/solve", json={"expr": "7 + 5"}).json()["result"] == "12"
    finally:
        restore()
