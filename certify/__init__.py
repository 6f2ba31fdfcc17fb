"""The certifier: the suite that checks a model on every view of V on this device, the one
rule that decides whether a certificate lets a model run, and the harness for the browser.

  policy.py           THE rule: does this certificate hold for this loaded model, here?
  certified.py        load a model stepper only under a certificate that holds (or certify now)
  run.py              the suite: every view of V, at two batch sizes (and thread counts)
  statement.py        the in-toto Statement envelope
  cache.py            certificates this device made for itself (user cache directory)
  verify.py           `sketchpad certify --verify`: the rule (and optionally a re-run) on a file
  browser_backend.py  the page's own suite in headless Chromium; chromium.py launches it

Installed as sketchpad.certify (pyproject.toml maps this folder into the package).
"""
