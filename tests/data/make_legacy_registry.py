"""Write tests/data/registry-main-498e9df.sqlite (+ .json): a certificate database exactly as the
server wrote it before the registry moved to SQLAlchemy and Alembic, for the migration test in
tests/test_registry.py.

The writer is that server's own store (sketchpad/server/store.py at commit 498e9df, read from
git, not retyped): a database of its first schema with one row, opened (and so migrated to
its schema 2) by it, three uploads through its `add`, and one row it cannot read.  The .json
beside it is what that store's `list()` showed: the rows the new server must still show.
Run from the repository root: python tests/data/make_legacy_registry.py
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
from pathlib import Path

COMMIT = "498e9df"
OUT = Path(__file__).parent / f"registry-main-{COMMIT}.sqlite"


def legacy_store():
    src = subprocess.check_output(["git", "show", f"{COMMIT}:sketchpad/server/store.py"], text=True)
    spec = importlib.util.spec_from_loader("sketchpad.server.store_at_" + COMMIT, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "sketchpad.server"  # its `from .. import strictjson`
    exec(compile(src, f"store.py@{COMMIT}", "exec"), mod.__dict__)
    return mod


def cert(n: int, passed: bool = True) -> dict:
    """A small certificate-shaped object (the store keeps any object; the rule is the app's)."""
    env = {"backend": "browser", "execution_provider": "wasm", "library": {"browser": f"Browser/{n}"}}
    return {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "onnx/model.onnx", "digest": {"sha256": f"{n:064x}"}}],
        "predicate": {
            "backend": {"name": "browser"},
            "environment": env,
            "adapter": {"gate": 1.0},
            "result": {"passed": passed, "views": 1436, "passed_views": 1436 if passed else 1435, "min_margin": 0.5},
            "time": {"finished": f"2026-11-0{n}T10:00:00Z"},
            "per_view": [{"view": ["ADD", "1", "2", "_"], "margin": 0.5 + n / 100}],
        },
    }


def main() -> None:
    store_mod = legacy_store()
    for p in (OUT, OUT.with_suffix(".sqlite-wal"), OUT.with_suffix(".sqlite-shm")):
        p.unlink(missing_ok=True)
    with sqlite3.connect(OUT) as db:  # the first server's schema: no versions, no senders
        db.execute(store_mod.SCHEMA_1)
        db.execute(
            "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ("f" * 64, "2025-12-01T00:00:00Z", "m" * 64, "browser", 1, json.dumps(cert(1), sort_keys=True)),
        )
    db.close()
    store = store_mod.CertificateStore(OUT)  # migrates to its schema 2
    assert store.schema_version == 2, store.problem
    store.add(
        cert(2),
        "m" * 64,
        "browser",
        True,
        client="192.0.2.7",
        user_agent="Browser/2",
        device=cert(2)["predicate"]["environment"],
    )
    store.add(cert(3, passed=False), "m" * 64, "browser", False, client="192.0.2.8", user_agent=None, device=None)
    store.add(cert(4), "k" * 64, "browser", True, client="192.0.2.9", user_agent="Browser/4", device={"k": "v"})
    with sqlite3.connect(OUT) as db:  # a row that store cannot read: skipped, before and after
        db.execute(
            "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body, row_version) "
            "VALUES ('bad', '2026-01-01T00:00:00Z', 'm', 'browser', 1, '{oops', 2)"
        )
    db.close()
    shown = store.list(1000)
    db = sqlite3.connect(OUT)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the one file
    db.close()
    OUT.with_suffix(".json").write_text(json.dumps(shown, indent=1, sort_keys=True) + "\n")
    rows, skipped = len(shown["certificates"]), len(shown["skipped"])
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes): {rows} rows, {skipped} skipped")


if __name__ == "__main__":
    main()
