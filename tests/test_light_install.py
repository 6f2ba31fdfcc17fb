"""The light install (issue 24): the default path (the shipped model on ONNX Runtime, its
certification, the server and the page) imports none of the [train] extra's packages, and
everything that needs them says which extra to install, in one line.  A missing package is
simulated the way Python itself spells it: sys.modules[name] = None makes `import name` raise
ModuleNotFoundError."""

import subprocess
import sys
from pathlib import Path

import pytest

import sketchpad
from sketchpad.cli import main
from sketchpad.extras import TRAIN, MissingExtra
from sketchpad.model.loading import load_stepper

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_TRAIN = f"""
import sys
TRAIN = {TRAIN!r}
for name in TRAIN:
    sys.modules[name] = None  # as if the [train] extra were not installed
"""


def _py(code: str, tmp_path) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, SKETCHPAD_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_TRAIN + code], capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path
    )


def test_the_default_path_runs_without_the_train_extra(tmp_path):
    """Solve on the certified model (certifying it first, as on a new device), the server's
    health, a solve and the page, all with torch, transformers, peft, onnx and onnxscript
    unimportable."""
    r = _py(
        """
import sketchpad
sol = sketchpad.solve("123456789 * -987654321")
assert sol.value == 123456789 * -987654321 and sol.stepper == "onnx", sol
assert sol.certificate["source"] == "self-certified", sol.certificate
from fastapi.testclient import TestClient
from sketchpad.server.app import Settings, create_app
app = create_app(Settings(db_path="c.sqlite", stepper="model"))
with TestClient(app, base_url="http://127.0.0.1") as c:
    assert c.get("/api/health").json()["certificate"] == sol.certificate
    assert c.post("/api/solve", json={"expr": "99999 + 1"}).json()["result"] == "100000"
    assert "Sketchpad" in c.get("/").text and c.get("/app.js").status_code == 200
loaded = sorted(m for m in sys.modules if m.split(".")[0] in TRAIN and sys.modules[m] is not None)
assert not loaded, loaded
print("ok")
""",
        tmp_path,
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--out", "{tmp}/m"],
        ["export", "--out", "{tmp}/x"],
        ["baseline", "train"],
        ["solve", "1+1", "--backend", "torch"],
        ["certify", "--backend", "torch"],
    ],
)
def test_what_needs_torch_names_the_extra(argv, tmp_path):
    r = _py(
        f"from sketchpad.cli import main; raise SystemExit(main({[a.format(tmp=tmp_path) for a in argv]!r}))", tmp_path
    )
    assert r.returncode == 4, (r.returncode, r.stderr[-2000:])
    line = r.stderr.strip()
    assert "\n" not in line and "pip install 'sketchpad[train]'" in line, line
    assert line.startswith("sketchpad: error: ") and "is not installed" in line


def test_the_api_names_the_extra(monkeypatch):
    for name in ("torch", "transformers", "peft"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingExtra, match=r"\[train\] extra \(torch is not installed\)"):
        load_stepper(None, "torch")
    with pytest.raises(MissingExtra):
        sketchpad.solve("1+1", backend="torch")


def test_an_import_of_another_missing_module_is_not_blamed_on_the_extra(monkeypatch):
    """Only the [train] packages turn into the extra's message; anything else stays an error."""
    import sketchpad.commands.views as views_command

    def broken(args):
        import no_such_module_for_this_test  # noqa: F401

    monkeypatch.setattr(views_command, "run", broken)
    with pytest.raises(ModuleNotFoundError):
        main(["views"])


def test_pyproject_keeps_the_train_packages_out_of_the_base():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {d.split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip() for d in project["dependencies"]}
    train = {d.split("=")[0].split(">")[0].strip() for d in project["optional-dependencies"]["train"]}
    assert set(TRAIN) == train and not base & train
    assert "'.[test,train]'" in (ROOT / "scripts" / "setup.sh").read_text()
