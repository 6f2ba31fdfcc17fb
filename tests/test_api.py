"""The Python API (issue 24): `sketchpad.solve(expr)` takes the same default as the command
line (the certified shipped model), the stepper is named as on the command line, and every
answer says which certificate its steps ran under."""

import dataclasses
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import sketchpad
from sketchpad import CertifiedStepper, InputError, steppers
from sketchpad.cli import main
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.server.app import Settings, create_app

ROOT = Path(__file__).resolve().parents[1]


def test_solve_defaults_to_the_certified_model():
    a, b = 987654321987654321, -123456789
    sol = sketchpad.solve(f"{a} * {b}")
    assert sol.value == a * b
    assert sol.stepper == "onnx"  # the shipped model on ONNX Runtime, as `sketchpad solve`
    assert sol.certificate["source"] in ("cached", "self-certified")
    assert sol.certificate["views"] == 1436 and sol.certificate["min_margin"] > 0
    assert sol.as_dict()["certificate"] == sol.certificate


@pytest.mark.parametrize("name", ["model", str(DEFAULT_MODEL_DIR), DEFAULT_MODEL_DIR])
def test_the_model_by_name_or_directory_is_the_certified_one(name):
    sol = sketchpad.solve("-7 // 2", name)
    assert sol.value == -7 // 2 and sol.stepper == "onnx"
    assert sol.certificate == sketchpad.solve("1+1").certificate


def test_reference_and_stepper_objects_carry_no_certificate():
    sol = sketchpad.solve("12345 * -678", "reference")
    assert sol.value == 12345 * -678 and sol.certificate is None and sol.stepper == "reference"
    st = sketchpad.ReferenceStepper()
    assert sketchpad.solve("gcd(84, 36)", st).value == 12


def test_a_certified_stepper_is_a_declared_pair():
    st = steppers.get()
    assert isinstance(st, CertifiedStepper)
    assert [f.name for f in dataclasses.fields(CertifiedStepper)] == ["stepper", "certificate"]
    assert st.name == st.stepper.name and st.backend == "onnx"
    sol = sketchpad.solve("99 + 1", st)
    assert sol.value == 100 and sol.certificate is st.certificate


@pytest.mark.parametrize("bad", ["modle", "/no/such/model/dir", 42, object()])
def test_a_stepper_that_is_none_of_these_is_one_line(bad):
    with pytest.raises(InputError) as e:
        sketchpad.solve("1+1", bad)
    msg = str(e.value)
    assert "\n" not in msg and "'model'" in msg and "'reference'" in msg


def test_bad_input_fails_before_a_model_loads(monkeypatch):
    monkeypatch.setattr(steppers, "get", lambda *a, **k: pytest.fail("a model was loaded for bad input"))
    with pytest.raises(InputError):
        sketchpad.solve("1 +")


def test_cli_json_says_which_certificate(capsys):
    assert main(["solve", "6 * 7", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == "42" and out["certificate"]["source"] in ("cached", "self-certified")
    assert main(["solve", "6 * 7", "--json", "--stepper", "reference"]) == 0
    assert json.loads(capsys.readouterr().out)["certificate"] is None


def test_api_answer_and_health_say_which_certificate(tmp_path):
    app = create_app(Settings(db_path=str(tmp_path / "c.sqlite"), stepper="model", backend="onnx"))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        health = c.get("/api/health").json()
        r = c.post("/api/solve", json={"expr": "6 * 7"}).json()
    assert r["result"] == "42" and r["certificate"]["source"] in ("cached", "self-certified")
    assert health["certificate"] == r["certificate"]


def test_the_certificate_is_read_from_a_declared_class_not_an_attribute_guess():
    """No module reads `.certificate` off an arbitrary stepper with getattr any more."""
    for p in list((ROOT / "sketchpad").rglob("*.py")) + list((ROOT / "certify").rglob("*.py")):
        text = p.read_text()
        assert 'getattr(st, "certificate"' not in text and "stepper.certificate =" not in text, p


def test_the_package_root_is_imported_by_no_module_of_its_own():
    """The public face sits above every layer: a module that imported it (e.g. for the
    version) would import the whole package, the model and certifier included."""
    for p in [*(ROOT / "sketchpad").rglob("*.py"), *(ROOT / "certify").rglob("*.py"), *(ROOT / "export").rglob("*.py")]:
        if p.name == "__init__.py" and p.parent == ROOT / "sketchpad":
            continue
        for line in p.read_text().splitlines():
            s = line.strip()
            assert not s.startswith(("from sketchpad import __version__", "from .. import __version__")), p
            assert s != "from . import __version__", p
