"""Every new device certifies itself, and only its own suite is proof: with an empty certificate
cache, the first solve runs the suite (and says so in one line) although the model ships
certificates, the second reuses this device's cached certificate.  A cache entry counts only
with a valid HMAC tag of this user's key, in a directory nobody else may write; anything else
is ignored with a one-line warning, and the suite runs again."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from sketchpad.certify import cache, policy
from sketchpad.certify.certified import load_certified
from sketchpad.model import DEFAULT_MODEL_DIR


@pytest.fixture()
def fresh(tmp_path, monkeypatch):
    """A model copy with its committed certificates, and an empty cache: a new device."""
    d = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("base", "adapter"))
    monkeypatch.setenv("SKETCHPAD_CACHE_DIR", str(tmp_path / "cache"))
    return d


def _solve(model_dir, cache_dir, expr="123456789 * 987654321"):
    env = dict(os.environ, SKETCHPAD_CACHE_DIR=str(cache_dir))
    return subprocess.run(
        [sys.executable, "-m", "sketchpad", "solve", "--model", str(model_dir), expr],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def test_first_solve_certifies_the_device_second_reuses_it(fresh, tmp_path):
    assert list((fresh / "certificates").glob("*.json"))  # the model ships certificates: claims
    first = _solve(fresh, tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == str(123456789 * 987654321)
    lines = [x for x in first.stderr.splitlines() if "certified this model on this device" in x]
    assert len(lines) == 1, first.stderr
    assert "1436/1436 views in 4 batch compositions" in lines[0] and "smallest margin" in lines[0]
    assert " s; cached in " in lines[0]
    cached = list((tmp_path / "cache").glob("onnx-gate1-*.json"))
    assert len(cached) == 1
    key = tmp_path / "cache" / cache.KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == cache.KEY_BYTES
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) & 0o077 == 0
    second = _solve(fresh, tmp_path / "cache", "2 + 2")
    assert second.returncode == 0 and second.stdout.strip() == "4"
    assert "certified" not in second.stderr and "warning" not in second.stderr  # the cached certificate


def test_committed_certificates_are_claims_never_proof(fresh):
    st = load_certified(fresh, "onnx", announce=None)
    assert st.certificate["source"] == "self-certified"  # although certificates/onnx.json is there
    assert any(p.endswith("onnx.json") for p in st.certificate["claims"])


def test_cache_entries_without_a_valid_tag_are_ignored_with_a_warning(fresh, capsys):
    st = load_certified(fresh, "onnx", announce=None)
    path = cache.path_for(policy.expect_from(st.stepper))
    assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "cached"
    entry = json.loads(path.read_text())
    cert = entry["certificate"]

    def source_after(text):
        path.write_text(text)
        capsys.readouterr()
        said = []
        got = load_certified(fresh, "onnx", announce=said.append).certificate["source"]
        return got, said, capsys.readouterr().err

    # a bare certificate (what the cache held before tags): no tag, not this user's
    got, said, err = source_after(json.dumps(cert))
    assert got == "self-certified" and len(said) == 1 and "carries no HMAC tag" in err
    # a tagged entry whose certificate was edited afterwards
    edited = json.loads(path.read_text())
    edited["certificate"]["predicate"]["result"]["min_margin"] = 99.0
    got, _, err = source_after(json.dumps(edited))
    assert got == "self-certified" and "does not match this user's key" in err
    # a tag made with another key
    forged = dict(entry, hmac=cache.tag(b"k" * 32, path.name, cert))
    got, _, err = source_after(json.dumps(forged))
    assert got == "self-certified" and "does not match this user's key" in err
    got, _, err = source_after("{not json")
    assert got == "self-certified" and "not readable JSON" in err
    assert len([x for x in err.splitlines() if x.strip()]) == 1  # one line


def test_a_valid_entry_from_another_environment_is_not_used(fresh):
    st = load_certified(fresh, "onnx", announce=None)
    expect = policy.expect_from(st.stepper)
    path = cache.path_for(expect)
    entry = json.loads(path.read_text())
    cert = entry["certificate"]
    cert["predicate"]["environment"]["device"]["isa"] = ["sse4_2"]  # this device's kernels, misreported
    secret = cache.user_key(create=False)
    path.write_text(json.dumps(dict(entry, hmac=cache.tag(secret, path.name, cert))))  # validly tagged
    assert not policy.check(cert, expect).ok
    assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "self-certified"


def test_a_cache_directory_others_may_write_is_not_used(fresh, capsys):
    st = load_certified(fresh, "onnx", announce=None)
    d = cache.cache_dir()
    d.chmod(0o777)
    try:
        capsys.readouterr()
        assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "self-certified"
        err = capsys.readouterr().err
        assert "others may write to it" in err and str(d) in err
        assert cache.store(policy.expect_from(st.stepper), {"x": 1}) is None  # nothing is written there either
    finally:
        d.chmod(0o700)
    assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "cached"


def test_an_unsafe_key_disables_the_cache(fresh, capsys, monkeypatch):
    load_certified(fresh, "onnx", announce=None)
    key = cache.cache_dir() / cache.KEY_FILE
    key.chmod(0o644)
    capsys.readouterr()
    assert cache.user_key(create=False) is None
    assert "is unsafe" in capsys.readouterr().err
    key.chmod(0o600)
    assert cache.user_key(create=False) is not None
    if hasattr(os, "geteuid"):  # a key some other user owns (here: this user pretends to be another)
        real = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: real + 1)
        assert cache.user_key(create=False) is None
        assert "belongs to user id" in capsys.readouterr().err
