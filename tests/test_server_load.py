"""Fair under load: the batcher merges every client's batches into shared model calls, a
request over its budget stops (and only it), a full server answers 503 with Retry-After at
once, a client that goes away stops its solve, and long solves stream their progress.

Bounded in requests and time, loopback only.  Nothing here asserts on wall-clock time:
ordering is checked with steppers that block until the test lets them go, or that count.
"""

from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from sketchpad.estimate import expected_batches
from sketchpad.expr import parse
from sketchpad.reference import ReferenceStepper, reference_step
from sketchpad.server import Settings
from sketchpad.server.batcher import Batcher, OverTime, OverWork, Ticket, TicketStepper
from sketchpad.server.live import running
from sketchpad.server.service import Capacity

_rnd = random.Random(200)
LONG = f"{_rnd.randrange(10**199, 10**200)} // {_rnd.randrange(10**99, 10**100)}"  # ~1,100 batches
T = 120  # generous client timeout on a busy 2-core machine


class Recording(ReferenceStepper):
    """The reference steps, recording the size of every call; optionally slowed or gated."""

    def __init__(self, delay: float = 0.0, gate: threading.Event | None = None):
        super().__init__()
        self.delay, self.gate = delay, gate
        self.calls: list[int] = []
        self.entered = threading.Event()  # set once a call has started
        self.name = "recording"

    def __call__(self, views):
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(T)
        if self.delay:
            time.sleep(self.delay)
        self.calls.append(len(views))
        return super().__call__(views)


def _views(n, seed):
    from sketchpad import views

    rows = views.load()
    rnd = random.Random(seed)
    return [rows[rnd.randrange(len(rows))]["view"] for _ in range(n)]


# --- the batcher alone ---------------------------------------------------------------------


def test_batches_of_many_callers_share_model_calls_and_each_gets_its_own_steps():
    gate = threading.Event()
    st = Recording(gate=gate)
    b = Batcher(st, max_rows=10_000)
    try:
        jobs = [_views(1 + k % 7, k) for k in range(24)]
        with ThreadPoolExecutor(24) as pool:
            futures = [pool.submit(b.step, v) for v in jobs]
            deadline = time.monotonic() + T
            while b.stats()["batches_waiting"] < 23 and time.monotonic() < deadline:
                time.sleep(0.01)  # the first call is held at the gate; the rest queue
            gate.set()
            results = [f.result(T) for f in futures]
        for views, steps in zip(jobs, results):
            assert steps == [reference_step(v) for v in views]
        assert len(st.calls) <= 3 and sum(st.calls) == sum(map(len, jobs))  # 24 batches, 2-3 calls
        assert b.stats()["most_requests_in_one_call"] >= 20
    finally:
        b.close()


def test_a_huge_batch_is_served_in_slices_between_other_callers():
    st = Recording()
    b = Batcher(st, max_rows=100, min_share=10)
    try:
        big, small = _views(2000, 1), _views(5, 2)
        with ThreadPoolExecutor(2) as pool:
            fb = pool.submit(b.step, big)
            while not st.calls:
                time.sleep(0.001)
            fs = pool.submit(b.step, small)
            assert fs.result(T) == [reference_step(v) for v in small]
            assert fb.result(T) == [reference_step(v) for v in big]
        assert max(st.calls) <= 100  # no call over the row limit
        assert len(st.calls) >= 20
    finally:
        b.close()


def test_a_failing_batch_fails_only_its_own_request():
    class Picky(ReferenceStepper):
        name = "picky"

        def __call__(self, views):
            if any(v.op == "ODD" for v in views):
                raise RuntimeError("cannot read this view")
            return super().__call__(views)

    from sketchpad.symbols import View

    b = Batcher(Picky(), max_rows=1000)
    try:
        good, bad = _views(10, 3), [View("ODD", "_", "_", "_")]
        good = [v for v in good if v.op != "ODD"]
        with ThreadPoolExecutor(2) as pool:
            fg, fb = pool.submit(b.step, good), pool.submit(b.step, bad)
            assert fg.result(T) == [reference_step(v) for v in good]
            with pytest.raises(RuntimeError, match="cannot read"):
                fb.result(T)
    finally:
        b.close()


