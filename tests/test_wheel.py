"""The package as a user installs it: a wheel built from this checkout, installed into a fresh
virtual environment without extras, run from outside the checkout.  `sketchpad solve`, `sketchpad bench` on one
problem and `sketchpad serve` (the page and its files fetched) work, and site-packages gains one
package, `sketchpad`, with no top-level `certify` or `export`, and no `derive` (the generators)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.wheel


def _clean_copy(dest: Path) -> Path:
    """The checkout copied to dest without build outputs: a wheel built in place would pick up a
    stale build/lib left by an older build (a deleted module reappears).  Ignored files the package
    ships (web/vendor, filled by setup.sh) come along."""
    skip = shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"
    )
    shutil.copytree(ROOT, dest, ignore=skip, symlinks=True)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = _clean_copy(tmp / "src")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    wheel = next((tmp / "dist").glob("sketchpad-*.whl"))
    venv.EnvBuilder(with_pip=True).create(tmp / "venv")
    py = tmp / "venv" / "bin" / "python"
    out = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True, timeout=1800
    )
    assert out.returncode == 0, out.stderr[-2000:]
    env = dict(os.environ, SKETCHPAD_CACHE_DIR=str(tmp / "cache"))
    env.pop("PYTHONPATH", None)
    return {"bin": tmp / "venv" / "bin", "py": py, "env": env, "cwd": tmp, "wheel": wheel}


def _run(inst, *args, timeout=900):
    return subprocess.run(
        [str(inst["bin"] / "sketchpad"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=inst["env"],
        cwd=inst["cwd"],
    )


def _site(installed) -> str:
    return subprocess.run(
        [str(installed["py"]), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        env=installed["env"],
        cwd=installed["cwd"],
    ).stdout.strip()


def test_one_package_in_site_packages(installed):
    site = _site(installed)
    names = {p.name for p in Path(site).iterdir()}
    assert "sketchpad" in names and "certify" not in names and "export" not in names
    pkg = Path(site) / "sketchpad"
    for part in (
        "certify/policy.py",
        "export/pipeline.py",
        "web/index.html",
        "web/generated/certificate-rule.json",
        "problems/mixed-200.jsonl",
        "problems/SHA256SUMS",
        "data/views.jsonl",
        "data/default_model/onnx/model.onnx",
    ):
        assert (pkg / part).is_file(), part
    where = subprocess.run(
        [str(installed["py"]), "-c", "import sketchpad; print(sketchpad.__file__)"],
        capture_output=True,
        text=True,
        env=installed["env"],
        cwd=installed["cwd"],
    ).stdout
    assert where.startswith(site)  # not the checkout


def test_the_wheel_holds_no_derive_module(installed):
    """The generators (derive/: golden traces, JS constants, the view-set builder, the Lean
    tables) are developer tools of the checkout: no file of the wheel, nothing importable."""
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    assert not [n for n in names if n.startswith("derive/") or "/derive/" in n]
    for gone in ("golden.py", "generate_js.py", "expr_vectors.py"):
        assert f"sketchpad/{gone}" not in names
    assert "sketchpad/views.py" in names and "sketchpad/data/views.jsonl" in names
    probe = subprocess.run(
        [str(installed["py"]), "-c", "import derive"],
        capture_output=True,
        text=True,
        env=installed["env"],
        cwd=installed["cwd"],
    )
    assert probe.returncode != 0 and "No module named 'derive'" in probe.stderr


def test_solve_and_bench_from_the_wheel(installed):
    r = _run(installed, "solve", "123456789123456789 * -987654321987654321 + gcd(84, 36)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(123456789123456789 * -987654321987654321 + 12)
    # A new device certifies itself, even on the machine that made the committed certificate:
    # a certificate in the model directory is a claim, and only this device's own suite is proof.
    assert "certified this model on this device" in r.stderr
    committed = Path(_site(installed)) / "sketchpad/data/default_model/certificates/onnx.json"
    verified = _run(installed, "certify", "--verify", str(committed)).stdout
    assert verified.startswith("claim: ")
    again = _run(installed, "solve", "2+2")  # the second solve reuses the certificate, silently
    assert again.returncode == 0 and again.stdout.strip() == "4" and again.stderr == ""
    r = _run(installed, "bench", "mixed-200", "--limit", "1")
    assert r.returncode == 0, r.stderr
    assert "| mixed-200 | onnx | 1/1 |" in r.stdout


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_from_the_wheel(installed):
    port = _port()
    proc = subprocess.Popen(
        [str(installed["bin"] / "sketchpad"), "serve", "--port", str(port), "--db", str(installed["cwd"] / "c.sqlite")],
        env=installed["env"],
        cwd=installed["cwd"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=30).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stdout.read()
            assert time.monotonic() < deadline, "the installed server did not become ready"
            time.sleep(0.3)
        page = httpx.get(f"{base}/", timeout=30)
        assert page.status_code == 200 and "Sketchpad" in page.text
        for path in ("/app.js", "/generated/constants.json", "/certify/policy.js", "/model/model.json"):
            assert httpx.get(base + path, timeout=30).status_code == 200, path
        if (ROOT / "web" / "vendor" / "ort" / "ort.wasm.min.mjs").is_file():  # vendored by npm ci
            assert httpx.get(f"{base}/vendor/ort/ort.wasm.min.mjs", timeout=30).status_code == 200
        r = httpx.post(f"{base}/api/solve", json={"expr": "99999 + 1"}, timeout=60)
        assert r.status_code == 200 and r.json()["result"] == "100000"
        # The registry's migrations ship in the wheel: the database is made and usable.
        r = httpx.get(f"{base}/api/certificates", timeout=30)
        assert r.status_code == 200 and r.json()["certificates"] == [], r.text
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_wheel_installs_without_the_train_extra(installed):
    """The light install: none of the [train] packages come with the wheel, and what needs
    them says which extra to install (one line, exit 4)."""
    site = Path(_site(installed))
    for name in ("torch", "transformers", "peft", "onnx", "onnxscript"):
        assert not (site / name).exists(), name
    r = _run(installed, "train", "--out", str(installed["cwd"] / "m"))
    assert r.returncode == 4, (r.returncode, r.stderr)
    assert r.stderr.strip().count("\n") == 0 and "pip install 'sketchpad[train]'" in r.stderr
    r = _run(installed, "solve", "2+2", "--backend", "torch")
    assert r.returncode == 4 and "[train]" in r.stderr
