"""Every new device certifies itself: with an empty certificate cache, the first solve runs the
suite (and says so in one line), the second reuses the cached certificate.  A cache entry is
checked like any certificate: a corrupt one, or one from another environment, is not used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from sketchpad.certify import cache, policy
from sketchpad.certify.certified import load_certified
from sketchpad.model import DEFAULT_MODEL_DIR


@pytest.fixture()
def fresh(tmp_path, monkeypatch):
    """A model copy without committed certificates, and an empty cache: a new device."""
    d = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("certificates"))
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
    first = _solve(fresh, tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == str(123456789 * 987654321)
    lines = [x for x in first.stderr.splitlines() if "certified this model on this device" in x]
    assert len(lines) == 1, first.stderr
    assert "1436/1436 views" in lines[0] and "smallest margin" in lines[0] and " s; cached in " in lines[0]
    cached = list((tmp_path / "cache").glob("onnx-gate1-*.json"))
    assert len(cached) == 1
    second = _solve(fresh, tmp_path / "cache", "2 + 2")
    assert second.returncode == 0 and second.stdout.strip() == "4"
    assert "certified" not in second.stderr  # the cached certificate was used


def test_cache_entries_are_checked_not_trusted(fresh):
    st = load_certified(fresh, "onnx", announce=None)
    assert st.certificate["source"] == "self-certified"
    expect = policy.expect_from(st)
    path = cache.path_for(expect)
    assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "found"
    path.write_text('{"_type": "https://in-toto.io/Statement/v1", "predicate": {"result": {"passed": true}}}')
    said = []
    assert load_certified(fresh, "onnx", announce=said.append).certificate["source"] == "self-certified"
    assert len(said) == 1
    cert = json.loads(path.read_text())  # the good one again: now move it to another device
    cert["predicate"]["environment"]["device"]["name"] = "Another CPU"
    path.write_text(json.dumps(cert))
    assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "self-certified"
    path.write_text("{not json")
    assert load_certified(fresh, "onnx", announce=None).certificate["source"] == "self-certified"
