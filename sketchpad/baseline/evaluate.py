"""Exact-match accuracy by operand length, for the baseline and for Sketchpad, on exactly the
same problems; the Markdown table, the JSON results and the plot.

A predictor is any function  list[(a, op, b)] -> list[int | None]  (None = no answer: the
model wrote something that is not a number, or the solve failed).  Exact match = the
predicted integer equals Python's.
"""

from __future__ import annotations

import json
import platform
import time
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

from ..digest import sha256_file
from ..errors import SketchpadError
from ..model import DEFAULT_MODEL_DIR
from ..model.environment import machine
from ..solve import solve
from ..steppers import get
from . import data

OP_NAMES = {"+": "add", "*": "mul"}


def exact_match(
    predict, problems, batch_key=lambda p: (p[1], len(str(p[0]))), progress: bool = False, desc: str = ""
) -> dict:
    """{(op, n): {"correct", "n", "accuracy"}} for problems grouped by operation and operand
    length; `predict` is called once per group (so a group is one batch)."""
    groups = defaultdict(list)
    for p in problems:
        groups[batch_key(p)].append(p)
    out = {}
    for key in tqdm(sorted(groups), desc=desc, unit="length", disable=not progress):
        ps = groups[key]
        preds = predict(ps)
        if len(preds) != len(ps):
            raise ValueError(f"predictor returned {len(preds)} answers for {len(ps)} problems")
        ok = sum(1 for (a, op, b), y in zip(ps, preds) if y is not None and y == data.answer(a, op, b))
        out[key] = {"correct": ok, "n": len(ps), "accuracy": ok / len(ps)}
    return out


def baseline_predictor(model, codec, reverse_operands: bool = False):
    """Greedy decoding of the baseline; problems of one group share their prompt length."""
    from .model import greedy_answers  # lazy: the baseline model imports torch, the [train] extra

    def predict(ps):
        by_len = defaultdict(list)
        for k, (a, op, b) in enumerate(ps):
            by_len[len(data.prompt(a, op, b))].append(k)
        out = [None] * len(ps)
        for ks in by_len.values():
            a0, op0, b0 = ps[ks[0]]
            longest = len(str(a0)) + len(str(b0)) if op0 == "*" else max(len(str(a0)), len(str(b0))) + 1
            texts = greedy_answers(model, codec, [data.prompt(*ps[k], reverse_operands) for k in ks], longest + 2)
            for k, t in zip(ks, texts):
                out[k] = data.decode_answer(t)
        return out

    return predict


def sketchpad_predictor(stepper, parallel: bool = True):
    """Sketchpad: `solve("a+b")` / `solve("a*b")` with the given stepper."""

    def predict(ps):
        out = []
        for a, op, b in ps:
            try:
                out.append(solve(f"{a}{op}{b}", stepper, parallel=parallel).value)
            except SketchpadError:
                out.append(None)
        return out

    return predict


def load_sketchpad_stepper():
    """(stepper, None, status) for the shipped default model, certified on this device the way
    every command gets it (sketchpad.steppers.get), or (None, reason, None)."""

    if not (DEFAULT_MODEL_DIR / "meta.json").is_file():
        return None, f"not yet available (no default model at {DEFAULT_MODEL_DIR})", None

    try:
        st = get("model")
    except SketchpadError as e:
        return None, f"not available: {e}", None
    return st, None, f"certified ({st.backend}, certificate {st.certificate['source']})"


def rows_of(problems, base_acc: dict, sp_acc: dict | None) -> list[dict]:
    rows = []
    for op, n in sorted({(op, len(str(a))) for a, op, b in problems}, key=lambda k: (k[0] != "+", k[1])):
        b = base_acc[(op, n)]
        s = sp_acc.get((op, n)) if sp_acc else None
        rows.append(
            {
                "op": OP_NAMES[op],
                "length": n,
                "n": b["n"],
                "baseline_correct": b["correct"],
                "baseline_accuracy": round(b["accuracy"], 4),
                "sketchpad_correct": s["correct"] if s else None,
                "sketchpad_accuracy": round(s["accuracy"], 4) if s else None,
            }
        )
    return rows


def breaking_length(rows, op: str, threshold: float = 0.5, key: str = "baseline_accuracy"):
    """The smallest operand length at which accuracy falls below `threshold` (None: never)."""
    for r in rows:
        if r["op"] == op and r[key] is not None and r[key] < threshold:
            return r["length"]
    return None


def first_imperfect(rows, op: str, key: str = "baseline_accuracy"):
    for r in rows:
        if r["op"] == op and r[key] is not None and r[key] < 1.0:
            return r["length"]
    return None


