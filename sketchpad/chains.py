"""Following emitted states along columns, for many rows at once (numpy only).

A carry-select scan presents every column j of a row under every state k; the stepper's step
for (j, k) names the state column j + 1 is entered in: its *class*, an index k' >= 0, or a
negative code that ends the scan there.  Following a row is then a chain: the class of column
0's step (presented under its real state) gives column 1's state, whose step's class gives
column 2's state, and so on.  It decides nothing about symbols: it only looks up what the
steps said.

Columns come in few *kinds* (a kind is the pair of symbols a column shows: every column of
that kind presents the same views, so its steps and classes are the same), so the classes are
a small table classes[kind, state] and each row a list of its columns' kinds.  Two ways to
follow, the same answer (tests/test_chains.py): when every kind's classes are constant (a
carry the column generates or kills whatever comes in) or the identity (it propagates),
except a few columns, a chain is a running "last reset" (a cumulative maximum) with one more
round per other column; otherwise blocks of columns, each block's exit under every state at
once, then the blocks in order.
"""

from __future__ import annotations

import numpy as np

HALTS, OUTSIDE, MISS = -1, -2, -3  # the step halts the scan; it names a state outside the family; no step
ROUNDS = 6  # at most this many irregular columns per row before the loop is cheaper
TAIL = 8  # columns walked on from an irregular column before another round
SMALL = 64  # rows of at most this many columns: a plain Python walk is cheaper than numpy
WALKED = 4096  # irregular chains of at most this many columns in all: walked in Python too
LONG = 512  # rows longer than this: a Python loop over rows costs less than one more pass over all columns
ODD, CONST = 256, 512  # (in follow's codes of kinds: CONST is the highest bit)
STOP = -100  # (inside _blocks) a column past a row's length: the walk stops before it
COMPILED = 1 << 12  # batches of at least this many columns: the compiled loops (compiled.py)
BIG = 1 << 22  # gathers of more indices than this by indexing (np.take first copies them whole as intp)


