"""The generators of lean/ (run them with `python lean/gen_table.py`): the Lean printer
(lean_text), the Lean runtime mirrored in Python (mirror), the witness search (witnesses), and one
job per generated file (table, table_proc, table_div, table_sqrt, golden)."""
