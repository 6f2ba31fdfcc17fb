"""The derive wing: everything generated from the specification (the reference stepper, the
expression parser, the certificate rule), written by one command and checked by one test.

    python -m derive                 # rewrite every derived file that changed
    python -m derive --check         # exit 1 naming each stale file, 0 when all are fresh
    python -m derive golden js       # only these jobs (`python -m derive --list` names them)

A developer tool of the checkout: not a package of the wheel (pyproject.toml lists the packages;
tests/test_wheel.py checks).  Imports go one way: derive imports sketchpad, never the reverse
(a lint-imports contract).  The jobs are listed in derive/jobs.py, the runner is derive/runner.py;
this file imports nothing, so `from derive.golden import trace` loads only what it needs.
"""