def gather(table: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """np.take(table, idx) (table flattened): np.take up to BIG indices (faster there), indexing
    above (it casts them in chunks: no intp copy of hundreds of MB, fresh memory slow to touch)."""
    return np.take(table, idx) if idx.size <= BIG else table.ravel()[idx]


def long_enough(columns: int) -> bool:
    """Whether a batch of this many columns goes through the compiled loops (numba: loaded on the
    first such batch, ~0.4 s once a process; below, numpy passes cost less than that load)."""
    return columns >= COMPILED


_BLANKS = np.full(0, -1, dtype=np.int32)


def blanks(n: int) -> np.ndarray:
    """n never-written columns (-1): a read-only view of one array, none made per row."""
    global _BLANKS
    if len(_BLANKS) < n:
        _BLANKS = np.full(max(n, 2 * len(_BLANKS), 4096), -1, dtype=np.int32)
        _BLANKS.flags.writeable = False
    return _BLANKS[:n]


class Chains:
    """S rows to follow.  classes[k, s]: class of a kind-k column's step under state s (states
    past a row's own are never entered); kinds[r, j-1]: the kind of row r's column j >= 1;
    first[r]: the class of its column 0's step; lengths[r]: its number of columns."""

    def __init__(self, classes: np.ndarray, kinds: np.ndarray, first, lengths):
        self.classes = classes
        self.kinds = kinds
        self.first = np.asarray(first, dtype=np.int16)
        self.lengths = np.asarray(lengths, dtype=np.int64)


def follow(ch: Chains):
    """(states, last, term): states[r, j] the state row r's column j was entered in (-1 for
    column 0 and past the end), last[r] the last column whose class was read and term[r] that
    class (>= 0 when the row ran out of columns without ending)."""
    S, L = len(ch.first), int(ch.lengths.max()) if len(ch.first) else 0
    if S == 0:
        return np.zeros((0, 0), dtype=np.int8), np.zeros(0, dtype=np.int64), ch.first
    ch = Chains(ch.classes, ch.kinds[:, : L - 1], ch.first, ch.lengths)
    if L <= SMALL:
        return _walk(ch, L)
    cls = ch.classes
    n = cls.shape[1]
    const = (cls == cls[:, :1]).all(axis=1)
    ident = (cls == np.arange(n, dtype=cls.dtype)).all(axis=1)
    odd = ~(const | ident)
    # each column's kind as one code (one gather): its class under state 0 (+ 128: any int8), ODD, CONST
    table = (cls[:, 0].astype(np.int16) + 128) | (odd.astype(np.int16) * ODD) | (const.astype(np.int16) * CONST)
    code = gather(table, ch.kinds)
    if not odd.any():
        return _resets(ch, L, code)
    irregular = np.zeros((S, L), dtype=bool)  # irregular[r, j]: column j of row r (j < its length) is
    np.not_equal(code & ODD, 0, out=irregular[:, 1:])
    short = np.flatnonzero(ch.lengths < L)
    if L > LONG:
        for r in short.tolist():
            irregular[r, ch.lengths[r] :] = False
    else:
        irregular &= np.arange(L) < ch.lengths[:, None]
    if int(np.count_nonzero(irregular, axis=1).max()) > ROUNDS:
        return _walk(ch, L) if S * L <= WALKED else _blocks(ch, L)
    return _resets(ch, L, code, irregular)


def _walk(ch: Chains, L: int):
    """The chains one by one, in Python (short rows)."""
    S = len(ch.first)
    cls, kinds = ch.classes.tolist(), ch.kinds.tolist()
    states = np.full((S, L), -1, dtype=np.int8)
    last = np.zeros(S, dtype=np.int64)
    term = ch.first.copy()
    for r in range(S):
        cur, j, n, kind, path = int(ch.first[r]), 0, int(ch.lengths[r]), kinds[r], []
        while cur >= 0 and j + 1 < n:
            j += 1
            path.append(cur)
            cur = cls[kind[j - 1]][cur]
        states[r, 1 : j + 1] = path
        last[r], term[r] = j, cur
    return states, last, term


def _loop(ch: Chains, L: int):
    S = len(ch.first)
    n = ch.classes.shape[1]
    flat = ch.classes.reshape(-1).astype(np.int16)
    kinds = ch.kinds
    cur = ch.first.copy()
    last = np.zeros(S, dtype=np.int64)
    states = np.full((S, L), -1, dtype=np.int8)
    act = np.flatnonzero(cur >= 0)
    for j in range(1, L):
        act = act[ch.lengths[act] > j]
        if len(act) == 0:
            break
        s = cur[act]
        states[act, j] = s
        c = flat[kinds[act, j - 1] * n + s]
        cur[act] = c
        last[act] = j
        act = act[c >= 0]
    return states, last, cur


def _blocks(ch: Chains, L: int):
    """Long chains with many irregular columns (a product's partial rows), in blocks of B
    columns: every block's exit under every entry state (B steps, all rows, blocks and states
    at once), then the blocks in order (a step a block), then each block walked from its entry
    state (B steps, all rows and blocks at once)."""
    S, (K, n) = len(ch.first), ch.classes.shape
    C = L - 1  # column j >= 1 reads kinds[:, j - 1]; c = j - 1 below
    B = max(4, int((C / 2) ** 0.5))
    nb = C // B + 1  # at least one padding column: every walk ends inside the blocks
    table = np.full((K + 1) * n, STOP, dtype=np.int16)  # kind K: a column the row does not have
    table[: K * n] = ch.classes.reshape(-1)
    kinds = np.full((S, nb * B), K, dtype=np.int32)
    kinds[:, :C] = ch.kinds[:, :C]
    kinds[np.arange(nb * B) >= ch.lengths[:, None] - 1] = K
    kinds *= n
    kb = kinds.reshape(S, nb, B)
    out = np.empty((S, nb, n), dtype=np.int16)  # 1. each block's exit under each entry state
    out[:] = np.arange(n, dtype=np.int16)
    for t in range(B):
        np.copyto(out, np.take(table, kb[:, :, t, None] + np.maximum(out, 0)), where=out >= 0)
    rows = np.arange(S)
    entry = np.empty((S, nb), dtype=np.int16)  # 2. the state each block is entered in
    cur = ch.first.astype(np.int16)
    for b in range(nb):
        entry[:, b] = cur
        cur = np.where(cur >= 0, out[rows, b, np.maximum(cur, 0)], cur)
    states = np.full((S, nb, B), -1, dtype=np.int8)  # 3. each block walked: the state entering column c + 1
    end_t = np.full((S, nb), -1, dtype=np.int64)
    end_v = np.zeros((S, nb), dtype=np.int16)
    cur = entry
    for t in range(B):
        live = cur >= 0
        states[:, :, t] = np.where(live, cur, -1)
        nxt = np.take(table, kb[:, :, t] + np.maximum(cur, 0))
        ends = live & (nxt < 0)
        end_t[ends] = t
        end_v[ends] = nxt[ends]
        cur = np.where(live, nxt, cur)
    states = states.reshape(S, nb * B)
    b = np.argmax(end_t >= 0, axis=1)  # the one block where each walk ended
    c = b * B + end_t[rows, b]
    v = end_v[rows, b]
    stopped = v == STOP  # column c + 1 is past the row: it ran out of columns at c
    last = np.where(stopped, c, c + 1)
    term = np.where(stopped, states[rows, np.maximum(c, 0)], v).astype(np.int16)
    states[rows[stopped], c[stopped]] = -1
    never = ch.first < 0  # (no column entered)
    last[never], term[never] = 0, ch.first[never]
    full = np.full((S, L), -1, dtype=np.int8)
    full[:, 1:] = states[:, :C]
    return full, last.astype(np.int64), term


def _resets(ch: Chains, L: int, code: np.ndarray, pending=None):
    """The class at column j is the value of the last column at or before j that resets it
    (column 0: its own class; a constant column: its constant; a resolved irregular column:
    its class under the state it was entered in); identity columns pass it on (`_fill`).
    code: each column's kind as `follow` codes it; pending: the irregular columns (S x L), which
    reset only once resolved (past a row's length a column's reset reaches no column of it)."""
    S = len(ch.first)
    cls = ch.classes
    rows = np.arange(S)
    val = np.empty((S, L), dtype=np.int8)
    val[:, 0] = ch.first
    val[:, 1:] = code  # (the low byte: class + 128, wrapped)
    val[:, 1:] ^= np.int8(-128)
    reset = np.empty((S, L), dtype=bool)
    reset[:, 0] = True  # column 0 always resets: a pass never crosses rows
    np.greater_equal(code, CONST, out=reset[:, 1:])
    while True:
        at = _fill(val, reset)  # class of the followed step at each column
        ends = at < 0
        # the first column that ends (columns past a row's length count only if none inside ends)
        t = ends.argmax(axis=1)
        t[~ends[rows, t]] = L
        np.minimum(t, ch.lengths, out=t)
        if pending is None:
            break
        j_irr = pending.argmax(axis=1)
        j_irr[~pending[rows, j_irr]] = L
        need = np.flatnonzero(j_irr <= np.minimum(t, ch.lengths - 1))
        if len(need) == 0:
            break
        # Walk on from each row's first irregular column, a few columns, exactly: a scan's
        # irregular columns are usually its last ones (where a carry may still be written).
        seg, j = need, j_irr[need]
        state = at[seg, j - 1]  # >= 0: nothing ended before j
        for _ in range(TAIL):
            c = cls[ch.kinds[seg, j - 1], state]
            at[seg, j] = val[seg, j] = c
            reset[seg, j] = True
            pending[seg, j] = False
            stop = (c < 0) | (j >= ch.lengths[seg] - 1)
            t[seg[stop]] = np.where(c[stop] < 0, j[stop], ch.lengths[seg[stop]])
            seg, j, state = seg[~stop], j[~stop] + 1, c[~stop]
            if len(seg) == 0:
                break
        if len(seg) == 0:
            break  # every walk ended: `at` and `t` are exact
    last = np.minimum(t, ch.lengths - 1)
    term = at[rows, last].astype(np.int16)
    states = np.empty((S, L), dtype=np.int8)
    states[:, 0] = -1
    states[:, 1:] = at[:, :-1]
    if L > LONG:  # on the path: columns 1..last
        for r, k in enumerate(last.tolist()):
            states[r, k + 1 :] = -1
    else:
        np.putmask(states, np.arange(L) > last[:, None], -1)
    return states, last, term


def _fill(val: np.ndarray, reset: np.ndarray) -> np.ndarray:
    """val at the reset columns, elsewhere the value of the row's last reset column before
    (column 0 of every row resets).  Few columns pass a value on (an addition's 9s): each run
    of them reads the column before it; many: a running maximum of keys (column << 8 | value
    as a byte) along each row carries the last reset's value in its low byte."""
    at = val.copy()
    passing = np.flatnonzero(~reset)
    if len(passing) == 0:
        return at
    S, L = val.shape
    if 4 * len(passing) <= val.size:
        flat = at.reshape(-1)
        head = np.take(reset.reshape(-1), passing - 1)  # a run's first column: a reset before it
        run = np.multiply(head, _COLUMNS[: len(passing)] if len(passing) <= len(_COLUMNS) else np.arange(len(passing)))
        np.maximum.accumulate(run, out=run)  # each column's run's first column, in `passing`
        flat[passing] = flat[np.take(passing, run) - 1]
        return at
    key = val.astype(np.int32 if L < 1 << 23 else np.int64)
    key &= 255
    key |= _shifted(L)
    key *= reset
    np.maximum.accumulate(key, axis=1, out=key)
    return key.astype(np.int8)


def follow_row(first: int, classes: np.ndarray, kinds: np.ndarray | None, length: int):
    """One row's chain (a scan of a speculative block), as `follow` for S = 1: (states of
    columns 0..last, last, term).  kinds None: column j's kind is j - 1 (a class per column)."""
    L, n = length, classes.shape[1]
    if kinds is None:
        kinds = _COLUMNS[: L - 1] if L - 1 <= len(_COLUMNS) else np.arange(L - 1)
        per_column = classes[: L - 1]
    else:
        per_column = None
    if L <= SMALL or n > 2:
        states, last, term = follow(Chains(classes, kinds[None, : L - 1], [first], [L]))
        return states[0, : int(last[0]) + 1], int(last[0]), int(term[0])
    if per_column is None:
        per_column = classes[kinds[: L - 1]]
    val = np.empty(L, dtype=np.int16)
    val[0] = first
    val[1:] = per_column[:, 0]
    if n == 1:
        reset, pending = None, []
    else:
        c0, c1 = per_column[:, 0], per_column[:, 1]
        reset = np.empty(L, dtype=bool)
        reset[0] = True
        np.equal(c0, c1, out=reset[1:])  # constant: the column resets the state
        odd = (c0 != 0) | (c1 != 1)  # not the identity...
        odd &= ~reset[1:]  # ...and not constant: irregular
        pending = (np.flatnonzero(odd) + 1).tolist()
        if len(pending) > ROUNDS:
            states, last, term = _loop(Chains(classes, kinds[None, : L - 1], [first], [L]), L)
            return states[0, : int(last[0]) + 1], int(last[0]), int(term[0])
    idx = np.empty(L, dtype=np.int32)
    while True:
        if reset is None:
            at = val
        else:
            np.multiply(reset, _COLUMNS[:L] if L <= len(_COLUMNS) else np.arange(L), out=idx)
            np.maximum.accumulate(idx, out=idx)
            at = val[idx]  # class of the followed step at each column
        ends = np.flatnonzero(at < 0)
        end = int(ends[0]) if len(ends) else L
        if not pending or pending[0] > min(end, L - 1):
            break
        j = pending.pop(0)  # an irregular column the chain reaches: its class under its state
        val[j] = classes[kinds[j - 1], at[j - 1]]
        reset[j] = True
    last = min(end, L - 1)
    states = np.empty(last + 1, dtype=np.int16)
    states[0] = -1
    states[1:] = at[:last]
    return states, last, int(at[last])


_COLUMNS = np.arange(1 << 16, dtype=np.int32)  # column indices, sliced (no arange per row)
_SHIFTED: list = [np.zeros(0, dtype=np.int32)]  # column << 8 for columns 0..n-1, read-only, kept


def _shifted(n: int) -> np.ndarray:
    """(0..n-1) << 8, as one kept array (int32; int64 from column 2**23): each level of a
    product's sum reads its prefix."""
    if len(_SHIFTED[0]) < n:
        m = max(n, 2 * len(_SHIFTED[0]))
        a = np.arange(m, dtype=np.int32 if m <= 1 << 23 else np.int64) << 8
        a.flags.writeable = False
        _SHIFTED[0] = a
    return _SHIFTED[0][:n]
