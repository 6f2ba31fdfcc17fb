"""Which database the registry uses: `sketchpad serve` with no options keeps the embedded
SQLite file (no database server); --db and SKETCHPAD_DB_URL take a SQLite path or a
postgresql:// URL and nothing else; a password is never shown, and a client is never told
where the database is."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest

from sketchpad.errors import InputError
from sketchpad.server.database import database_url, shown
from sketchpad.server.live import free_port
from sketchpad.server.schema import SCHEMA_VERSION
from sketchpad.server.store import CertificateStore, StoreUnavailable


def test_registry_urls_are_checked_and_passwords_never_shown():
    assert database_url("x/y.sqlite").get_backend_name() == "sqlite"
    assert database_url("postgresql://u:secret@h:5/d").drivername == "postgresql+psycopg"
    assert database_url("postgres://u@h/d").drivername == "postgresql+psycopg"
    assert "secret" not in shown(database_url("postgresql://u:secret@h:5/d"))
    for bad in ("mysql://u@h/d", "ftp://x", "postgresql+psycopg2://u@h/d", " "):
        with pytest.raises(InputError):
            database_url(bad)
    store = CertificateStore("postgresql://u:secret@127.0.0.1:1/d")  # nothing listens on port 1
    assert store.problem and "secret" not in store.problem and "cannot be used" in store.problem
    with pytest.raises(StoreUnavailable) as e:
        store.list()
    assert "secret" not in str(e.value) and "127.0.0.1" not in str(e.value)  # clients learn no address


def test_serve_with_no_options_keeps_the_sqlite_default_and_needs_no_database_server(tmp_path):
    """`sketchpad serve` as a user starts it: no --db, no SKETCHPAD_DB_URL; the registry is the
    SQLite file under the home directory, made and migrated at start."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "SKETCHPAD_DB_URL"} | {"HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "sketchpad", "serve", "--stepper", "reference", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=30)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "sketchpad serve did not become ready"
            time.sleep(0.2)
        assert health.json()["registry"] == {"engine": "sqlite", "usable": True}
        r = httpx.get(f"http://127.0.0.1:{port}/api/certificates", timeout=30)
        assert r.status_code == 200 and r.json()["certificates"] == []
        db = tmp_path / ".sketchpad" / "certificates.sqlite"
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [(f"{SCHEMA_VERSION:04d}",)]
        con.close()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert f"certificates in {tmp_path}/.sketchpad/certificates.sqlite (sqlite)" in out


def test_serve_refuses_a_database_it_cannot_use_in_one_line(capsys, monkeypatch):
    from sketchpad.cli import main

    assert main(["serve", "--db", "mysql://u@h/d"]) == 2
    assert "--db mysql://...: the registry runs on sqlite:///PATH" in capsys.readouterr().err
    monkeypatch.setenv("SKETCHPAD_DB_URL", "ftp://x")
    assert main(["serve"]) == 2
    assert "--db ftp://..." in capsys.readouterr().err
