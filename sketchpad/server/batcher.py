"""Every client's model steps, merged into shared model calls, each request on a budget.

The runtime hands a stepper one batch of views at a time and waits for its steps; a solve is
a chain of such batches (a long division is ~1,000 of them).  With one locked stepper, a
request waited for the lock once per batch behind every other request's batch, and nothing
bounded a request's time or work.  Here:

    batcher = Batcher(stepper)                 # one worker thread owns the model
    ticket = Ticket(seconds=60, forward_passes=5_000_000)
    st = TicketStepper(batcher, ticket)        # what one solve calls: stepper(views) -> steps
    solve(expr, st)

Each solve thread puts its batch on the batcher's queue and waits.  The worker takes every
waiting batch (a fair share of rows each, round-robin, so one huge batch is served in slices
between other clients' batches), runs them as ONE model call, and hands each solve its own
steps.  So requests from different clients are batched together, and a long division's
~1,000 batches interleave with everyone else's instead of holding the model for its whole
solve.  The model call sees only views (one forward pass per view, as always): which solve a
row belongs to changes nothing about its step.

A Ticket is one request's budget: a deadline (queue wait included) and an allowance of
forward passes.  TicketStepper checks both before every batch, and a waiting batch gives up
at the deadline, so a request over its budget stops with OverTime / OverWork (the server
answers 503 / 422) while every other request goes on being served.  Ticket.cancel() (the
client went away) stops a solve at its next batch.
"""

from __future__ import annotations

import collections
import math
import threading
import time

from ..errors import StepperFault


