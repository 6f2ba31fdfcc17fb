"""The server against cross-site use: a Content-Security-Policy on every response (and one of its
own on /docs, which admits Swagger UI's inline script by hash), state-changing requests only as
application/json naming this server in Host (and Origin, when sent), and /api/model showing
every certificate as a claim beside the server's own row-independence verdict."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from fastapi.testclient import TestClient

from sketchpad.server import Settings, create_app
from sketchpad.server.guard import host_allowed
from sketchpad.server.static import CSP


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("sec") / "c.sqlite"
    app = create_app(Settings(db_path=str(db), stepper="reference", allowed_hosts=("sketchpad.example",)))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        yield c


def test_every_response_carries_the_content_security_policy(client):
    for path in ("/", "/app.js", "/api/health", "/api/views", "/model/model.json", "/nope"):
        r = client.get(path)
        assert r.headers["content-security-policy"] == CSP, path
    for part in (
        "script-src 'self' 'wasm-unsafe-eval'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ):
        assert part in CSP
    assert "unsafe-inline" not in CSP.split("style-src")[0] and "'unsafe-eval'" not in CSP
    assert client.get("/model/model.onnx").headers["cache-control"] == "no-cache"  # a republished model is seen


def test_docs_admit_only_their_own_inline_script(client):
    r = client.get("/docs")
    policy = r.headers["content-security-policy"]
    scripts = re.findall(r"<script>(.*?)</script>", r.text, re.S)
    assert scripts
    for s in scripts:
        digest = base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert "'unsafe-eval'" not in policy and "script-src 'self' 'sha256-" in policy


def _post(client, body=b'{"expr": "1 + 1"}', **headers):
    return client.post("/api/solve", content=body, headers=headers)


def test_state_changing_requests_must_be_json(client):
    assert _post(client, **{"content-type": "application/json"}).status_code == 200
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        r = _post(client, **({"content-type": ctype} if ctype else {}))
        assert r.status_code == 415 and "application/json" in r.json()["error"], ctype
    r = client.post("/api/certificates", content=b"{}", headers={"content-type": "text/plain"})
    assert r.status_code == 415


def test_state_changing_requests_must_name_this_server(client):
    ok = {"content-type": "application/json"}
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "10.0.0.7", "sketchpad.example:443"):
        assert _post(client, host=host, **ok).status_code == 200, host
    for host in ("evil.example", "127.0.0.1.evil.example:8000", "localhost.evil.example", ""):
        r = _post(client, host=host, **ok)
        assert r.status_code == 403 and "host" in r.json()["error"], host
    assert client.get("/api/health", headers={"host": "evil.example"}).status_code == 200  # reading changes nothing


def test_a_cross_origin_request_is_refused(client):
    ok = {"content-type": "application/json"}
    assert _post(client, origin="http://127.0.0.1:8000", **ok).status_code == 200
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999"):
        r = _post(client, origin=origin, **ok)
        assert r.status_code == 403 and "cross-origin" in r.json()["error"], origin


def test_host_names_a_rebinding_page_could_use_are_not_allowed():
    assert host_allowed("192.168.1.5:8000") and host_allowed("[fe80::1]:80") and host_allowed("LOCALHOST")
    assert not host_allowed("attacker.test:8000") and not host_allowed("localhost.")
    assert host_allowed("my.host", allowed=("MY.HOST",))


def test_api_model_shows_certificates_as_claims(client):
    m = client.get("/api/model").json()
    assert m["row_independence"] == {"ok": True, "code": None, "message": "", "node": None}
    assert "claims" in m["certificates_are"]
    assert set(m["certificates"]) == {"browser", "onnx", "torch", "onnx-float16", "onnx-int8"}  # variants: their own
    for name, c in m["certificates"].items():
        assert c["kind"] == "claim", name
    assert m["certificates"]["browser"]["claim"] in ("consistent",) or m["certificates"]["browser"]["claim"].startswith(
        "inconsistent ("
    )
    assert m["certificates"]["onnx"]["claim"].startswith("not checked here")
