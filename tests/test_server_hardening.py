"""The server under bad requests: NaN and Infinity, bodies over the limit (chunked too), rows
poisoned directly in the database file, databases of an older schema, forged uploads, a
database that is not a database, and /docs with no other origin.  Each gets a clean 4xx (or
a clear 503 for a broken store), and the registry stays readable."""

from __future__ import annotations

import json
import re
import socket
import sqlite3

import httpx
import pytest
from fastapi.testclient import TestClient

from sketchpad.server import Settings, create_app
from sketchpad.server.store import ROW_VERSION, SCHEMA_VERSION, CertificateStore

BAD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"]


@pytest.fixture(scope="module")
def honest():
    """An honest browser certificate of the shipped model (tests/policy_matrix.py)."""
    from sketchpad.model import DEFAULT_MODEL_DIR

    from policy_matrix import honest_certificate

    cert, _ = honest_certificate(DEFAULT_MODEL_DIR)
    return cert


def _app(db, **kw):
    from sketchpad.model import DEFAULT_MODEL_DIR

    return create_app(Settings(db_path=str(db), model_dir=DEFAULT_MODEL_DIR, stepper="reference", **kw))


@pytest.fixture
def client(tmp_path):
    with TestClient(_app(tmp_path / "certs.sqlite"), base_url="http://127.0.0.1") as c:
        yield c


def _post_raw(c, url, text):
    return c.post(url, content=text.encode(), headers={"content-type": "application/json"})


# --- NaN and Infinity ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_NUMBERS)
@pytest.mark.parametrize(
    "url, template",
    [
        ("/api/solve", '{"expr": %s}'),
        ("/api/solve", '{"expr": "1 + 1", "max_digits": %s}'),
        ("/api/solve/stream", '{"expr": "1 + 1", "max_digits": %s}'),
        ("/api/certificates", '{"_type": "x", "predicate": {"per_view": [{"margin": %s}]}}'),
    ],
)
def test_non_finite_numbers_are_a_clean_400(client, url, template, bad):
    r = _post_raw(client, url, template % bad)
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert "not a JSON number" in r.json()["error"] or "out of the range" in r.json()["error"]
    assert client.get("/api/health").json()["status"] == "ready"
    assert client.get("/api/certificates").status_code == 200


def test_nan_margin_in_an_honest_certificate_is_refused_and_never_stored(client, honest):
    text = json.dumps(honest)
    nan_text = re.sub(r'"margin": [0-9.]+', '"margin": NaN', text, count=1)
    assert nan_text != text
    r = _post_raw(client, "/api/certificates", nan_text)
    assert r.status_code == 400 and "NaN" in r.json()["error"]
    listed = client.get("/api/certificates").json()
    assert listed == {"certificates": [], "skipped": []}


def test_the_store_refuses_non_finite_numbers(tmp_path, honest):
    store = CertificateStore(tmp_path / "s.sqlite")
    bad = json.loads(json.dumps(honest))
    bad["predicate"]["per_view"][0]["margin"] = float("inf")
    with pytest.raises(ValueError):
        store.add(bad, "0" * 64, "browser", True)
    assert store.list()["certificates"] == []


def test_validation_errors_with_odd_input_stay_json(client):
    # Valid JSON that fails validation: the 422 answer echoes it, and must stay writable.
    for body in (
        {"expr": 12},
        {"expr": "1", "max_digits": 1.5},
        {"expr": "1", "max_digits": True},
        {"expr": "1", "max_digits": 0},
        {"expr": ["1"]},
        {"expr": "1", "parallel": "yes"},
    ):
        r = client.post("/api/solve", json=body)
        assert r.status_code == 422, (body, r.text)
        assert "error" in r.json()
    r = client.get("/api/certificates", params={"limit": "nan"})
    assert r.status_code == 422 and "limit" in r.json()["error"]


def test_unknown_paths_and_methods_answer_in_the_error_shape(client):
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and "error" in r.json()
    r = client.put("/api/solve", json={"expr": "1"})
    assert r.status_code == 405 and "error" in r.json()


# --- body size: declared and streamed ---------------------------------------------------------


