"""An interrupted certification resumes where it stopped and ends with the same certificate: each
chunk's logits are kept in this user's cache (HMAC-tagged), reused only by the same suite on the
same bytes, and thrown away once the certificate is made.  A chunk anyone else changed is
ignored with a warning and run again.  (The page does the same in IndexedDB:
test_browser_full_size.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from sketchpad.certify import cache
from sketchpad.certify.run import certify, chunk_groups
from sketchpad.cli import main
from sketchpad.model.loading import load_stepper


class Stop(Exception):
    pass


def stop_after(views: int):
    def progress(done, total):
        if done >= views:
            raise Stop

    return progress


@pytest.fixture()
def device(tmp_path, monkeypatch):
    monkeypatch.setenv("SKETCHPAD_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def same_but_time(a: dict, b: dict) -> None:
    pa, pb = a["predicate"], b["predicate"]
    assert a["subject"] == b["subject"]
    assert {k: v for k, v in pa.items() if k not in ("time", "runs")} == {
        k: v for k, v in pb.items() if k not in ("time", "runs")
    }
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in pa["runs"]] == [
        {k: v for k, v in r.items() if k != "seconds"} for r in pb["runs"]
    ]


def chunk_files(device):
    return sorted((device / "partial").glob("*/run*-chunk*.bin"))


def test_chunks_cover_every_batch_in_order():
    assert chunk_groups([1] * 600) == [(0, 256), (256, 512), (512, 600)]
    assert chunk_groups([1436]) == [(0, 1)] and chunk_groups([]) == []
    sizes = [300, 5, 250, 1, 1]
    groups = chunk_groups(sizes)
    assert groups == [(0, 1), (1, 4), (4, 5)] and sum(sum(sizes[a:b]) for a, b in groups) == sum(sizes)


def test_an_interrupted_suite_resumes_and_gives_the_same_certificate(device):
    st = load_stepper(None, "onnx")
    seed = cache.suite_seed()
    with pytest.raises(Stop):
        certify(st, seed=seed, resume=True, progress=stop_after(2000))
    kept = chunk_files(device)
    assert len(kept) >= 2  # all of V at once, and the first chunks of one view per pass
    said = []
    resumed = certify(st, seed=seed, resume=True, announce=said.append)
    assert len(said) == 1 and said[0].startswith("sketchpad: resuming the certification suite: ")
    assert f"{len(kept)} of " in said[0]
    assert resumed["predicate"]["time"]["resumed"]["chunks"] == len(kept)
    assert not (device / "partial").exists() or not any((device / "partial").iterdir())  # finished: gone
    fresh = certify(st, seed=seed)
    same_but_time(resumed, fresh)
    assert resumed["predicate"]["result"]["passed"]


def test_a_chunk_changed_by_someone_else_is_run_again(device, capsys):
    st = load_stepper(None, "onnx")
    seed = cache.suite_seed()
    with pytest.raises(Stop):
        certify(st, seed=seed, resume=True, progress=stop_after(1500))
    path = chunk_files(device)[0]
    head, body = path.read_bytes().split(b"\n", 1)
    logits = np.frombuffer(body, dtype="<f4").copy()
    logits[:] = 0  # every step now ties: a forged chunk would make the suite fail (or lie)
    path.write_bytes(head + b"\n" + logits.tobytes())
    cert = certify(st, seed=seed, resume=True)
    assert "its HMAC tag does not match this user's key" in capsys.readouterr().err
    assert cert["predicate"]["result"]["passed"]
    same_but_time(cert, certify(st, seed=seed))


def test_the_command_line_resumes_what_an_interrupted_run_left(device, tmp_path, capsys):
    st = load_stepper(None, "onnx")
    with pytest.raises(Stop):
        certify(st, seed=cache.suite_seed(), resume=True, progress=stop_after(3000))
    capsys.readouterr()
    assert main(["certify", "--out", str(tmp_path / "resumed.json")]) == 0
    captured = capsys.readouterr()
    assert "sketchpad: resuming the certification suite" in captured.err and "PASSED" in captured.out
    assert main(["certify", "--out", str(tmp_path / "fresh.json")]) == 0
    same_but_time(*(json.loads((tmp_path / f"{n}.json").read_text()) for n in ("resumed", "fresh")))


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="node is not installed")
def test_python_and_the_page_plan_the_same_suite(tmp_path):
    """For a seed and a large model's batch cap, web/certify/run.js draws the same runs (labels,
    orders, batch sizes) and cuts them into the same chunks as certify/run.py."""
    import subprocess
    from pathlib import Path
    from types import SimpleNamespace

    from sketchpad.certify.run import compositions

    cases = [{"n": 1436, "seed": 7, "maxBatch": None}, {"n": 1436, "seed": 2**32 - 5, "maxBatch": 256}]
    cases += [{"n": 300, "seed": 12345, "maxBatch": 64}, {"n": 1436, "seed": 0, "maxBatch": 4096}]
    mine = []
    for c in cases:
        st = SimpleNamespace(logits=None, max_batch=c["maxBatch"])
        runs = compositions(st, c["n"], c["seed"])
        mine.append(
            [
                {"label": r["label"], "order": r["order"], "sizes": r["sizes"], "chunks": chunk_groups(r["sizes"])}
                for r in runs
            ]
        )
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    script = Path(__file__).resolve().parents[1] / "web" / "tests" / "suite-plan.mjs"
    r = subprocess.run(["node", str(script), str(tmp_path / "cases.json")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    theirs = json.loads(r.stdout)
    for a, b in zip(mine, theirs, strict=True):
        assert [dict(x, chunks=[list(g) for g in x["chunks"]]) for x in a] == b


def test_a_long_suite_says_how_far_it_is_and_how_long_is_left(device, monkeypatch, capsys):
    """Off a terminal (a log, a pipe) the suite prints a progress line with an ETA every ETA_EVERY
    seconds; here every batch."""
    from sketchpad.certify import run

    monkeypatch.setattr(run, "ETA_EVERY", 0.0)
    certify(load_stepper(None, "onnx"), seed=5)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sketchpad: certifying: ")]
    assert len(lines) > 100 and "/5,744 (" in lines[0] and "left" in lines[len(lines) // 2]


def test_a_suite_whose_folder_vanishes_goes_on(device):
    """Two runs of the same suite share a journal; when one finishes it removes the folder the
    other is writing to: that one keeps going (and keeps its chunks again)."""
    import shutil

    st = load_stepper(None, "onnx")
    seed = cache.suite_seed()
    removed = []

    def progress(done, total):
        if done >= 1436 and not removed:
            removed.extend(p for p in (device / "partial").iterdir())
            shutil.rmtree(device / "partial")

    cert = certify(st, seed=seed, resume=True, progress=progress)
    assert removed and cert["predicate"]["result"]["passed"]
    same_but_time(cert, certify(st, seed=seed))