class Refused(Exception):
    """A request the server will not (or no longer) serve; `status` is its HTTP status."""

    status = 503

    def __init__(self, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class Busy(Refused):
    """Every solve slot and every queue place is taken."""


class OverTime(Refused):
    """The request ran past its time budget (waiting in the queue included)."""


class OverWork(Refused):
    """The problem needs more forward passes than one request may use."""

    status = 422


class Cancelled(Refused):
    """The client went away; nobody reads the answer."""

    status = 499


class ShuttingDown(Refused):
    pass


class Ticket:
    """One request's budget and progress.  Counters are written by the one solve thread that
    owns the ticket and read (as a snapshot) by the event loop."""

    def __init__(self, seconds: float, forward_passes: int):
        self.started = time.monotonic()
        self.seconds = float(seconds)
        self.deadline = self.started + self.seconds
        self.max_forward_passes = int(forward_passes)
        self.forward_passes = 0
        self.batches = 0
        self.views: set = set()
        self.solving_since: float | None = None  # when it left the queue
        self.expected_batches: int | None = None  # sketchpad.estimate's guess, for a percentage
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def check(self) -> None:
        if self._cancelled.is_set():
            raise Cancelled("the client closed the request")
        if self.remaining() <= 0:
            where = (
                "waiting for a free solve slot"
                if self.solving_since is None
                else f"after {self.batches:,} batches and {self.forward_passes:,} forward passes"
            )
            raise OverTime(
                f"the request ran past the server's time budget of {self.seconds:g} s per request "
                f"({where}); try again later, or solve it in the page or with `sketchpad solve`",
                retry_after=5,
            )

    def charge(self, rows: int) -> None:
        if self.forward_passes + rows > self.max_forward_passes:
            raise OverWork(
                f"the problem needs more than {self.max_forward_passes:,} forward passes, the server's "
                f"budget per request (stopped after {self.forward_passes:,}); solve it in the page or "
                f"with `sketchpad solve`, or start the server with a larger --max-forward-passes"
            )

    def progress(self) -> dict:
        now = time.monotonic()
        return {
            "batches": self.batches,
            "forward_passes": self.forward_passes,
            "distinct_views": len(self.views),
            "seconds": round(now - self.started, 3),
            "queued": self.solving_since is None,
            # Batches done over the estimate, held below 100 until the answer is there: the
            # estimate is a model of the count (sketchpad/estimate.py), not the count.
            "expected_batches": self.expected_batches,
            "percent": None
            if self.expected_batches is None
            else min(99, int(100 * self.batches / max(1, self.expected_batches))),
            "budget": {
                "seconds": self.seconds,
                "forward_passes": self.max_forward_passes,
                "seconds_used": round(now - self.started, 3),  # in seconds, as "seconds" is
                "forward_passes_used": self.forward_passes,
                # the larger of the two shares, 0..1: how close the request is to being stopped
                "share_used": round(
                    min(1.0, max((now - self.started) / self.seconds, self.forward_passes / self.max_forward_passes)), 4
                ),
            },
        }


class _Job:
    __slots__ = ("views", "ticket", "steps", "offset", "delivered", "done", "error", "abandoned")

    def __init__(self, views, ticket):
        self.views = views
        self.ticket = ticket
        self.steps = [None] * len(views)
        self.offset = 0  # rows handed to the model so far
        self.delivered = 0  # rows whose steps came back
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.abandoned = False


class Batcher:
    """One worker thread runs the stepper; callers' batches are merged into its calls."""

    def __init__(self, stepper, max_rows: int = 512, min_share: int = 64):
        self.stepper = stepper
        self.name = getattr(stepper, "name", type(stepper).__name__)
        self.max_rows = max(1, int(max_rows))
        self.min_share = max(1, min(int(min_share), self.max_rows))
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._pending: collections.deque[_Job] = collections.deque()
        self._closed = False
        self.calls = 0  # model calls made
        self.rows = 0  # forward passes made
        self.merged = 0  # calls that served more than one request
        self.most_requests = 0  # the most requests one call served
        self.busy_seconds = 0.0
        self._thread = threading.Thread(target=self._loop, name="sketchpad-batcher", daemon=True)
        self._thread.start()

    # -- the callers' side ------------------------------------------------------------------

    def step(self, views: list, ticket: Ticket | None = None) -> list:
        """The steps for `views`, computed in a shared model call; raises the ticket's
        OverTime / Cancelled if it runs out while waiting."""
        if not views:
            return []
        job = _Job(list(views), ticket)
        with self._lock:
            if self._closed:
                raise ShuttingDown("the server is shutting down")
            self._pending.append(job)
            self._wake.notify()
        while not job.done.wait(0.25 if ticket is None else max(0.0, min(0.25, ticket.remaining()))):
            if ticket is not None and (ticket.cancelled or ticket.remaining() <= 0):
                with self._lock:
                    if not job.done.is_set():
                        job.abandoned = True
                        try:
                            self._pending.remove(job)
                        except ValueError:
                            pass  # in a model call now: its steps will be dropped
                        ticket.check()  # raises Cancelled or OverTime
        if job.error is not None:
            raise job.error
        return job.steps

    def stats(self) -> dict:
        with self._lock:
            waiting = len(self._pending)
        return {
            "model_calls": self.calls,
            "forward_passes": self.rows,
            "merged_calls": self.merged,
            "most_requests_in_one_call": self.most_requests,
            "batches_waiting": waiting,
            "max_rows_per_call": self.max_rows,
            "busy_seconds": round(self.busy_seconds, 3),
        }

    def close(self, timeout: float = 10) -> None:
        with self._lock:
            self._closed = True
            for job in self._pending:
                job.error = ShuttingDown("the server is shutting down")
                job.done.set()
            self._pending.clear()
            self._wake.notify_all()
        self._thread.join(timeout)

    # -- the worker -------------------------------------------------------------------------

    def _take_round(self) -> list:
        """(job, lo, hi) slices for one model call: every waiting job gets up to a fair share
        of rows, in arrival order; a job with rows left goes to the back of the queue."""
        pending = self._pending
        live = [j for j in pending if not j.abandoned]
        quota = max(self.min_share, self.max_rows // max(1, len(live)))
        parts, rows = [], 0
        for _ in range(len(pending)):
            if rows >= self.max_rows:
                break
            job = pending.popleft()
            if job.abandoned:
                continue
            lo = job.offset
            hi = min(len(job.views), lo + quota)
            job.offset = hi
            parts.append((job, lo, hi))
            rows += hi - lo
            if hi < len(job.views):
                pending.append(job)
        return parts

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._pending and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                parts = self._take_round()
            if parts:
                self._run(parts)

    def _call(self, views: list) -> list:
        steps = self.stepper(views)
        if len(steps) != len(views):
            raise StepperFault(f"stepper returned {len(steps)} steps for {len(views)} views")
        return steps

    def _run(self, parts: list) -> None:
        views = [v for job, lo, hi in parts for v in job.views[lo:hi]]
        t = time.perf_counter()
        try:
            steps = self._call(views)
            results, at = [], 0
            for job, lo, hi in parts:
                results.append(((job, lo, hi), steps[at : at + hi - lo], None))
                at += hi - lo
        except Exception:
            # One request's views made the call fail: run each slice alone, so that only the
            # request whose views fail gets the error.
            results = []
            for part in parts:
                job, lo, hi = part
                try:
                    results.append((part, self._call(job.views[lo:hi]), None))
                except Exception as e:  # noqa: BLE001 - handed to the request it belongs to
                    results.append((part, None, e))
        self.busy_seconds += time.perf_counter() - t
        self.calls += 1
        self.rows += len(views)
        n_jobs = len({id(p[0]) for p in parts})
        self.merged += n_jobs > 1
        self.most_requests = max(self.most_requests, n_jobs)
        with self._lock:
            for (job, lo, hi), steps, error in results:
                if job.done.is_set():
                    continue
                if error is not None:
                    job.error = error
                    job.abandoned = True
                    try:
                        self._pending.remove(job)
                    except ValueError:
                        pass
                    job.done.set()
                    continue
                job.steps[lo:hi] = steps
                job.delivered += hi - lo
                if job.delivered == len(job.views):
                    job.done.set()


class TicketStepper:
    """The stepper one solve uses: the shared batcher, under the request's ticket."""

    def __init__(self, batcher: Batcher, ticket: Ticket):
        self.batcher, self.ticket = batcher, ticket
        self.name = batcher.name

    def __call__(self, views):
        t = self.ticket
        t.check()
        t.charge(len(views))
        steps = self.batcher.step(views, t)
        t.batches += 1
        t.forward_passes += len(views)
        t.views.update(views)
        return steps


def retry_after(mean_seconds: float, waiting: int, workers: int) -> int:
    """Seconds a refused client should wait: the queue ahead of it at the recent pace."""
    return int(min(60, max(1, math.ceil(mean_seconds * (waiting + 1) / max(1, workers)))))
