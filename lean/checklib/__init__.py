"""The Lean check, in parts (lean/check.py is the command)."""
