"""The no-sheet baseline: the default model's backbone, trained to map a whole problem
"a+b=" / "a*b=" straight to its answer digits (no sheet, no runtime, no views).

Modules: data (problems as characters, answers reversed), model (the same Qwen3.5-family
config and tokenizer as the shipped base LM; greedy decoding), train (the loop, with the
compute budget it spends), evaluate (exact match by operand length, next to Sketchpad's
accuracy on exactly the same problems, and the plot).
"""

from pathlib import Path

DEFAULT_BASELINE_DIR = Path(__file__).resolve().parent.parent / "data" / "baseline"
