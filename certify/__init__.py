"""The certification suite: run every view of V through a model on a backend, compare each
step with the reference stepper, and write an in-toto Statement naming what was checked.

  backends.py   the registry of backends (name -> how to get step logits for a batch of views)
  run.py        the exhaustive check, at two batch sizes
  statement.py  the in-toto Statement v1: subjects (sha256 of every file that fixes the steps)
  verify.py     re-check a certificate against the files it names (and optionally re-run it)
"""
from .backends import BACKENDS, Backend, register
from .run import PREDICATE_TYPE, certify
from .verify import verify_certificate

__all__ = ["BACKENDS", "Backend", "register", "certify", "verify_certificate", "PREDICATE_TYPE"]
