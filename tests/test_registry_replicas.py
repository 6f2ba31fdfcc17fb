"""Servers as stateless replicas on one PostgreSQL, and the faults a deployment meets: the
database down or restarting (solves go on, the registry answers 503 with Retry-After and
recovers by itself), a replica killed in the middle of an upload (the whole row or none),
and a bounded load test with both faults (benchmarks/registry_load.py; the full-size run is
benchmarks/bench_registry.py).  A real PostgreSQL from Debian's package (tests/conftest.py's
pg_cluster); real `sketchpad serve` processes on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from benchmarks.registry_load import check_registry, run_load, start_replicas, upload_bodies
from sketchpad.server import Settings, create_app


@pytest.fixture(scope="module")
def honest():
    from sketchpad.model import DEFAULT_MODEL_DIR

    from policy_matrix import honest_certificate

    cert, _ = honest_certificate(DEFAULT_MODEL_DIR)
    return cert


def _variant(cert, n):
    c = json.loads(json.dumps(cert))
    c["predicate"]["environment"]["library"]["browser"] += f" replica-test/{n}"
    return c


def _app(db):
    from sketchpad.model import DEFAULT_MODEL_DIR

    return create_app(Settings(db_path=db, model_dir=DEFAULT_MODEL_DIR, stepper="reference"))


def _until(fn, timeout=120, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = fn()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"{what} did not hold within {timeout} s")


@pytest.fixture
def down(pg_cluster):
    """Stop the session's PostgreSQL when called; it is running again after the test, whatever happens."""
    yield pg_cluster.stop
    if pg_cluster.proc is None:
        pg_cluster.start()


def test_postgresql_down_solves_go_on_registry_503_then_recovers(pg_cluster, down, honest):
    db = pg_cluster.create_database("down_and_up")
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        first = c.post("/api/certificates", json=honest)
        assert first.status_code == 201, first.text
        down()
        assert c.post("/api/solve", json={"expr": "12 * 34"}).json()["result"] == "408"
        for r in (
            c.get("/api/certificates"),
            c.get(f"/api/certificates/{first.json()['id']}"),
            c.post("/api/certificates", json=_variant(honest, 1)),
        ):
            assert r.status_code == 503, r.text
            assert int(r.headers["retry-after"]) > 0 and "try again" in r.json()["error"]
            assert "127.0.0.1" not in r.json()["error"]  # clients learn no database address
        assert c.get("/api/model").status_code == 200  # the page still loads; no records shown
        assert c.get("/api/health").json()["status"] == "ready"
        pg_cluster.start()
        # No restart of the server: the pool replaces its dead connections by itself.
        listed = _until(lambda: (r := c.get("/api/certificates")).status_code == 200 and r.json(), what="recovery")
        assert [x["id"] for x in listed["certificates"]] == [first.json()["id"]]
        assert c.post("/api/certificates", json=_variant(honest, 1)).status_code == 201
        assert c.post("/api/certificates", json=honest).status_code == 200


def test_a_database_restart_between_requests_costs_no_request(pg_cluster, honest):
    """Every pooled connection is dead after the restart; each is pinged when taken from the
    pool and replaced, so the first request after it is answered as if nothing happened."""
    db = pg_cluster.create_database("restart_between")
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        first = c.post("/api/certificates", json=honest)
        assert first.status_code == 201, first.text
        for _ in range(2):
            pg_cluster.restart()
            assert c.get("/api/certificates").status_code == 200
            assert c.get(f"/api/certificates/{first.json()['id']}").status_code == 200
        assert c.post("/api/certificates", json=honest).status_code == 200


def test_a_server_started_while_postgresql_is_down_migrates_when_it_returns(pg_cluster, down, honest):
    db = pg_cluster.create_database("started_down")
    down()
    # starts: solves work, the registry waits for its database
    with TestClient(_app(db), base_url="http://127.0.0.1") as c:
        assert c.get("/api/health").json()["registry"] == {"engine": "postgresql", "usable": False}
        assert c.post("/api/solve", json={"expr": "2 + 2"}).json()["result"] == "4"
        assert c.get("/api/certificates").status_code == 503
        pg_cluster.start()
        r = _until(lambda: (r := c.post("/api/certificates", json=honest)).status_code != 503 and r, what="recovery")
        assert r.status_code == 201, r.text
        assert c.get("/api/health").json()["registry"]["usable"] is True
    assert pg_cluster.execute("started_down", "SELECT version_num FROM alembic_version") == [("0003",)]


SLOW_INSERT = """
CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(2); RETURN NEW; END $$;
CREATE TRIGGER slow AFTER INSERT ON certificates FOR EACH ROW EXECUTE FUNCTION slow_insert();
"""


