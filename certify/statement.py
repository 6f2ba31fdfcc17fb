"""The certificate's envelope: an in-toto Statement v1 whose subjects are the files (by sha256)
that the check covered, and whose predicate is the check itself (certify/run.py)."""

from __future__ import annotations

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://sketchpad.invalid/certificate/v2"


def statement(subjects: list[dict], predicate: dict) -> dict:
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE, "predicate": predicate}
