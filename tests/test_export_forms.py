"""The export's forms of Qwen3.5's layers (export/qwen35.py) compute what transformers computes.

Each form is an exact reorganisation of the same sums, so they must agree to float32 rounding
on random inputs: the one-chunk delta rule with transformers' chunked and recurrent ones, the
tapped convolution with the grouped one, and the last-position layer with the whole layer's
last position.  A wrong form (one tap dropped, one power of N missing) must be caught.
"""

from __future__ import annotations

import pytest
import torch

qwen35 = pytest.importorskip("transformers.models.qwen3_5.modeling_qwen3_5")

from sketchpad.export.qwen35 import (  # noqa: E402
    causal_conv1d_taps,
    last_position_only,
    one_chunk_delta_rule,
    single_chunk_deltanet,
)

TOL = 1e-5


def _deltanet_inputs(seed: int, batch=6, length=5, k_heads=2, v_heads=4, dim=16):
    g = torch.Generator().manual_seed(seed)
    return dict(
        query=torch.randn(batch, length, k_heads, dim, generator=g),
        key=torch.randn(batch, length, k_heads, dim, generator=g),
        value=torch.randn(batch, length, v_heads, dim, generator=g),
        g=-torch.rand(batch, length, v_heads, generator=g) * 3,
        beta=torch.rand(batch, length, v_heads, generator=g),
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("length", [1, 2, 5, 7])
def test_one_chunk_delta_rule_is_transformers_delta_rule(seed, length):
    x = _deltanet_inputs(seed, length=length)
    ours, state = one_chunk_delta_rule(**x, use_qk_l2norm_in_kernel=True)
    chunked, _ = qwen35.torch_chunk_gated_delta_rule(**x, chunk_size=length, use_qk_l2norm_in_kernel=True)
    recurrent, _ = qwen35.torch_recurrent_gated_delta_rule(**x, use_qk_l2norm_in_kernel=True)
    assert state is None and ours.shape == chunked.shape
    assert (ours - chunked).abs().max() < TOL
    assert (ours - recurrent).abs().max() < TOL


def test_one_chunk_delta_rule_refuses_a_carried_state():
    x = _deltanet_inputs(0)
    with pytest.raises(NotImplementedError):
        one_chunk_delta_rule(**x, initial_state=torch.zeros(6, 4, 16, 16))


def test_a_truncated_inverse_is_caught(monkeypatch):
    """Fault injection: with the series for (I + N)^-1 cut after N the comparison above fails."""
    x = _deltanet_inputs(1)
    real, _ = qwen35.torch_chunk_gated_delta_rule(**x, chunk_size=5, use_qk_l2norm_in_kernel=True)
    calls = {"n": 0}
    original = torch.Tensor.__matmul__

    def drop_last_power(a, b):
        # the series' powers are the only [.., 5, 5] @ [.., 5, 5] products: make N^2 (and so
        # every higher power) zero
        if a.shape[-2:] == (5, 5) and b.shape[-2:] == (5, 5):
            calls["n"] += 1
            if calls["n"] == 1:
                return torch.zeros_like(original(a, b))
        return original(a, b)

    monkeypatch.setattr(torch.Tensor, "__matmul__", drop_last_power)
    broken, _ = one_chunk_delta_rule(**x, use_qk_l2norm_in_kernel=True)
    monkeypatch.undo()
    assert calls["n"] == 3
    assert (broken - real).abs().max() > 1e-3


@pytest.mark.parametrize("length", [1, 3, 5])
def test_tapped_convolution_is_the_grouped_convolution(length):
    g = torch.Generator().manual_seed(length)
    x, w, b = torch.randn(4, 128, length, generator=g), torch.randn(128, 4, generator=g), torch.randn(128, generator=g)
    for bias, act in ((b, "silu"), (None, None)):
        want = qwen35.causal_conv1d_fn(x, w, bias, activation=act)
        assert (causal_conv1d_taps(x, w, bias, activation=act) - want).abs().max() < TOL
    # fault injection: a convolution missing its oldest tap (which reaches back 3 positions) differs
    w_cut = w.clone()
    w_cut[:, 0] = 0
    if length > 3:
        cut = causal_conv1d_taps(x, w_cut, b, activation="silu")
        assert (cut - qwen35.causal_conv1d_fn(x, w, b, "silu")).abs().max() > 1e-3


def test_last_position_layer_is_the_whole_layers_last_position():
    """The whole model at the last position, with and without the export forms."""
    from sketchpad.model import backbone
    from sketchpad.model import tokenizer as T

    hf = T.build_char_tokenizer(T.step_vocabulary())
    model = backbone.build_base(backbone.tiny_config(len(hf)), seed=5).eval()
    assert model.model.layers[-1].block_type == "full_attention"
    ids = torch.randint(3, len(hf), (9, 5), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        want = backbone.forward_logits(model, ids)
        with single_chunk_deltanet(), last_position_only(model):
            assert "forward" in vars(model.model.layers[-1])
            got = backbone.forward_logits(model, ids)
    assert "forward" not in vars(model.model.layers[-1])  # put back
    assert (got - want).abs().max() < TOL
    assert torch.equal(got.argmax(-1), want.argmax(-1))