def test_tickets_enforce_the_work_and_time_budgets():
    b = Batcher(ReferenceStepper())
    try:
        t = Ticket(seconds=600, forward_passes=10)
        st = TicketStepper(b, t)
        st(_views(6, 4))
        with pytest.raises(OverWork, match="more than 10 forward passes"):
            st(_views(6, 5))
        t = Ticket(seconds=600, forward_passes=10**9)
        t.deadline = time.monotonic() - 1  # already over its time
        with pytest.raises(OverTime, match="time budget"):
            TicketStepper(b, t)(_views(1, 6))
    finally:
        b.close()


def test_a_waiting_batch_gives_up_at_its_deadline_and_others_go_on():
    gate = threading.Event()
    st = Recording(gate=gate)
    b = Batcher(st)
    try:
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(b.step, _views(3, 7))  # holds the model at the gate
            assert st.entered.wait(T)
            t = Ticket(seconds=0.3, forward_passes=100)
            with pytest.raises(OverTime):
                TicketStepper(b, t)(_views(2, 8))  # waits behind the gate, then gives up
            gate.set()
            assert len(first.result(T)) == 3
        assert b.step(_views(4, 9)) == [reference_step(v) for v in _views(4, 9)]
    finally:
        b.close()


# --- through the server -----------------------------------------------------------------------


def _settings(tmp_path, stepper, **capacity):
    return Settings(db_path=str(tmp_path / "c.sqlite"), stepper=stepper, capacity=Capacity(**capacity))


def _health(url):
    return httpx.get(f"{url}/api/health", timeout=T).json()["solves"]


def _wait_for(pred, what):
    deadline = time.monotonic() + T
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_full_server_answers_503_with_retry_after_at_once(tmp_path):
    gate = threading.Event()
    with running(_settings(tmp_path, Recording(gate=gate), workers=1, queue=1)) as url:
        with ThreadPoolExecutor(2) as pool:
            held = pool.submit(httpx.post, f"{url}/api/solve", json={"expr": "12 + 30"}, timeout=T)
            _wait_for(lambda: _health(url)["running"] == 1, "the first solve to start")
            queued = pool.submit(httpx.post, f"{url}/api/solve", json={"expr": "7 * 6"}, timeout=T)
            _wait_for(lambda: _health(url)["waiting"] == 1, "the second to queue")
            refused = httpx.post(f"{url}/api/solve", json={"expr": "1 + 1"}, timeout=T)  # answered, not held
            assert refused.status_code == 503, refused.text
            assert int(refused.headers["retry-after"]) >= 1
            assert "busy" in refused.json()["error"] and "--workers 1" in refused.json()["error"]
            stream = httpx.post(f"{url}/api/solve/stream", json={"expr": "1 + 1"}, timeout=T)
            assert stream.status_code == 503 and stream.headers["retry-after"]
            gate.set()
            assert held.result(T).json()["result"] == "42"
            assert queued.result(T).json()["result"] == "42"
        assert _health(url)["refused_busy"] == 2
        assert httpx.post(f"{url}/api/solve", json={"expr": "2 + 2"}, timeout=T).json()["result"] == "4"


