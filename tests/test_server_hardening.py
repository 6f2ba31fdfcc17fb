"""The server under bad requests: NaN and Infinity, bodies over the limit (chunked too), and
/docs with no other origin.  Each gets a clean 4xx, and the registry stays readable.  The
registry's own bad cases (poisoned rows, old schemas, forged uploads, a database that is not
a database or is down) are in tests/test_registry.py and tests/test_registry_replicas.py, on
both engines."""

from __future__ import annotations

import re
import socket

import httpx
import pytest
from fastapi.testclient import TestClient

from sketchpad.server import Settings, create_app

BAD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"]


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
