"""Views become five tokens; steps are one token each, from the sorted reference steps over V."""

import pytest

from sketchpad import views as V
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.backbone import load_base
from sketchpad.model.tokenizer import ViewTokenizer, build_char_tokenizer, step_vocabulary
from sketchpad.reference import reference_step
from sketchpad.symbols import View


def test_step_vocabulary_is_the_sorted_reference_steps():
    entries = V.load()
    steps = step_vocabulary(entries)
    assert steps == sorted({reference_step(e["view"]) for e in entries})
    assert len(steps) == len(set(steps))


def test_views_are_fixed_length_and_distinct():
    tok = build_char_tokenizer(step_vocabulary())
    vt = ViewTokenizer.from_hf(tok, step_vocabulary())
    views = [e["view"] for e in V.load()]
    ids = vt.encode(views)
    assert ids.shape == (len(views), vt.seq_len)
    assert len({tuple(r) for r in ids.tolist()}) == len(views)  # no two views collide
    vt.check(tok, views)  # same ids as the HF tokenizer


def test_shipped_vocab_matches_shipped_tokenizer():
    _, tok = load_base(DEFAULT_MODEL_DIR / "base")
    vt = ViewTokenizer.load(DEFAULT_MODEL_DIR)
    assert vt.steps == step_vocabulary()
    vt.check(tok, [e["view"] for e in V.load()])
    text = "def f(x):\n    return x + 1  # ordinary text still tokenizes"
    assert tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text


def test_unknown_symbols_are_refused_not_guessed():
    vt = ViewTokenizer.load(DEFAULT_MODEL_DIR)
    with pytest.raises(KeyError):
        vt.encode([View("ADD", "x", "1", "_")])
    with pytest.raises(KeyError):
        vt.encode([View("POW", "1", "1", "_")])
