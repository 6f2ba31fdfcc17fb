"""The certificate registry, every test on both engines: the SQLite file and PostgreSQL (the
registry_db fixture, tests/conftest.py: a real PostgreSQL server from Debian's package).

Uploads are stored once per certificate (201, then 200 with the first row, also when many
threads or two stores race); listings page through every row exactly once, newest first, as
summaries, and one whole certificate is read by id; nothing non-finite is stored; rows a
buggy writer left behind are skipped and reported, never fatal; databases of older schemas
(including a file written by the server before Alembic) are migrated without losing a row,
and one from a newer server is read where it can be.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sketchpad.server import Settings, create_app
from sketchpad.server.database import database_url, make_engine
from sketchpad.server.schema import ROW_VERSION, SCHEMA_VERSION
from sketchpad.server.store import CertificateStore, StoreUnavailable, Unreadable

DATA = Path(__file__).parent / "data"


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
def client(registry_db):
    with TestClient(_app(registry_db), base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture
def store(registry_db):
    s = CertificateStore(registry_db)
    yield s
    s.close()


def variant(cert: dict, n: int) -> dict:
    """Another honest upload: the same run as reported by another browser (another digest)."""
    c = copy.deepcopy(cert)
    c["predicate"]["environment"]["library"]["browser"] += f" run/{n}"
    return c


def _engine(db):
    return make_engine(database_url(db))


def _post_raw(c, url, text):
    return c.post(url, content=text.encode(), headers={"content-type": "application/json"})


# --- uploads: once per certificate ---------------------------------------------------------------


def test_a_certificate_is_recorded_once_and_persists(registry_db, honest):
    with TestClient(_app(registry_db), base_url="http://127.0.0.1") as c:
        r = c.post("/api/certificates", json=honest)
        assert r.status_code == 201, r.text
        first = r.json()
        assert first["backend"] == "browser" and first["passed"] is True and not first["duplicate"]
        again = c.post("/api/certificates", json=honest)
        assert again.status_code == 200, again.text  # recorded before: the first row, not a new one
        assert again.json()["duplicate"] and again.json()["id"] == first["id"]
        assert again.json()["received_at"] == first["received_at"]
        listed = c.get("/api/certificates").json()
        [row] = listed["certificates"]
        assert row["id"] == first["id"] and "certificate" not in row  # a listing shows summaries
        assert row["summary"]["views"] == 1436 and row["summary"]["passed"] is True
        assert row["device"] == honest["predicate"]["environment"]
    # a restarted server reads it from the database
    with TestClient(_app(registry_db), base_url="http://127.0.0.1") as c:
        whole = c.get(f"/api/certificates/{first['id']}")
        assert whole.status_code == 200 and whole.json()["certificate"] == honest
        assert c.post("/api/certificates", json=honest).status_code == 200


def test_the_same_certificate_racing_from_many_threads_and_two_stores_is_stored_once(registry_db):
    stores = [CertificateStore(registry_db), CertificateStore(registry_db)]  # two servers' stores
    cert = {"x": 1, "margin": 0.25}
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: stores[i % 2].add(cert, "m", "browser", True, client=f"c{i}"), range(24)))
    assert sum(not a["duplicate"] for a in answers) == 1
    assert {a["id"] for a in answers} == {answers[0]["id"]} and len({a["sha256"] for a in answers}) == 1
    first = next(a for a in answers if not a["duplicate"])
    assert {a["client"] for a in answers} == {first["client"]}  # every answer is the first row
    assert [r["id"] for r in stores[1].list()["certificates"]] == [first["id"]]


def test_the_database_itself_refuses_a_second_row_with_the_same_digest(registry_db, store):
    """The unique constraint the migrations make, not the store's look-up, is what makes uploads
    idempotent across replicas: a second row with a stored digest cannot be written at all."""
    sha = store.add({"x": 1}, "m", "browser", True)["sha256"]
    engine = _engine(registry_db)
    row = dict(sha256=sha, received_at="t", model_sha256="m", backend="browser", passed=1, body="{}")
    with pytest.raises(sa.exc.IntegrityError):
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body) "
                    "VALUES (:sha256, :received_at, :model_sha256, :backend, :passed, :body)"
                ),
                row,
            )
    engine.dispose()
    assert len(store.list()["certificates"]) == 1


def test_paging_visits_every_row_once_newest_first(registry_db, store):
    ids = [store.add({"n": i}, "a" if i % 3 else "b", "browser", i % 2 == 0)["id"] for i in range(23)]
    assert len(set(ids)) == 23

    def pages(limit, **filters):
        seen, before = [], None
        while True:
            page = store.list(limit, before=before, **filters)
            assert page["skipped"] == [] and len(page["certificates"]) <= limit
            seen += [r["id"] for r in page["certificates"]]
            before = page["next_before"]
            if before is None:
                return seen

    assert pages(5) == sorted(ids, reverse=True) == pages(23) == pages(100)
    assert pages(4, model_sha256="b") == sorted((x for i, x in enumerate(ids) if i % 3 == 0), reverse=True)
    assert pages(1, model_sha256="nothing") == []
    with TestClient(_app(registry_db), base_url="http://127.0.0.1") as c:  # the same through the API
        seen, url = [], "/api/certificates?limit=7"
        while url:
            body = c.get(url).json()
            seen += [r["id"] for r in body["certificates"]]
            url = body["next_before"] and f"/api/certificates?limit=7&before={body['next_before']}"
        assert seen == sorted(ids, reverse=True)
        assert c.get(f"/api/certificates/{ids[4]}").json()["certificate"] == {"n": 4}


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(uploads=st.lists(st.integers(0, 6), min_size=1, max_size=14), limit=st.integers(1, 5), data=st.data())
def test_uploads_with_repeats_keep_exactly_one_row_per_certificate(store, uploads, limit, data):
    model = f"model-{next(_examples)}"  # each example lists only its own rows
    answers = [store.add({"cert": n, "model": model}, model, "browser", True) for n in uploads]
    first = {}
    for n, a in zip(uploads, answers):
        assert a["duplicate"] == (n in first)
        assert a["id"] == first.setdefault(n, a["id"])
    seen, before = [], None
    while True:
        page = store.list(limit, before=before, model_sha256=model)
        seen += [(r["id"], r["sha256"]) for r in page["certificates"]]
        before = page["next_before"]
        if before is None:
            break
    assert [i for i, _ in seen] == sorted(first.values(), reverse=True)
    n = data.draw(st.sampled_from(sorted(first)))
    assert store.get(first[n])["certificate"] == {"cert": n, "model": model}


_examples = iter(range(10**9))


# --- strict JSON: nothing non-finite is stored ---------------------------------------------------


def test_a_nan_margin_in_an_honest_certificate_is_refused_and_never_stored(client, honest):
    text = json.dumps(honest)
    nan_text = re.sub(r'"margin": [0-9.]+', '"margin": NaN', text, count=1)
    assert nan_text != text
    r = _post_raw(client, "/api/certificates", nan_text)
    assert r.status_code == 400 and "NaN" in r.json()["error"]
    assert client.get("/api/certificates").json() == {"certificates": [], "skipped": [], "next_before": None}


def test_the_store_refuses_non_finite_numbers(store, honest):
    bad = copy.deepcopy(honest)
    bad["predicate"]["per_view"][0]["margin"] = float("inf")
    with pytest.raises(ValueError):
        store.add(bad, "0" * 64, "browser", True)
    assert store.list()["certificates"] == []


# --- rows a buggy or older writer left behind ------------------------------------------------


def _poison(db, honest) -> dict:
    """Rows written past the store (by hand, or by a buggy writer): {sha256: what is wrong}."""
    good = json.dumps(honest, sort_keys=True)
    rows = {
        "nan": dict(body=re.sub(r'"margin": [0-9.]+', '"margin": NaN', good, count=1)),
        "infinity": dict(body='{"a": Infinity}'),
        "not json": dict(body="{oops"),
        "a list": dict(body="[1, 2, 3]"),
        "from the future": dict(body=good, row_version=ROW_VERSION + 7),
        "passed is 7": dict(body="{}", passed=7),
        "a summary that is not json": dict(body="{}", summary="{oops"),
        "a summary that is a list": dict(body="{}", summary="[1]"),
    }
    engine = _engine(db)
    if engine.dialect.name == "sqlite":  # PostgreSQL cannot hold text that is not UTF-8
        rows["bad utf-8"] = dict(body=b"\xff\xfe{}")
    with engine.begin() as conn:
        for name, row in rows.items():
            values = dict(sha256=f"poison {name}", received_at="2026-01-01T00:00:00Z", model_sha256="m")
            values |= dict(backend="browser", passed=1, row_version=ROW_VERSION, summary=None) | row
            conn.execute(
                sa.text(
                    "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body, row_version, "
                    "summary) VALUES (:sha256, :received_at, :model_sha256, :backend, :passed, :body, :row_version, "
                    ":summary)"
                ),
                values,
            )
    engine.dispose()
    return rows


def test_poisoned_rows_are_skipped_and_reported_never_fatal(registry_db, honest, caplog):
    with TestClient(_app(registry_db), base_url="http://127.0.0.1") as c:
        good = c.post("/api/certificates", json=honest)
        assert good.status_code == 201, good.text
        n_bad = len(_poison(registry_db, honest))
        r = c.get("/api/certificates")
        assert r.status_code == 200, r.text
        body = r.json()
        assert [x["id"] for x in body["certificates"]] == [good.json()["id"]]
        assert len(body["skipped"]) == n_bad
        reasons = " ".join(s["reason"] for s in body["skipped"])
        assert "NaN" in reasons and "not strict JSON" in reasons and "not a JSON object" in reasons
        assert "newer server" in reasons and "passed" in reasons and "summary" in reasons
        if "sqlite" in registry_db:
            assert "utf-8" in reasons.lower()
        assert c.get("/api/model").status_code == 200
        assert "skipped certificate row" in caplog.text
        bad_id = body["skipped"][0]["id"]
        r = c.get(f"/api/certificates/{bad_id}")
        assert r.status_code == 404 and "cannot be read" in r.json()["error"]
        # Paging past them: every row is either listed or skipped, once.
        seen, before = [], None
        while True:
            page = c.get("/api/certificates", params={"limit": 2, **({"before": before} if before else {})}).json()
            seen += [x["id"] for x in page["certificates"]] + [x["id"] for x in page["skipped"]]
            before = page["next_before"]
            if before is None:
                break
        assert len(seen) == len(set(seen)) == n_bad + 1
    # ... and after a restart, the same: the registry stays readable, uploads still work.
    with TestClient(_app(registry_db), base_url="http://127.0.0.1") as c:
        body = c.get("/api/certificates").json()
        assert len(body["certificates"]) == 1 and len(body["skipped"]) == n_bad
        again = c.post("/api/certificates", json=honest)
        assert again.status_code == 200 and again.json()["duplicate"]
        assert c.post("/api/solve", json={"expr": "2 + 2"}).json()["result"] == "4"


# --- schemas: older ones migrate without losing a row; a newer one is read ---------------------


def test_a_database_written_by_the_server_before_alembic_loses_no_row(tmp_path):
    """tests/data/registry-main-498e9df.sqlite was written by the previous server's own store
    (tests/data/make_legacy_registry.py); the .json is what that server listed."""
    db = tmp_path / "old.sqlite"
    shutil.copy(DATA / "registry-main-498e9df.sqlite", db)
    before = json.loads((DATA / "registry-main-498e9df.json").read_text())
    store = CertificateStore(db)
    assert store.problem is None and store.schema_version == SCHEMA_VERSION
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [(f"{SCHEMA_VERSION:04d}",)]
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # what older servers read
    con.close()
    after = store.list(1000)
    assert [r["id"] for r in after["certificates"]] == [r["id"] for r in before["certificates"]]
    assert after["skipped"] == before["skipped"]
    for old, new in zip(before["certificates"], after["certificates"]):
        whole = store.get(old["id"])
        for k, v in old.items():
            assert whole[k] == v, (old["id"], k)
        assert new["summary"]["views"] == old["certificate"]["predicate"]["result"]["views"]
    added = store.add({"new": 1}, "m", "browser", True, client="127.0.0.1")
    assert added["id"] > max(r["id"] for r in before["certificates"])
    assert CertificateStore(db).list(1000)["certificates"][0]["row_version"] == ROW_VERSION


SCHEMA_1 = sa.Table(  # the first server's table, as it made it (frozen here: the migration test's input)
    "certificates",
    sa.MetaData(),
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
    sa.Column("sha256", sa.Text, nullable=False, unique=True),
    sa.Column("received_at", sa.Text, nullable=False),
    sa.Column("model_sha256", sa.Text, nullable=False),
    sa.Column("backend", sa.Text, nullable=False),
    sa.Column("passed", sa.Integer, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sqlite_autoincrement=True,
)


def test_a_database_of_the_first_schema_is_migrated_and_its_rows_read(registry_db, honest):
    engine = _engine(registry_db)
    SCHEMA_1.create(engine)
    with engine.begin() as conn:
        conn.execute(
            SCHEMA_1.insert().values(
                sha256="old",
                received_at="2025-12-01T00:00:00Z",
                model_sha256="m",
                backend="browser",
                passed=1,
                body=json.dumps(honest, sort_keys=True),
            )
        )
    engine.dispose()
    store = CertificateStore(registry_db)
    assert store.problem is None and store.schema_version == SCHEMA_VERSION
    rows = store.list()
    assert rows["skipped"] == []
    [old] = rows["certificates"]
    assert old["row_version"] == 1 and old["client"] is None
    assert old["device"] == honest["predicate"]["environment"]  # as reported in the certificate
    assert old["summary"]["views"] == 1436  # read from the body: format 1 has no summary
    assert store.get(old["id"])["certificate"] == honest
    new = store.add({"x": 1}, "m", "browser", True, client="127.0.0.1", device={"k": "v"})
    listed = store.list()["certificates"]
    assert [r["id"] for r in listed] == [new["id"], old["id"]]
    assert listed[0]["client"] == "127.0.0.1" and listed[0]["row_version"] == ROW_VERSION
    CertificateStore(registry_db)  # opening again changes nothing
    assert len(CertificateStore(registry_db).list()["certificates"]) == 2


def test_a_database_from_a_newer_server_is_read_where_it_can_be(registry_db, caplog):
    CertificateStore(registry_db).add({"x": 1}, "m", "browser", True)
    engine = _engine(registry_db)
    with engine.begin() as conn:  # what a newer server's migration could have done
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0099'"))
        conn.execute(sa.text("ALTER TABLE certificates ADD COLUMN something_new TEXT"))
    engine.dispose()
    again = CertificateStore(registry_db)
    assert again.problem is None and again.schema_version is None
    assert "newer than this server's" in caplog.text
    assert len(again.list()["certificates"]) == 1
    assert not again.add({"x": 2}, "m", "browser", True)["duplicate"]
    with _engine(registry_db).connect() as conn:  # left alone: not "downgraded"
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == "0099"


def test_a_file_that_is_not_a_database_is_a_503_not_a_crash(tmp_path):
    db = tmp_path / "garbage.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        r = c.get("/api/certificates")
        assert r.status_code == 503 and "cannot be used" in r.json()["error"] and r.headers["retry-after"]
        assert c.get("/api/certificates/1").status_code == 503
        assert c.post("/api/solve", json={"expr": "6 * 7"}).json()["result"] == "42"
        assert c.get("/api/model").status_code == 200
    with pytest.raises(StoreUnavailable):
        CertificateStore(db).list()


# --- claims: re-checked, recorded with who sent them ------------------------------------------


def test_forged_uploads_are_rechecked_and_recorded_as_claims(client, honest):
    trimmed = copy.deepcopy(honest)
    trimmed["subject"] = [s for s in trimmed["subject"] if s["name"] != "sketchpad/web/onnx_stepper.js"]
    r = client.post("/api/certificates", json=trimmed)
    assert r.status_code in (400, 422) and "onnx_stepper.js" in r.json()["error"]

    fewer = copy.deepcopy(honest)
    fewer["predicate"]["per_view"] = fewer["predicate"]["per_view"][:100]
    r = client.post("/api/certificates", json=fewer)
    assert r.status_code == 400 and "views" in r.json()["error"]

    # A forged device passes the rule (the server cannot see the sender's device): it is
    # recorded as that client's claim, with the device as reported.
    forged = copy.deepcopy(honest)
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
    assert client.post("/api/certificates", json=variant(honest, 1)).status_code == 201
    assert len(client.get("/api/certificates", params={"model_sha256": key}).json()["certificates"]) == 2
    assert client.get("/api/certificates", params={"model_sha256": "0" * 64}).json()["certificates"] == []
    recorded = client.get("/api/model").json()["recorded_certificates"]
    assert [r["client"] for r in recorded] == ["testclient"] * 2
    assert recorded[0]["environment"]["library"]["browser"].endswith("run/1") and recorded[0]["views"] == 1436


def test_one_record_by_id_answers_404_and_422_for_bad_ids(client, honest):
    rec = client.post("/api/certificates", json=honest).json()
    assert client.get(f"/api/certificates/{rec['id']}").json()["certificate"] == honest
    r = client.get(f"/api/certificates/{rec['id'] + 1000}")
    assert r.status_code == 404 and "no certificate" in r.json()["error"]
    for bad in ("0", "-1", "abc", "1.5", str(2**70)):
        r = client.get(f"/api/certificates/{bad}")
        assert r.status_code == 422 and "error" in r.json(), (bad, r.text)
    for params in ({"before": 0}, {"before": "x"}, {"before": 2**70}, {"limit": 0}, {"limit": 1001}):
        assert client.get("/api/certificates", params=params).status_code == 422


def test_unreadable_is_distinct_from_absent(registry_db, store, honest):
    assert store.get(12345) is None
    _poison(registry_db, honest)
    bad = store.list()["skipped"][0]["id"]
    with pytest.raises(Unreadable, match=f"#{bad}"):
        store.get(bad)
