"""`sketchpad bench` checks every answer against Python and reports failures honestly."""

import json
import os

import pytest

from sketchpad.cli import main


def test_bench_reference_on_a_prefix(tmp_path, capsys):
    out, md = tmp_path / "r.json", tmp_path / "t.md"
    assert (
        main(["bench", "mixed-200", "--backend", "reference", "--limit", "16", "--out", str(out), "--md", str(md)]) == 0
    )
    res = json.loads(out.read_text())
    assert res["summary"]["solved"] == res["summary"]["total"] == 16
    assert "16/16" in md.read_text()


def test_bench_reports_a_wrong_stepper(tmp_path, monkeypatch, capsys):
    from sketchpad import bench
    from sketchpad.faults import OneWrongStepper
    from sketchpad.solve import solve
    from sketchpad.symbols import View

    wrong = OneWrongStepper(View("ADD", "1", "1", "_"))
    rows = bench.run_set(
        [{"id": "p", "expr": "11 + 11"}, {"id": "q", "expr": "5 + 3"}],
        lambda e: solve(e, wrong).as_dict(),
        progress=False,
    )
    assert [r["ok"] for r in rows] == [False, True]


def test_unknown_set_is_a_clear_error(capsys):
    assert main(["bench", "no-such-set", "--backend", "reference"]) == 2
    assert "no problem set" in capsys.readouterr().err


def test_bench_on_the_default_backend_certifies_first(tmp_path, capsys):
    """ONNX Runtime is the default backend, and the model runs only under a certificate."""
    out = tmp_path / "r.json"
    assert main(["bench", "sums-products-220", "--limit", "3", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["backend"] == "onnx" and res["summary"]["solved"] == 3


def test_bench_rejects_a_bad_limit(capsys):
    assert main(["bench", "mixed-200", "--backend", "reference", "--limit", "0"]) == 2
    assert "--limit" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="Debian's chromium is not installed")
def test_bench_in_the_browser_refuses_an_uncertified_model(tmp_path, capsys):
    """A graph whose steps are wrong fails the page's own suite in a fresh browser, so the
    browser bench refuses to run it (exit 1, the failing views named); with
    --allow-uncertified it runs and its wrong answers are reported."""
    import shutil

    import numpy as np
    import onnx
    from onnx import numpy_helper

    from sketchpad.model import DEFAULT_MODEL_DIR

    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("base", "adapter", "certificates"))
    path = d / "onnx" / "model.onnx"
    m = onnx.load(str(path))
    emb = next(i for i in m.graph.initializer if i.name.endswith("embed_tokens.weight"))
    w = numpy_helper.to_array(emb)
    noise = np.random.default_rng(0).normal(0, 0.5 * float(w.std()), w.shape).astype(w.dtype)
    emb.CopyFrom(numpy_helper.from_array(w + noise, emb.name))
    onnx.save(m, str(path))
    meta = json.loads((d / "onnx" / "model.json").read_text())
    from sketchpad.model.manifest import sha256_file

    meta["onnx_sha256"] = sha256_file(path)  # a consistent export, just a wrong one
    (d / "onnx" / "model.json").write_text(json.dumps(meta))
    assert main(["bench", "sums-products-220", "--backend", "browser", "--model", str(d), "--limit", "2"]) == 1
    err = capsys.readouterr().err
    assert "does not pass certification in this browser" in err and "Failing views" in err


def test_the_answer_key_is_pythons_own_evaluation(monkeypatch):
    """bench's key: Python's parser and integers, not sketchpad's parser (a broken parser
    cannot make its own wrong answer the expected one)."""
    import math
    import random

    from sketchpad import bench, expr
    from sketchpad.errors import InputError

    def broken(*a, **k):
        raise AssertionError("the answer key must not use sketchpad's parser")

    monkeypatch.setattr(expr, "parse", broken)
    monkeypatch.setattr(expr, "evaluate_python", broken)
    assert bench.python_answer("-7 // 2") == "-4" and bench.python_answer("-7 % 3") == "2"
    assert bench.python_answer("98765 % -43") == str(98765 % -43)
    assert bench.python_answer("sqrt(99) + gcd(-462, 1071) * -(5 - 8)") == str(9 + 21 * 3)
    rnd = random.Random(27)
    a, b = rnd.randrange(10**4999, 10**5000), rnd.randrange(10**2999, 10**3000)
    with bench._long_ints():
        want = [str(a + b), str(a * -b), str(a // b), str(math.isqrt(a))]
        got = [bench.python_answer(e) for e in (f"{a} + {b}", f"{a} * -{b}", f"{a} // {b}", f"sqrt({a})")]
    assert got == want
    for bad in ("__import__('os')", "2 ** 3", "1.5 + 1", "sqrt(x=4)", "abs(-1)", "7 // 0", "1 +"):
        with pytest.raises(InputError):
            bench.python_answer(bad)
