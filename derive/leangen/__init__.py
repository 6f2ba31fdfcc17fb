"""The generators of lean/ (run them with `python -m derive`, jobs lean-*): the Lean printer
(lean_text), the Lean runtime mirrored in Python (mirror), the witness search (witnesses), and one
job per generated file (table, table_proc, table_div, table_sqrt, golden, corpus); derive/lean.py
lists the jobs.  They live in the derive wing and write into the Lean project, lean/."""

from pathlib import Path

LEAN = Path(__file__).resolve().parents[2] / "lean"  # the Lean project the jobs write into
