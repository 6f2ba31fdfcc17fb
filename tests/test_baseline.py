"""The no-sheet baseline: data, scoring, training, save/load, the command, and that the
committed results are what the committed weights produce."""

import json
import random
from pathlib import Path

import pytest
import torch

from sketchpad.baseline import DEFAULT_BASELINE_DIR, data
from sketchpad.baseline.evaluate import (
    baseline_predictor,
    breaking_length,
    exact_match,
    first_imperfect,
    sketchpad_predictor,
)
from sketchpad.baseline.model import CharCodec, all_logits, greedy_answers, load, new_model
from sketchpad.baseline.train import Batches, default_model_budget, encode_batch, loss_of, train
from sketchpad.cli import main

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "baseline.json"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """A ~100k-parameter network runs fastest on one thread (see sketchpad/baseline/train.py)."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.fixture(scope="module")
def fresh():
    model, tok = new_model(seed=0)
    return model.eval(), CharCodec(tok)


def test_problems_have_exact_lengths_and_pythons_answers():
    for op in "+*":
        for n in (1, 2, 7, 30):
            for a, o, b in data.problems(op, n, 40, seed=3):
                assert o == op and len(str(a)) == n and len(str(b)) == n
                assert data.answer(a, op, b) == (a + b if op == "+" else a * b)
                t = data.target(a, op, b)
                assert t == str(eval(f"{a}{op}{b}"))[::-1]
                assert data.decode_answer(t) == eval(f"{a}{op}{b}")
    assert data.prompt(120, "+", 34) == "120+34="
    assert data.prompt(120, "*", 34, reverse_operands=True) == "021*43="
    assert data.decode_answer("") is None and data.decode_answer("1x") is None
    with pytest.raises(ValueError):
        data.prompt(1, "-", 2)


def test_eval_set_is_seeded_and_distinct_per_seed():
    a = data.eval_set(range(1, 4), range(1, 3), 5, seed=1)
    assert a == data.eval_set(range(1, 4), range(1, 3), 5, seed=1)
    assert a != data.eval_set(range(1, 4), range(1, 3), 5, seed=2)
    assert len(a) == 5 * 5


def test_exact_match_scores_right_and_wrong_predictors():
    ps = data.eval_set(range(1, 6), range(1, 4), 20, seed=0)
    exact = exact_match(lambda xs: [data.answer(*p) for p in xs], ps)
    assert all(v["accuracy"] == 1.0 and v["n"] == 20 for v in exact.values())
    assert set(exact) == {("+", n) for n in range(1, 6)} | {("*", n) for n in range(1, 4)}
    # wrong on every problem whose first operand is odd; unparsable (None) on the rest of 3-digit ones
    wrong = exact_match(lambda xs: [data.answer(*p) + (p[0] % 2) if len(str(p[0])) != 3 else None for p in xs], ps)
    assert all(v["accuracy"] < 1.0 for v in wrong.values())
    assert wrong[("+", 3)]["correct"] == 0
    with pytest.raises(ValueError):
        exact_match(lambda xs: [], ps)


def test_breaking_length_reads_rows():
    rows = [
        {"op": "add", "length": n, "baseline_accuracy": acc}
        for n, acc in [(1, 1.0), (2, 1.0), (3, 0.8), (4, 0.4), (5, 0.0)]
    ]
    assert first_imperfect(rows, "add") == 3 and breaking_length(rows, "add") == 4
    assert breaking_length(rows, "mul") is None


def test_sketchpad_predictor_with_reference_stepper_is_exact():
    ps = data.eval_set(range(1, 9, 3), range(1, 5, 2), 4, seed=5)
    acc = exact_match(sketchpad_predictor("reference"), ps)
    assert all(v["accuracy"] == 1.0 for v in acc.values())


def test_batches_encode_only_the_answer_as_targets(fresh):
    _, codec = fresh
    codec.check()
    ps = [(12, "+", 99), (5, "*", 7)]
    ids, tgt = encode_batch(codec, ps)
    assert ids.shape == tgt.shape == (2, 1 + len("12+99=") + len("111") + 1)
    row = ids[0].tolist()
    assert row[0] == codec.bos and row[-1] == codec.eos
    eq = 1 + len("12+99=") - 1  # position of '=' predicts the first digit
    assert tgt[0, :eq].eq(-100).all() and tgt[0, eq : eq + 4].tolist() == codec.encode("111") + [codec.eos]
    assert ids[1, 1 + len("5*7=") + 3 :].eq(codec.pad).all()  # right padding
    assert tgt[1].ne(-100).sum() == len("53") + 1
    b = Batches(30, 12, 16, seed=0)
    for k in range(6):
        b.frac = k / 5
        batch = next(b)
        ops, lens = {p[1] for p in batch}, {len(str(p[0])) for p in batch}
        assert len(ops) == 1 and max(lens) - min(lens) <= 2
        assert max(lens) <= (30 if "+" in ops else 12)


def test_padding_does_not_change_real_positions(fresh):
    model, codec = fresh
    ids, _ = encode_batch(codec, [(123, "+", 456), (1, "+", 2)])
    short = torch.tensor([[codec.bos] + codec.encode("1+2=3") + [codec.eos]])
    with torch.no_grad():
        a = all_logits(model, ids)[1, : short.shape[1]]
        b = all_logits(model, short)[0]
    assert torch.allclose(a, b, atol=1e-5)


def test_a_few_steps_reduce_the_loss():
    torch.manual_seed(0)
    model, tok = new_model(seed=1)
    codec = CharCodec(tok)
    rng = random.Random(0)
    ps = [(rng.randrange(10), "+", rng.randrange(10)) for _ in range(32)]
    ids, tgt = encode_batch(codec, ps)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    first = loss_of(model, ids, tgt).item()
    for _ in range(20):
        loss = loss_of(model, ids, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss_of(model, ids, tgt).item() < 0.5 * first


def test_train_save_load_round_trip(tmp_path):
    model, codec, info = train(tmp_path / "b", budget_tokens=1500, add_max=4, mul_max=3, batch=8, progress=False)
    assert info["tokens_spent"] >= 1500 and info["steps"] >= 1 and info["stopped_by"] == "budget"
    assert json.loads((tmp_path / "b" / "baseline_meta.json").read_text())["steps"] == info["steps"]
    loaded, tok = load(tmp_path / "b")
    ids, _ = encode_batch(codec, [(42, "*", 17), (3, "*", 9)])
    with torch.no_grad():
        assert torch.equal(all_logits(model, ids), all_logits(loaded, ids))
    prompts = ["42*17=", "31*19="]
    assert greedy_answers(model, codec, prompts, 5) == greedy_answers(loaded, CharCodec(tok), prompts, 5)
    assert all(set(t) <= set("0123456789") and len(t) <= 5 for t in greedy_answers(loaded, CharCodec(tok), prompts, 5))
    with pytest.raises(ValueError):
        greedy_answers(model, codec, ["1+2=", "10+20="], 3)


def test_command_rejects_missing_model_and_bad_numbers(tmp_path, capsys):
    assert main(["baseline", "evaluate", "--model", str(tmp_path / "none")]) == 2
    assert "no trained baseline" in capsys.readouterr().err
    assert main(["baseline", "train", "--tokens", "0", "--out", str(tmp_path / "x")]) == 2
    with pytest.raises(SystemExit) as e:
        main(["baseline", "frobnicate"])
    assert e.value.code == 2


@pytest.mark.skipif(
    not RESULTS.is_file() or not (DEFAULT_BASELINE_DIR / "baseline_meta.json").is_file(),
    reason="no committed baseline results yet",
)
def test_committed_results_are_what_the_committed_weights_give():
    res = json.loads(RESULTS.read_text())
    model, tok = load(DEFAULT_BASELINE_DIR)
    meta = json.loads((DEFAULT_BASELINE_DIR / "baseline_meta.json").read_text())
    assert res["baseline_training"]["steps"] == meta["steps"]
    predict = baseline_predictor(model, CharCodec(tok), meta.get("reverse_operands", False))
    lengths = (1, 2, 3)
    ps = data.eval_set(lengths, lengths, res["per_length"], res["seed"])
    acc = exact_match(predict, ps)
    rows = {(r["op"], r["length"]): r for r in res["rows"]}
    for (op, n), v in acc.items():
        assert v["correct"] == rows[({"+": "add", "*": "mul"}[op], n)]["baseline_correct"]
    md = (ROOT / "benchmarks" / "results" / "baseline.md").read_text()
    assert f"| add | 30 | {res['per_length']} |" in md
    assert (ROOT / "docs" / "baseline-accuracy.png").stat().st_size > 10_000


def test_budget_is_read_from_the_default_models_meta(tmp_path):
    meta = {
        "base_training": {"steps": 10, "batch": 2, "seq_len": 4, "seconds": 1.5},
        "adapter_training": {"steps": 7, "stopped_by_rule": True, "views_trained": 100, "seconds": 2.0},
    }
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    b = default_model_budget(tmp_path)
    assert (b["base_tokens"], b["adapter_tokens"], b["tokens"]) == (80, 7 * 100 * 5, 80 + 3500)
    assert b["default_model_train_seconds"] == 3.5
    meta["adapter_training"]["stopped_by_rule"] = False  # ran to max: index 7 had a backward too
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    assert default_model_budget(tmp_path)["adapter_tokens"] == 8 * 100 * 5