def test_declared_oversized_body_is_413(client):
    r = client.post("/api/certificates", content=b"x" * 8_000_001, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["error"]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    from sketchpad.server.live import running

    db = tmp_path_factory.mktemp("live") / "c.sqlite"
    with running(Settings(db_path=str(db), stepper="reference", body_seconds=3.0)) as url:
        yield url


def test_chunked_10mb_body_without_length_is_413(live):
    sent = []

    def chunks():  # 10 MB in 64 kB chunks, no Content-Length: chunked encoding
        for _ in range(160):
            sent.append(1)
            yield b"x" * 65536

    r = httpx.post(
        f"{live}/api/certificates", content=chunks(), headers={"content-type": "application/json"}, timeout=120
    )
    assert r.status_code == 413, r.text
    assert "8,000,000-byte limit" in r.json()["error"]
    assert httpx.get(f"{live}/api/health", timeout=60).json()["status"] == "ready"
    assert httpx.get(f"{live}/api/certificates", timeout=60).status_code == 200


def test_chunked_nan_body_is_400(live):
    def chunks():
        yield b'{"expr": '
        yield b"NaN}"

    r = httpx.post(f"{live}/api/solve", content=chunks(), headers={"content-type": "application/json"}, timeout=60)
    assert r.status_code == 400 and "NaN" in r.json()["error"]


def test_a_body_that_never_finishes_is_408(live):
    host, port = live.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(
            b"POST /api/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"exp\r\n'
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            part = sock.recv(4096)
            if not part:
                break
            answer += part
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]


# --- the database: poisoned rows, old schemas, a broken file ---------------------------------


def _poison(db_path, honest):
    """Rows a buggy or older writer (or a hand with sqlite3) could leave behind."""
    good_body = json.dumps(honest, sort_keys=True)
    bad = [
        ("nan", re.sub(r'"margin": [0-9.]+', '"margin": NaN', good_body, count=1), ROW_VERSION),
        ("infinity", '{"a": Infinity}', ROW_VERSION),
        ("not json", "{oops", ROW_VERSION),
        ("a list", "[1, 2, 3]", ROW_VERSION),
        ("bad utf-8", b"\xff\xfe{}", ROW_VERSION),
        ("from the future", good_body, ROW_VERSION + 7),
    ]
    with sqlite3.connect(db_path) as db:
        for i, (_name, body, version) in enumerate(bad):
            db.execute(
                "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body, "
                "row_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (f"poison-{i}", "2026-01-01T00:00:00Z", "m", "browser", 1, body, version),
            )
        db.execute(
            "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body) "
            "VALUES ('poison-passed', 'x', 'm', 'browser', 'yes', '{}')"
        )
    return len(bad) + 1


def test_poisoned_rows_are_skipped_and_reported_never_fatal(tmp_path, honest, caplog):
    db = tmp_path / "certs.sqlite"
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        good = c.post("/api/certificates", json=honest)
        assert good.status_code == 201, good.text
        n_bad = _poison(db, honest)
        r = c.get("/api/certificates")
        assert r.status_code == 200, r.text
        body = r.json()
        assert [x["id"] for x in body["certificates"]] == [good.json()["id"]]
        assert len(body["skipped"]) == n_bad
        reasons = " ".join(s["reason"] for s in body["skipped"])
        assert "NaN" in reasons and "not strict JSON" in reasons and "not a JSON object" in reasons
        assert "newer server" in reasons and "utf-8" in reasons.lower() and "passed" in reasons
        assert c.get("/api/model").status_code == 200
        assert "skipped certificate row" in caplog.text
    # ... and after a restart, the same: the registry stays readable, uploads still work.
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        body = c.get("/api/certificates").json()
        assert len(body["certificates"]) == 1 and len(body["skipped"]) == n_bad
        again = c.post("/api/certificates", json=honest)
        assert again.status_code == 201 and again.json()["duplicate"]
        assert c.post("/api/solve", json={"expr": "2 + 2"}).json()["result"] == "4"


def test_a_database_of_the_first_schema_is_migrated_and_its_rows_read(tmp_path, honest):
    """A database written by the server before versions and senders were recorded."""
    from sketchpad.server.store import SCHEMA_1

    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as con:
        con.execute(SCHEMA_1)
        con.execute(
            "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body) "
            "VALUES ('old', '2025-12-01T00:00:00Z', 'm', 'browser', 1, ?)",
            (json.dumps(honest, sort_keys=True),),
        )
    store = CertificateStore(db)
    assert store.schema_version == SCHEMA_VERSION
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    rows = store.list()
    assert rows["skipped"] == []
    [old] = rows["certificates"]
    assert old["row_version"] == 1 and old["client"] is None
    assert old["device"] == honest["predicate"]["environment"]  # as reported in the certificate
    assert old["certificate"] == honest
    new = store.add({"x": 1}, "m", "browser", True, client="127.0.0.1", device={"k": "v"})
    listed = store.list()["certificates"]
    assert [r["id"] for r in listed] == [new["id"], old["id"]]
    assert listed[0]["client"] == "127.0.0.1" and listed[0]["row_version"] == ROW_VERSION
    CertificateStore(db)  # opening again changes nothing
    assert len(CertificateStore(db).list()["certificates"]) == 2


def test_a_database_from_a_newer_server_is_read_where_it_can_be(tmp_path):
    db = tmp_path / "newer.sqlite"
    store = CertificateStore(db)
    store.add({"x": 1}, "m", "browser", True)
    with sqlite3.connect(db) as con:
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
        con.execute("ALTER TABLE certificates ADD COLUMN something_new TEXT")
    again = CertificateStore(db)
    assert again.problem is None
    assert len(again.list()["certificates"]) == 1


def test_a_file_that_is_not_a_database_is_a_503_not_a_crash(tmp_path):
    db = tmp_path / "garbage.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        r = c.get("/api/certificates")
        assert r.status_code == 503 and "cannot be used" in r.json()["error"]
        assert c.post("/api/solve", json={"expr": "6 * 7"}).json()["result"] == "42"
        assert c.get("/api/model").status_code == 200


# --- forged uploads: claims, re-checked, with who sent them ---------------------------------


def test_forged_uploads_are_rechecked_and_recorded_as_claims(client, honest):
    trimmed = json.loads(json.dumps(honest))
    trimmed["subject"] = [s for s in trimmed["subject"] if s["name"] != "sketchpad/web/onnx_stepper.js"]
    r = client.post("/api/certificates", json=trimmed)
    assert r.status_code in (400, 422) and "onnx_stepper.js" in r.json()["error"]

    fewer = json.loads(json.dumps(honest))
    fewer["predicate"]["per_view"] = fewer["predicate"]["per_view"][:100]
    r = client.post("/api/certificates", json=fewer)
    assert r.status_code == 400 and "views" in r.json()["error"]

    # A forged device passes the rule (the server cannot see the sender's device): it is
    # recorded as that client's claim, with the device as reported.
    forged = json.loads(json.dumps(honest))
    forged["predicate"]["environment"]["library"]["browser"] = "Mozilla/5.0 Forged/1.0"
    r = client.post("/api/certificates", json=forged, headers={"user-agent": "forger/1"})
    assert r.status_code == 201, r.text
    rec = r.json()
    assert rec["client"] == "testclient" and rec["device"]["library"]["browser"] == "Mozilla/5.0 Forged/1.0"
    listed = client.get("/api/certificates").json()["certificates"]
    [row] = [x for x in listed if x["id"] == rec["id"]]
    assert row["client"] == "testclient" and row["user_agent"] == "forger/1"
    assert row["device"] == forged["predicate"]["environment"] and row["received_at"]
    assert len(listed) == 1  # the refused ones were never stored


def test_certificates_can_be_listed_for_one_model(client, honest):
    key = client.get("/api/model").json()["key_digests"]["onnx/model.onnx"]
    assert client.post("/api/certificates", json=honest).status_code == 201
    assert len(client.get("/api/certificates", params={"model_sha256": key}).json()["certificates"]) == 1
    assert client.get("/api/certificates", params={"model_sha256": "0" * 64}).json()["certificates"] == []
    recorded = client.get("/api/model").json()["recorded_certificates"]
    assert recorded and recorded[0]["client"] == "testclient"


# --- /docs works offline -----------------------------------------------------------------------


def _other_origins(html: str) -> list[str]:
    urls = re.findall(r"""(?:src|href|url)\s*[=:(]\s*["']?([^"' >)]+)""", html)
    return [u for u in urls if re.match(r"^(https?:)?//", u)]


def test_docs_reference_no_other_origin(client):
    r = client.get("/docs")
    assert r.status_code == 200
    assert _other_origins(r.text) == [], _other_origins(r.text)
    assert "cdn" not in r.text.lower()
    assert client.get("/redoc").status_code == 404  # ReDoc would need a CDN
    if "swagger-ui-bundle.js" in r.text:
        assert client.get("/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
        assert client.get("/vendor/swagger-ui/swagger-ui.css").status_code == 200
        assert '"validatorUrl": null' in r.text


def test_docs_without_swagger_ui_is_a_plain_page(tmp_path):
    with TestClient(_app(tmp_path / "c.sqlite", swagger_dir=tmp_path / "none"), base_url="http://127.0.0.1") as c:
        r = c.get("/docs")
        assert r.status_code == 200 and "/api/solve" in r.text and "<script" not in r.text
        assert _other_origins(r.text) == []


def test_health_reports_the_queue(client):
    h = client.get("/api/health").json()
    assert h["status"] == "ready"
    solves = h["solves"]
    assert solves["workers"] >= 1 and solves["queue"] >= 0 and solves["running"] == 0
    assert solves["budget"]["seconds"] > 0 and solves["budget"]["forward_passes"] > 0


def test_startup_waits_with_503_json_not_a_hang(tmp_path):
    app = _app(tmp_path / "c.sqlite")
    c = TestClient(app, base_url="http://127.0.0.1")  # lifespan not run: the model is "still loading"
    r = c.get("/api/health")
    assert r.status_code == 503 and r.json()["status"] == "starting" and r.headers["retry-after"]
    r = c.post("/api/solve", json={"expr": "1 + 1"})
    assert r.status_code == 503 and "starting" in r.json()["error"]
