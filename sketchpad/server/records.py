"""What the API shows of a stored certificate: a listing's summary record, or the whole record.

A row that cannot be read (text that is not UTF-8, a body or summary that is not strict JSON,
NaN or Infinity in it, not a certificate object, a row format from a newer server, a `passed`
that is not 0 or 1) raises ValueError or TypeError here; the store skips it and reports why,
never failing a listing for it.
"""

from __future__ import annotations

from .. import strictjson
from .schema import ROW_VERSION

# What a listing shows of each row (no body), and what a whole record adds.
SUMMARY_FIELDS = ("id", "sha256", "received_at", "model_sha256", "backend", "passed", "row_version", "client")
SUMMARY_FIELDS += ("user_agent", "device", "summary")


def nested(d, *path):
    for k in path:
        d = d.get(k) if isinstance(d, dict) else None
    return d


def summary(cert: dict) -> dict:
    """The headline of a certificate (any shape: a stored row may be odd, a summary never fails)."""
    r = nested(cert, "predicate", "result")
    return {
        "backend": nested(cert, "predicate", "backend", "name"),
        "environment": nested(cert, "predicate", "environment"),
        "passed": nested(r, "passed"),
        "views": nested(r, "views"),
        "passed_views": nested(r, "passed_views"),
        "min_margin": nested(r, "min_margin"),
        "min_margin_view": nested(r, "min_margin_view"),
        "gate": nested(cert, "predicate", "adapter", "gate"),
        "finished": nested(cert, "predicate", "time", "finished"),
    }


def stored_summary(cert: dict) -> str:
    """The summary column of a new row: the headline without the environment (the device
    column holds that), as strict JSON."""
    head = {k: v for k, v in summary(cert).items() if k != "environment"}
    return strictjson.dumps(head, sort_keys=True, separators=(",", ":"))


def text(x):
    """A text column's value (SQLite hands raw bytes, decoded here one row at a time)."""
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, (bytes, memoryview)):
        return bytes(x).decode("utf-8")  # UnicodeDecodeError is a ValueError: the row is skipped
    raise TypeError(f"expected text, found {type(x).__name__}")


def _json(x, what: str):
    try:
        return strictjson.loads(text(x))
    except RecursionError:
        raise ValueError(f"the {what} is nested too deeply") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"the {what} is not UTF-8 text: {e}") from None
    except ValueError as e:
        raise ValueError(f"the {what} is not strict JSON: {e}") from None


def certificate(body) -> dict:
    if not isinstance(body, (str, bytes, memoryview)):
        raise TypeError(f"the certificate body is {type(body).__name__}, not text")
    cert = _json(body, "certificate body")
    if not isinstance(cert, dict):
        raise ValueError("the certificate body is not a JSON object")
    return cert


def record(r: dict, *, whole: bool) -> dict:
    """One stored row as the API shows it.  `r` has the columns of SUMMARY_FIELDS, and "body"
    when `whole` or when the row has no summary (formats 1 and 2): the summary is then read
    from the body.  A listing's record has "summary"; a whole record adds "certificate"."""
    version = r["row_version"] if r["row_version"] is not None else 1
    if not isinstance(version, int) or not 1 <= version <= ROW_VERSION:
        raise ValueError(
            f"row format {version!r} is not one this server reads (1..{ROW_VERSION}); written by a newer server?"
        )
    if not isinstance(r["id"], int):
        raise TypeError("no integer id")
    cert = certificate(r["body"]) if r.get("body") is not None else None
    if r["summary"] is not None:
        head = _json(r["summary"], "summary")
        if not isinstance(head, dict):
            raise ValueError("the summary is not a JSON object")
    elif cert is not None:
        head = {k: v for k, v in summary(cert).items() if k != "environment"}
    else:
        raise ValueError("the row has neither a summary nor a certificate body")
    if r["device"] is not None:
        device = _json(r["device"], "device")
    else:  # format 1: the device as the certificate itself reports it
        device = nested(cert, "predicate", "environment") if cert is not None else None
    fields = {k: text(r[k]) for k in ("sha256", "received_at", "model_sha256", "backend")}
    for k, v in fields.items():
        if not isinstance(v, str):
            raise ValueError(f"the row has no {k}")
    if r["passed"] not in (0, 1):
        raise ValueError(f"passed is {r['passed']!r}, not 0 or 1")
    out = {
        "id": r["id"],
        **fields,
        "passed": bool(r["passed"]),
        "row_version": version,
        "client": text(r["client"]),
        "user_agent": text(r["user_agent"]),
        "device": device,
        "summary": head,
    }
    if whole:
        if cert is None:
            raise ValueError("the row has no certificate body")
        out["certificate"] = cert
    return out
