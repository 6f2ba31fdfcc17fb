"""Make Qwen3.5's Gated DeltaNet layers exportable, and cheap to run at a view's length.

transformers' pure-PyTorch DeltaNet pads every sequence to a 64-token chunk and loops over
chunks; the exporter unrolls that loop and `torch.linalg.solve_triangular` has no ONNX op.
A Sketchpad view is a fixed number of tokens, so during export the same maths is written for
one chunk exactly as long as the sequence, with no state carried in:

- the chunk's unit lower-triangular system (I + N) x = v is solved with its finite inverse
  I - N + N^2 - ... (N is strictly lower triangular, so N^L = 0): a few batched L x L matmuls.
  transformers' export path builds the same inverse row by row with in-place writes, which
  become ScatterND/ScatterElements nodes - 14% of the graph's time on a CPU;
- with one chunk and no initial state the recurrent state is zero, so the chunk's output is
  its intra-chunk attention alone (transformers writes it into a zeros tensor: a scatter);
- the causal depthwise convolution (kernel 4) is written as its four shifted multiply-adds:
  ONNX Runtime's grouped Conv was 16% of the graph's time on a batch of 256 views.

Only the batch axis stays dynamic.  The maths is unchanged - these are exact reorganisations
of the same sums, so only float32 rounding differs - and the export's parity check runs every
view of V through both (identical steps required, largest logit difference reported).
"""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F


def causal_conv1d_taps(hidden_states, weight, bias=None, activation=None, **kwargs):
    """transformers' causal_conv1d_fn (x: [B, C, L], weight [C, K]) as K shifted multiply-adds."""
    _, _, length = hidden_states.shape
    kernel = weight.shape[-1]
    x = F.pad(hidden_states.to(weight.dtype), (kernel - 1, 0))
    out = x[:, :, 0:length] * weight[:, 0:1]
    for k in range(1, kernel):
        out = out + x[:, :, k : k + length] * weight[:, k : k + 1]
    if bias is not None:
        out = out + bias[:, None]
    if activation is not None:
        from transformers.activations import ACT2FN  # lazy: transformers is the [train] extra

        out = ACT2FN[activation](out)
    return out.to(hidden_states.dtype)


