"""The gate: g = 0 gives the base model's logits bit for bit; g = 1 is the adapter."""

import copy

import pytest
import torch

from sketchpad import views as V
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.adapter import load_adapted, new_adapter
from sketchpad.model.adapter_config import AdapterConfig
from sketchpad.model.backbone import forward_logits, load_base, text_logits
from sketchpad.model.gate import AdapterGate
from sketchpad.model.tokenizer import ViewTokenizer, step_vocabulary

from model_helpers import TEXT, one_thread, randomise_lora_B, tiny_random_base  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def gated():
    base, tok = tiny_random_base(seed=3)
    reference = copy.deepcopy(base)  # the untouched base, for comparison
    model = new_adapter(base, AdapterConfig(rank=4), seed=3).eval()
    assert randomise_lora_B(model) > 0
    gate = AdapterGate(0.0).attach(model)
    vt = ViewTokenizer.from_hf(tok, step_vocabulary())
    return model, reference, gate, vt, tok


def _view_ids(vt):
    return vt.encode([e["view"] for e in V.load()])


def test_gate_zero_is_base_on_views(gated):
    model, reference, gate, vt, _ = gated
    ids = _view_ids(vt)
    gate.set(0.0)
    with torch.no_grad():
        assert torch.equal(forward_logits(model, ids), forward_logits(reference, ids))


def test_gate_zero_is_base_on_step_rows(gated):
    """The steppers' path (last position, step-token rows of the output layer only) is also the
    base model's, bit for bit, at g = 0; at g = 1 it is the full path's slice up to rounding."""
    model, reference, gate, vt, _ = gated
    ids = _view_ids(vt)
    rows = vt.step_ids
    with torch.no_grad():
        gate.set(0.0)
        assert torch.equal(forward_logits(model, ids, rows=rows), forward_logits(reference, ids, rows=rows))
        gate.set(1.0)
        try:
            fast, full = forward_logits(model, ids, rows=rows), forward_logits(model, ids)[:, rows]
            assert not torch.equal(fast, forward_logits(reference, ids, rows=rows))
            assert torch.allclose(fast, full, rtol=0, atol=1e-4) and torch.equal(fast.argmax(1), full.argmax(1))
        finally:
            gate.set(0.0)


def test_gate_zero_is_base_on_text(gated):
    model, reference, gate, _, tok = gated
    ids = torch.tensor([tok(TEXT, add_special_tokens=False)["input_ids"]])
    gate.set(0.0)
    with torch.no_grad():
        assert torch.equal(text_logits(model, ids), text_logits(reference, ids))


def test_gate_one_differs(gated):
    model, reference, gate, vt, tok = gated
    ids = _view_ids(vt)
    gate.set(1.0)
    try:
        with torch.no_grad():
            assert not torch.equal(forward_logits(model, ids), forward_logits(reference, ids))
            t = torch.tensor([tok(TEXT, add_special_tokens=False)["input_ids"]])
            assert (text_logits(model, t) - text_logits(reference, t)).abs().max() > 1e-3
    finally:
        gate.set(0.0)


def test_gate_one_is_the_plain_adapter(gated):
    """g = 1 multiplies by exactly 1.0: the same logits as peft without the hook."""
    model, _, gate, vt, _ = gated
    ids = _view_ids(vt)[:64]
    gate.set(1.0)
    with torch.no_grad():
        hooked = forward_logits(model, ids)
        gate.detach()
        plain = forward_logits(model, ids)
    gate.attach(model)
    gate.set(0.0)
    assert torch.equal(hooked, plain)


def test_default_model_gate_zero_is_its_base():
    """The shipped model at g = 0 is the shipped base LM, on views and on ordinary text."""
    model, vt, gate = load_adapted(DEFAULT_MODEL_DIR, gate=0.0)
    base, tok = load_base(DEFAULT_MODEL_DIR / "base")
    ids = _view_ids(vt)
    t = torch.tensor([tok(TEXT, add_special_tokens=False)["input_ids"]])
    with torch.no_grad():
        assert torch.equal(forward_logits(model, ids), forward_logits(base, ids))
        assert torch.equal(forward_logits(model, ids, rows=vt.step_ids), forward_logits(base, ids, rows=vt.step_ids))
        assert torch.equal(text_logits(model, t), text_logits(base, t))
        gate.set(1.0)
        assert not torch.equal(forward_logits(model, ids), forward_logits(base, ids))