def test_a_replica_killed_mid_upload_leaves_no_row_and_a_finished_one_leaves_the_whole_row(
    pg_cluster, honest, tmp_path
):
    """The kill lands after the replica's INSERT ran and before its COMMIT: a trigger on the
    table (made here, by hand) holds the transaction open while the test kills the process."""
    name = "killed_mid_upload"
    db = pg_cluster.create_database(name)
    [replica] = start_replicas(db, 1, tmp_path)
    try:
        pg_cluster.execute(name, SLOW_INSERT)
        errors = []

        def upload():
            try:
                httpx.post(f"{replica.url}/api/certificates", json=honest, timeout=60)
            except httpx.TransportError as e:
                errors.append(e)

        sender = threading.Thread(target=upload)
        sender.start()
        # pg_stat_activity: the replica's backend, inside its INSERT (the row written, not committed)
        in_insert = "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'INSERT INTO certificates%'"
        [(backend,)] = _until(lambda: pg_cluster.execute(name, in_insert), what="the upload reaching its INSERT")
        replica.kill()  # SIGKILL: no shutdown, no COMMIT
        sender.join(60)
        assert errors, "the killed replica answered"
        gone = "SELECT count(*) FROM pg_stat_activity WHERE pid = %s"
        _until(lambda: pg_cluster.execute(name, gone, (backend,)) == [(0,)], what="the orphaned transaction ending")
        assert pg_cluster.execute(name, "SELECT count(*) FROM certificates") == [(0,)]  # none of it

        pg_cluster.execute(name, "DROP TRIGGER slow ON certificates")
        replica.start()
        replica.wait_ready()
        r = httpx.post(f"{replica.url}/api/certificates", json=honest, timeout=60)
        assert r.status_code == 201 and not r.json()["duplicate"], r.text  # nothing was left behind
        whole = httpx.get(f"{replica.url}/api/certificates/{r.json()['id']}", timeout=60).json()
        assert whole["certificate"] == honest and whole["summary"]["views"] == 1436
    finally:
        replica.stop()


def test_three_replicas_under_load_with_a_killed_replica_and_a_database_restart(pg_cluster, honest, tmp_path):
    """A small run of the load benchmark: 3 replicas, 10 clients, 120 uploads (24 duplicates),
    listings between them; one replica killed and restarted at 30%, PostgreSQL restarted at
    60%.  Every acknowledged upload is present exactly once, no answer is a 500, every 503
    says when to retry.  Bounded: every request gives up after 40 attempts."""
    db = pg_cluster.create_database("load")
    replicas = start_replicas(db, 3, tmp_path)

    def kill_and_restart():
        replicas[1].kill()
        time.sleep(0.5)
        replicas[1].start()
        replicas[1].wait_ready()
        return "replica 1 killed and restarted"

    def restart_database():
        pg_cluster.restart()
        return "database restarted"

    try:
        bodies = upload_bodies(honest, distinct=96, duplicates=24, seed=7)
        tally, _, fired = run_load(
            replicas, bodies, clients=10, faults=[(0.3, kill_and_restart), (0.6, restart_database)]
        )
        assert len(fired) == 2, fired
        assert tally.failed == [], tally.failed
        assert not any(isinstance(code, int) and code >= 500 and code != 503 for _, code in tally.codes), tally.codes
        assert tally.missing_retry_after == 0
        result = check_registry(tally, replicas, distinct=96)
        assert result["problems"] == [] and result["listed"] == 96, result
        assert sum(status == 200 for *_, status in tally.acks) >= 24  # the duplicates were recognised
    finally:
        for r in replicas:
            r.stop()
        if pg_cluster.proc is None:
            pg_cluster.start()


def test_replicas_share_ids_dedupe_and_pages(pg_cluster, honest, tmp_path):
    """Nothing a request needs lives in one process: an upload to one replica is a duplicate at
    another, and a listing paged across all three in turn sees every row once."""
    db = pg_cluster.create_database("shared")
    replicas = start_replicas(db, 3, tmp_path, flag=1)  # one told by --db, two by SKETCHPAD_DB_URL
    try:
        ids = []
        for n in range(6):
            r = httpx.post(f"{replicas[n % 3].url}/api/certificates", json=_variant(honest, n), timeout=60)
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
            again = httpx.post(f"{replicas[(n + 1) % 3].url}/api/certificates", json=_variant(honest, n), timeout=60)
            assert again.status_code == 200 and again.json()["id"] == ids[-1]
        seen, before, page = [], None, 0
        while True:
            q = {"limit": 2, **({"before": before} if before else {})}
            body = httpx.get(f"{replicas[page % 3].url}/api/certificates", params=q, timeout=60).json()
            seen += [x["id"] for x in body["certificates"]]
            before, page = body["next_before"], page + 1
            if before is None:
                break
        assert seen == sorted(ids, reverse=True)
    finally:
        for r in replicas:
            r.stop()