def markdown(result: dict) -> str:
    rows, tr, bud = result["rows"], result["baseline_training"], result["budget"]
    sp_note = result["sketchpad"]["status"]
    pct = lambda x: "—" if x is None else f"{100 * x:.0f}%"
    lines = [
        "# No-sheet baseline vs Sketchpad: exact match by operand length",
        "",
        f"Generated by `sketchpad baseline evaluate` on {result['date']} "
        f"({result['environment']['machine']}, torch {result['environment']['torch']}, "
        f"transformers {result['environment']['transformers']}).",
        "",
        f"- **Problems**: {result['per_length']} per operation and length, both operands of exactly "
        f"that many digits, seed {result['seed']} (`sketchpad.baseline.data.eval_set`); the same "
        "problems go to both systems. Exact match against Python's integers.",
        f"- **Baseline**: the shipped base LM's architecture, size ({tr['parameters']:,} parameters) "
        f"and character tokenizer, {tr['init']}, trained on `a+b=` / `a*b=` → answer digits "
        f"{tr['answer_order']}"
        f"{', operands reversed too' if tr.get('reverse_operands') else ', operands as written'}; "
        f"operand lengths 1–{tr['add_lengths'][1]} (+) and "
        f"1–{tr['mul_lengths'][1]} (×), i.e. on every length it is tested on. Greedy decoding "
        "over the digits and `<eos>`.",
        f"- **Budget**: {tr['tokens_spent']:,} token positions through forward+backward "
        f"({tr['steps']:,} steps × batch {tr['batch']} × padded length); the default model's training "
        f"budget is {bud['tokens']:,} (base LM {bud['base_tokens']:,} + adapter {bud['adapter_tokens']:,}; "
        f"from {bud['source']}). Baseline wall time {tr['seconds']} s "
        f"(CPU time {tr['cpu_seconds']} s, {tr['threads']} torch thread(s)); the default model's "
        + (
            f"{bud['default_model_train_seconds']} s (base LM + adapter, from its meta.json)."
            if bud.get("default_model_train_seconds")
            else "training time: not recorded yet."
        ),
        f"- **Sketchpad**: {sp_note}.",
        "",
        "| op | operand length | N | baseline exact match | Sketchpad exact match |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['op']} | {r['length']} | {r['n']} | {pct(r['baseline_accuracy'])} | {pct(r['sketchpad_accuracy'])} |"
        )
    lines += [
        "",
        "Where the baseline breaks (first length below 100% / below 50%): "
        + "; ".join(
            f"{op}: {result['breaks'][op]['first_below_100']} / {result['breaks'][op]['first_below_50']}"
            for op in ("add", "mul")
        )
        + ".",
        "",
    ]
    return "\n".join(lines)


def plot(result: dict, path: Path) -> Path:
    import matplotlib  # lazy: matplotlib is the [test] extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: matplotlib is the [test] extra

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    for ax, op, title in zip(axes, ("add", "mul"), ("Addition a + b", "Multiplication a × b")):
        rs = [r for r in result["rows"] if r["op"] == op]
        xs = [r["length"] for r in rs]
        ax.plot(
            xs,
            [100 * r["baseline_accuracy"] for r in rs],
            "o-",
            color="tab:red",
            label="no-sheet baseline (same backbone, same budget)",
        )
        if any(r["sketchpad_accuracy"] is not None for r in rs):
            ax.plot(
                xs,
                [None if r["sketchpad_accuracy"] is None else 100 * r["sketchpad_accuracy"] for r in rs],
                "s-",
                color="tab:blue",
                label="Sketchpad (default model)",
            )
        ax.set_title(title)
        ax.set_xlabel("operand length (digits, both operands)")
        ax.set_ylabel(f"exact match, % (N = {rs[0]['n']} per length)")
        ax.set_ylim(-3, 103)
        ax.set_xlim(0.5, max(xs) + 0.5)
        ax.grid(alpha=0.3)
        ax.legend(loc="center right", fontsize=8)
    tr = result["baseline_training"]
    fig.suptitle(
        f"No-sheet baseline vs Sketchpad: the same {tr['parameters']:,}-parameter Qwen3.5-family "
        f"backbone, the same training budget ({tr['tokens_spent'] / 1e6:.2f}M token positions)",
        fontsize=10,
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def environment() -> dict:
    import torch  # lazy: torch is the [train] extra
    import transformers  # lazy: transformers is the [train] extra

    return {
        "machine": machine(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }


def evaluate(
    model,
    codec,
    train_info: dict,
    budget: dict,
    add_lengths=range(1, 31),
    mul_lengths=range(1, 13),
    per_length: int = 50,
    seed: int = 20261129,
    with_sketchpad: bool = True,
    progress: bool = True,
) -> dict:
    import torch  # lazy: torch is the [train] extra

    problems = data.eval_set(add_lengths, mul_lengths, per_length, seed)
    t = time.perf_counter()
    old = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny network: one thread is fastest (see train.py)
    try:
        base_acc = exact_match(
            baseline_predictor(model, codec, train_info.get("reverse_operands", False)),
            problems,
            progress=progress,
            desc="baseline",
        )
    finally:
        torch.set_num_threads(old)
    base_s = time.perf_counter() - t
    sp_acc, status, sp_s = None, "not run", None
    if with_sketchpad:
        stepper, why, cert = load_sketchpad_stepper()
        if stepper is None:
            status = why
        else:
            t = time.perf_counter()
            sp_acc = exact_match(sketchpad_predictor(stepper), problems, progress=progress, desc="sketchpad")
            sp_s = time.perf_counter() - t
            status = (
                f"the shipped default model (`{getattr(stepper, 'name', type(stepper).__name__)}`) "
                f"through `sketchpad.solve`, parallel mode; {cert}"
            )
    rows = rows_of(problems, base_acc, sp_acc)
    breaks = {
        op: {"first_below_100": first_imperfect(rows, op), "first_below_50": breaking_length(rows, op)}
        for op in ("add", "mul")
    }
    return {
        "format": "sketchpad-baseline/1",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seed": seed,
        "per_length": per_length,
        "environment": environment(),
        "baseline_training": train_info,
        "budget": budget,
        "sketchpad": {
            "status": status,
            "seconds": sp_s and round(sp_s, 1),
            "default_model_meta_sha256": _meta_sha256(),
        },
        "baseline_eval_seconds": round(base_s, 1),
        "breaks": breaks,
        "rows": rows,
    }


def _meta_sha256():
    p = DEFAULT_MODEL_DIR / "meta.json"
    return sha256_file(p) if p.is_file() else None


def write_outputs(result: dict, json_path: Path, md_path: Path, png_path: Path) -> None:
    Path(json_path).parent.mkdir(parents=True, exist_ok=True)
    Path(json_path).write_text(json.dumps(result, indent=1) + "\n")
    Path(md_path).write_text(markdown(result))
    plot(result, png_path)
