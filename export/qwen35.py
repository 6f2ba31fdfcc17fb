"""Make Qwen3.5's Gated DeltaNet layers exportable.

transformers' pure-PyTorch DeltaNet pads every sequence to a 64-token chunk and loops over
chunks; the exporter unrolls that loop and `torch.linalg.solve_triangular` has no ONNX op.
A Sketchpad view is a fixed number of tokens, so during export we run the same function with
one chunk exactly as long as the sequence: the chunk loop has a single static iteration, no
padding is added, and under torch.export transformers itself takes its export-friendly
forward-substitution path instead of `solve_triangular`.  Only the batch axis stays dynamic.
The maths is unchanged (chunking is an exact reorganisation); the parity check measures it.
"""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def single_chunk_deltanet():
    try:
        import transformers.models.qwen3_5.modeling_qwen3_5 as qwen35
    except ImportError:  # an older transformers: nothing to patch
        yield
        return
    original = qwen35.torch_chunk_gated_delta_rule

    def one_chunk(query, key, value, g, beta, chunk_size=64, **kwargs):
        return original(query, key, value, g=g, beta=beta, chunk_size=query.shape[1], **kwargs)

    qwen35.torch_chunk_gated_delta_rule = one_chunk
    try:
        yield
    finally:
        qwen35.torch_chunk_gated_delta_rule = original