def test_short_requests_finish_while_a_long_division_runs(tmp_path):
    """Every model call serves every waiting solve, so short problems go through between the
    long division's batches instead of waiting for its ~1,100 batches."""
    st = Recording(delay=0.002)
    with running(_settings(tmp_path, st, workers=8, queue=8)) as url:
        with ThreadPoolExecutor(9) as pool:
            long = pool.submit(httpx.post, f"{url}/api/solve", json={"expr": LONG}, timeout=T)
            _wait_for(lambda: _health(url)["batcher"]["model_calls"] > 5, "the division to start")
            rnd = random.Random(5)
            shorts = []
            for k in range(8):
                a, b = rnd.randrange(10**12), rnd.randrange(1, 10**6)
                expr, want = [(f"{a} + {b}", a + b), (f"{a} * {b}", a * b), (f"{a} - {b}", a - b)][k % 3]
                shorts.append((want, pool.submit(httpx.post, f"{url}/api/solve", json={"expr": expr}, timeout=T)))
            for want, f in shorts:
                assert f.result(T).json()["result"] == str(want)
            assert not long.done(), "the short requests waited for the long division"
            a, b = (int(x) for x in LONG.split(" // "))
            assert long.result(T).json()["result"] == str(a // b)
        batcher = _health(url)["batcher"]
        assert batcher["merged_calls"] > 0 and batcher["most_requests_in_one_call"] >= 2


def test_over_budget_requests_stop_and_others_are_served(tmp_path):
    with running(_settings(tmp_path, Recording(delay=0.01), seconds=1.0, forward_passes=2_000)) as url:
        with ThreadPoolExecutor(2) as pool:
            slow = pool.submit(httpx.post, f"{url}/api/solve", json={"expr": LONG}, timeout=T)
            r = slow.result(T)
        # ~1,100 batches at >= 10 ms each cannot fit in 1 s; 2,000 forward passes neither: whichever
        # budget it meets first stops it, with a clear answer.
        assert r.status_code in (422, 503), r.text
        assert "budget" in r.json()["error"]
        if r.status_code == 503:
            assert r.headers["retry-after"]
        assert httpx.post(f"{url}/api/solve", json={"expr": "5 * 5"}, timeout=T).json()["result"] == "25"
        assert _health(url)["over_budget"] >= 1


def test_the_forward_pass_budget_is_a_422(tmp_path):
    with running(_settings(tmp_path, ReferenceStepper(), forward_passes=500)) as url:
        r = httpx.post(f"{url}/api/solve", json={"expr": LONG}, timeout=T)
        assert r.status_code == 422 and "more than 500 forward passes" in r.json()["error"]
        assert httpx.post(f"{url}/api/solve", json={"expr": "9 + 9"}, timeout=T).json()["result"] == "18"


def test_a_problem_over_the_memory_budget_is_refused_with_its_estimate_before_it_runs(tmp_path):
    st = Recording()
    with running(_settings(tmp_path, st, memory_mb=4)) as url:
        big = {"expr": f"{'7' * 400} * {'3' * 400}"}  # ~1.1 million views presented: ~12 MB
        for path in ("/api/solve", "/api/solve/stream"):
            r = httpx.post(f"{url}{path}", json=big, timeout=T)
            assert r.status_code == 422, r.text
            d = r.json()
            assert "--max-request-memory" in d["error"] and "4 MB" in d["error"]
            assert d["budget_mb"] == 4 and d["estimated_mb"] > 4 and d["estimated_views"] > 10**6
        assert st.calls == [] and _health(url)["running"] == 0  # refused before any batch
        assert httpx.post(f"{url}/api/solve", json={"expr": "123 * 456"}, timeout=T).json()["result"] == "56088"
        assert _health(url)["budget"]["memory_mb"] == 4


def test_a_client_that_goes_away_stops_its_solve(tmp_path):
    st = Recording(delay=0.01)
    with running(_settings(tmp_path, st)) as url:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/api/solve", json={"expr": LONG}, timeout=httpx.Timeout(T, read=1.0))
        _wait_for(lambda: _health(url)["running"] == 0, "the abandoned solve to stop")
        calls = len(st.calls)
        assert calls < 1000  # it stopped long before its ~1,100 batches
        assert _health(url)["served"] == 0


def test_progress_streams_as_server_sent_events(tmp_path):
    with running(_settings(tmp_path, Recording(delay=0.003))) as url:
        events = []
        with httpx.stream("POST", f"{url}/api/solve/stream", json={"expr": LONG}, timeout=T) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            event = None
            for line in r.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    events.append((event, json.loads(line[6:])))
        kinds = [e for e, _ in events]
        assert kinds[0] == "accepted" and kinds[-1] == "result" and kinds.count("progress") >= 2
        batches = [d["batches"] for e, d in events if e == "progress"]
        assert batches == sorted(batches) and batches[-1] > 0
        a, b = (int(x) for x in LONG.split(" // "))
        result = events[-1][1]
        assert result["result"] == str(a // b) and result["batches"] >= batches[-1]
        p = [d for e, d in events if e == "progress"][-1]
        assert {"forward_passes", "distinct_views", "seconds", "budget", "percent", "expected_batches"} <= set(p)
        # The percentage: batches over the estimate made at admission, never 100 before the answer.
        percents = [d["percent"] for e, d in events if e == "progress" and not d["queued"]]
        assert percents == sorted(percents) and all(0 <= x <= 99 for x in percents)
        assert p["expected_batches"] == expected_batches(parse(LONG))

        r = httpx.post(f"{url}/api/solve/stream", json={"expr": "1 +"}, timeout=T)
        assert r.status_code == 400 and "syntax" in r.json()["error"]
        r = httpx.post(f"{url}/api/solve/stream", json={"expr": "5 // (3 - 3)"}, timeout=T)
        assert r.status_code == 200 and "event: error" in r.text and '"status":400' in r.text


def test_queued_requests_that_give_up_leave_no_slot_behind(tmp_path):
    """A request waiting in the queue can run out of time (503) or lose its client; either way
    the slots and queue places it held are free again afterwards."""
    gate = threading.Event()
    with running(_settings(tmp_path, Recording(gate=gate), workers=1, queue=3, seconds=3.0)) as url:
        with ThreadPoolExecutor(2) as pool:
            held = pool.submit(httpx.post, f"{url}/api/solve", json={"expr": "12 + 30"}, timeout=T)
            _wait_for(lambda: _health(url)["running"] == 1, "the first solve to hold the model")
            with pytest.raises(httpx.ReadTimeout):  # queued, then its client goes away
                httpx.post(f"{url}/api/solve", json={"expr": "1 + 2"}, timeout=httpx.Timeout(T, read=0.5))
            late = httpx.post(f"{url}/api/solve", json={"expr": "3 + 4"}, timeout=T)  # queued past its budget
            assert late.status_code == 503 and "time budget" in late.json()["error"]  # in the queue or at the gate
            first = held.result(T)  # stuck in the model past its own budget
            assert first.status_code == 503 and "time budget" in first.json()["error"]
        gate.set()
        _wait_for(lambda: _health(url)["running"] == 0 == _health(url)["waiting"], "the slots to free")
        assert httpx.post(f"{url}/api/solve", json={"expr": "2 + 2"}, timeout=T).json()["result"] == "4"
        assert httpx.post(f"{url}/api/solve", json={"expr": "3 * 3"}, timeout=T).json()["result"] == "9"


def test_a_request_that_waits_in_the_queue_past_its_budget_gets_503():
    import asyncio

    from sketchpad.expr import Limits
    from sketchpad.server.batcher import Busy
    from sketchpad.server.service import SolveService

    async def main():
        gate = threading.Event()
        svc = SolveService(Recording(gate=gate), Capacity(workers=1, queue=1))
        svc.start()
        try:
            first = asyncio.ensure_future(svc.run(svc.admit(), "12 + 30", Limits()))
            while svc.running == 0:
                await asyncio.sleep(0.01)
            second = svc.admit()
            with pytest.raises(Busy):
                svc.admit()  # 1 running + 1 waiting: full
            second.deadline = time.monotonic() + 0.2  # this one's budget runs out in the queue
            with pytest.raises(OverTime, match="waiting for a free solve slot"):
                await svc.run(second, "1 + 1", Limits())
            assert svc.waiting == 0 and svc.running == 1
            gate.set()
            assert (await first).value == 42
            assert svc.running == 0 and svc.waiting == 0
            assert (await svc.run(svc.admit(), "6 * 7", Limits())).value == 42
        finally:
            svc.close()

    asyncio.run(main())