def one_chunk_delta_rule(
    query,
    key,
    value,
    g,
    beta,
    chunk_size=64,
    initial_state=None,
    output_final_state=False,
    use_qk_l2norm_in_kernel=False,
    **kwargs,
):
    """transformers' torch_chunk_gated_delta_rule for one chunk of the whole sequence and no
    initial state, without in-place writes (see the module docstring)."""
    if initial_state is not None or output_final_state:
        raise NotImplementedError("the export computes one view at a time: no recurrent state in or out")
    initial_dtype = query.dtype
    length = key.shape[1]
    num_k_heads, num_v_heads = key.shape[2], value.shape[2]
    if num_k_heads != num_v_heads:
        query = query.repeat_interleave(num_v_heads // num_k_heads, dim=2)
        key = key.repeat_interleave(num_v_heads // num_k_heads, dim=2)
    query, key, value, beta, decay = [x.transpose(1, 2).to(torch.float32) for x in (query, key, value, beta, g)]
    if use_qk_l2norm_in_kernel:
        from transformers.models.qwen3_5.modeling_qwen3_5 import l2norm  # lazy: transformers is the [train] extra

        query, key = l2norm(query, dim=-1, eps=1e-6), l2norm(key, dim=-1, eps=1e-6)
    query = query * query.shape[-1] ** -0.5

    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    cum_decay = decay.cumsum(dim=-1)
    upper = torch.ones(length, length, dtype=torch.bool).triu(1)
    pairwise = (cum_decay.unsqueeze(-1) - cum_decay.unsqueeze(-2)).masked_fill(upper, float("-inf")).exp()
    # (I + N) with N strictly lower triangular; its inverse is the finite series sum (-N)^j.
    minus_n = -((k_beta @ key.transpose(-1, -2)) * pairwise).tril(-1)
    inverse = torch.eye(length, dtype=minus_n.dtype) + minus_n
    power = minus_n
    for _ in range(2, length):
        power = power @ minus_n
        inverse = inverse + power
    new_values = inverse @ v_beta
    intra = (query @ key.transpose(-1, -2)) * pairwise
    out = intra @ new_values
    return out.transpose(1, 2).to(initial_dtype), None


@contextlib.contextmanager
def single_chunk_deltanet():
    """Swap the two functions for their export forms while the graph is traced."""
    try:
        import transformers.models.qwen3_5.modeling_qwen3_5 as qwen35  # lazy: transformers is the [train] extra
    except ImportError:  # an older transformers: nothing to patch
        yield
        return
    saved = qwen35.torch_chunk_gated_delta_rule, qwen35.causal_conv1d_fn
    qwen35.torch_chunk_gated_delta_rule, qwen35.causal_conv1d_fn = one_chunk_delta_rule, causal_conv1d_taps
    try:
        yield
    finally:
        qwen35.torch_chunk_gated_delta_rule, qwen35.causal_conv1d_fn = saved


def last_query_layer_forward(layer):
    """A forward for the model's last decoder layer (a full-attention one) that computes only
    the last position: the step is read there, so the other positions' queries, attention
    outputs and MLP rows of this layer are never used.  Keys and values still come from every
    position.  The result at the last position is the same sum in another order."""
    # lazy: transformers is the [train] extra
    from transformers.models.qwen3_5.modeling_qwen3_5 import apply_rotary_pos_emb, repeat_kv

    attn = layer.self_attn

    def forward(hidden_states, position_embeddings, attention_mask=None, **kwargs):
        batch, length, _ = hidden_states.shape
        d = attn.head_dim
        normed = layer.input_layernorm(hidden_states)
        last = normed[:, length - 1 :]
        query, gate = torch.chunk(attn.q_proj(last).view(batch, 1, -1, d * 2), 2, dim=-1)
        gate = gate.reshape(batch, 1, -1)
        query = attn.q_norm(query).transpose(1, 2)
        key = attn.k_norm(attn.k_proj(normed).view(batch, length, -1, d)).transpose(1, 2)
        value = attn.v_proj(normed).view(batch, length, -1, d).transpose(1, 2)
        cos, sin = position_embeddings
        query, _ = apply_rotary_pos_emb(query, query, cos[:, length - 1 :], sin[:, length - 1 :])
        _, key = apply_rotary_pos_emb(key, key, cos, sin)
        key = repeat_kv(key, attn.num_key_value_groups)
        value = repeat_kv(value, attn.num_key_value_groups)
        # The last position sees every position: no mask.
        weights = torch.softmax((query @ key.transpose(-1, -2)) * attn.scaling, dim=-1, dtype=torch.float32)
        out = (weights.to(value.dtype) @ value).transpose(1, 2).reshape(batch, 1, -1)
        out = attn.o_proj(out * torch.sigmoid(gate))
        hidden = hidden_states[:, length - 1 :] + out
        return hidden + layer.mlp(layer.post_attention_layernorm(hidden))

    return forward


@contextlib.contextmanager
def last_position_only(model):
    """While the graph is traced, the last decoder layer computes only the last position (when it
    is a Qwen3.5 full-attention layer; any other model is traced as it is)."""
    causal = model.get_base_model() if hasattr(model, "get_base_model") else model
    layers = getattr(getattr(causal, "model", None), "layers", None)
    layer = layers[-1] if layers is not None and len(layers) else None
    if type(layer).__name__ != "Qwen3_5DecoderLayer" or getattr(layer, "block_type", None) != "full_attention":
        yield
        return
    layer.forward = last_query_layer_forward(layer)
    try:
        yield
    finally:
        del layer.forward
