"""Admission and execution of solves: a bounded number at once, a bounded queue, a budget each.

    service = SolveService(stepper, Capacity(workers=64, queue=128, seconds=120, ...))
    service.start()                              # in the server's lifespan (event loop running)
    ticket = service.admit()                     # raises Busy (503 + Retry-After) when full
    solution = await service.run(ticket, expr, limits, parallel=True)

`workers` solves run at once, each on its own thread; their batches meet in one Batcher, so
they share model calls rather than take turns.  Up to `queue` more wait for a slot; beyond
that a request is refused at once with 503 and a Retry-After estimate, never left hanging.
Every request carries a Ticket: its deadline counts from admission (queue wait included) and
its forward passes are capped, so one huge problem cannot hold the server.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import time
from dataclasses import dataclass, field, fields

from ..errors import InputError
from ..solve import solve
from ..steppers import certificate_of
from .batcher import Batcher, Busy, OverTime, ShuttingDown, Ticket, TicketStepper, retry_after


def _flag(flag: str, metavar: str, help: str) -> dict:
    """What `sketchpad serve` offers for a Capacity field (its flags are generated from them)."""
    return {"flag": flag, "metavar": metavar, "help": help}


@dataclass
class Capacity:
    """How the server shares its model: one home for each figure, its default and its
    `sketchpad serve` flag (sketchpad/commands/serve.py generates the flags from these fields)."""

    workers: int = field(
        default=64,
        metadata=_flag("--workers", "N", "solves in progress at once, their batches merged into shared model calls"),
    )
    queue: int = field(
        default=128, metadata=_flag("--queue", "N", "requests that may wait for a free slot; more are refused with 503")
    )
    seconds: float = field(
        default=120.0, metadata=_flag("--timeout", "SECONDS", "time budget of one request, queue wait included")
    )
    forward_passes: int = field(
        default=5_000_000, metadata=_flag("--max-forward-passes", "N", "forward-pass budget of one request")
    )
    max_rows: int = field(
        default=512, metadata=_flag("--max-batch-rows", "N", "most views in one model call (a bigger batch is sliced)")
    )
    memory_mb: int = field(
        default=1024,
        metadata=_flag(
            "--max-request-memory",
            "MB",
            "memory budget of one request: a problem whose estimate (sketchpad/estimate.py) is over it is "
            "refused with 422 before it runs",
        ),
    )

    def check(self) -> Capacity:
        for f in fields(self):
            v, flag = getattr(self, f.name), f.metadata["flag"]
            if f.type in ("float", float):
                if isinstance(v, bool) or not (isinstance(v, (int, float)) and 0 < v < 1e6):
                    raise InputError(f"{flag} must be a number of seconds > 0, got {v!r}")
            elif isinstance(v, bool) or not isinstance(v, int) or v < (0 if f.name == "queue" else 1):
                raise InputError(f"{flag} must be an integer >= {0 if f.name == 'queue' else 1}, got {v!r}")
        return self


class SolveService:
    def __init__(self, stepper, capacity: Capacity):
        self.stepper = stepper
        self.capacity = capacity.check()
        self.batcher: Batcher | None = None
        self.executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._started = False
        self._waiters: collections.deque = collections.deque()  # futures of requests waiting for a slot
        self.running = 0
        self.waiting = 0
        self.served = 0
        self.refused = 0
        self.over_budget = 0
        self._mean = 1.0  # recent mean seconds per solve (for Retry-After)

    def start(self) -> None:
        c = self.capacity
        self.batcher = Batcher(self.stepper, max_rows=c.max_rows)
        self.executor = concurrent.futures.ThreadPoolExecutor(c.workers, thread_name_prefix="sketchpad-solve")
        self._started = True

    def close(self) -> None:
        if self.batcher is not None:
            self.batcher.close()
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

    @property
    def name(self) -> str:
        return getattr(self.stepper, "name", type(self.stepper).__name__)

    def stats(self) -> dict:
        c = self.capacity
        return {
            "workers": c.workers,
            "queue": c.queue,
            "running": self.running,
            "waiting": self.waiting,
            "served": self.served,
            "refused_busy": self.refused,
            "over_budget": self.over_budget,
            "budget": {"seconds": c.seconds, "forward_passes": c.forward_passes, "memory_mb": c.memory_mb},
            "batcher": self.batcher.stats() if self.batcher else None,
        }

    def retry_after(self) -> int:
        return retry_after(self._mean, self.waiting, self.capacity.workers)

    def admit(self) -> Ticket:
        """A ticket for a new request, or Busy when every slot and queue place is taken."""
        c = self.capacity
        if not self._started:
            raise ShuttingDown("the server is not ready yet", retry_after=2)
        if self.running + self.waiting >= c.workers + c.queue:
            self.refused += 1
            raise Busy(
                f"the server is busy: {self.running} solves running and {self.waiting} waiting, the most it "
                f"takes (--workers {c.workers}, --queue {c.queue}); try again in a few seconds",
                retry_after=self.retry_after(),
            )
        self.waiting += 1
        return Ticket(c.seconds, c.forward_passes)

    async def run(self, ticket: Ticket, expr: str, limits, parallel: bool = True):
        """Wait for a slot (within the ticket's deadline), then solve on a worker thread."""
        try:
            await self._take_slot(ticket)
        finally:
            self.waiting -= 1
        ticket.solving_since = time.monotonic()
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self.executor, self._solve, ticket, expr, limits, parallel)
        fut.add_done_callback(self._finished)  # the slot is free when the thread is, not before
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            ticket.cancel()  # the thread stops at its next batch
            raise

    # Slots are counted on the event loop's thread only (admit, run and the done callbacks all
    # run there), so no lock is needed; a freed slot goes to the longest-waiting request.

    async def _take_slot(self, ticket: Ticket) -> None:
        if self.running < self.capacity.workers and not self._waiters:
            self.running += 1
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            done, _ = await asyncio.wait({waiter}, timeout=max(0.0, ticket.remaining()))
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # handed a slot just as the client left: pass it on
            else:
                waiter.cancel()
            raise
        finally:
            if not waiter.done():
                waiter.cancel()
            try:
                self._waiters.remove(waiter)
            except ValueError:
                pass
        if not done:
            self.over_budget += 1
            ticket.check()  # raises OverTime ("waiting for a free solve slot")
            raise OverTime("the request waited past its time budget", retry_after=self.retry_after())

    def _release(self) -> None:
        while self._waiters:
            w = self._waiters.popleft()
            if not w.done():
                w.set_result(None)  # the slot passes to it: running stays the same
                return
        self.running -= 1

    def _finished(self, fut) -> None:
        self._release()
        if not fut.cancelled():
            e = fut.exception()  # retrieved here, so never "never retrieved"
            if e is None:
                self.served += 1
            elif isinstance(e, OverTime) or getattr(e, "status", None) == 422:
                self.over_budget += 1

    def _solve(self, ticket: Ticket, expr: str, limits, parallel: bool):
        t = time.monotonic()
        sol = solve(expr, TicketStepper(self.batcher, ticket), limits=limits, parallel=parallel)
        sol.certificate = certificate_of(self.stepper)  # the batcher runs self.stepper's steps
        self._mean = 0.8 * self._mean + 0.2 * (time.monotonic() - t)
        return sol
