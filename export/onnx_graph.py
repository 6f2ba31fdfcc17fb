"""Write a step-logits module to a single ONNX file.

The module maps input_ids [B, L] int64 (and gate [1] float32 when gated) to step logits
[B, n_steps].  We use torch.onnx's dynamo exporter (torch.export underneath) with only the
batch axis dynamic: L is fixed by the tokenizer.  A small model's weights are embedded (one
file to fetch and hash); above EMBED_LIMIT they go to `model.onnx.data` beside the graph
(protobuf cannot hold 2 GB, and writing them out tensor by tensor never builds a second copy
of the weights in memory: a 0.8B-parameter export stays at about the model's own size).
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from pathlib import Path

import torch

from .qwen35 import last_position_only, single_chunk_deltanet

OPSET = 20
EMBED_LIMIT = 1 << 30  # weights above this many bytes go to an external data file
DATA_SUFFIX = ".data"  # model.onnx -> model.onnx.data


def parameter_bytes(module: torch.nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in module.parameters())


@contextlib.contextmanager
def _quiet():
    # The exporter prints progress lines and torchvision notices; keep the CLI's output ours.
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        prev = logging.getLogger("torch.onnx").level
        logging.getLogger("torch.onnx").setLevel(logging.ERROR)
        try:
            yield
        finally:
            logging.getLogger("torch.onnx").setLevel(prev)


def export_module(
    module: torch.nn.Module, seq_len: int, path: Path, gated: bool = True, external: bool | None = None
) -> Path:
    """Write the graph to `path`; its weights beside it in path + DATA_SUFFIX when `external`
    (None: when they exceed EMBED_LIMIT)."""
    path = Path(path)
    if external is None:
        external = parameter_bytes(module) > EMBED_LIMIT
    Path(str(path) + DATA_SUFFIX).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = torch.zeros((2, seq_len), dtype=torch.long)
    args = (ids, torch.ones(1)) if gated else (ids,)
    names = ["input_ids", "gate"] if gated else ["input_ids"]
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    shapes = ({0: batch}, None) if gated else ({0: batch},)
    with torch.no_grad(), single_chunk_deltanet(), last_position_only(module.model), _quiet():
        prog = torch.onnx.export(
            module.eval(),
            args,
            dynamo=True,
            opset_version=OPSET,
            input_names=names,
            output_names=["step_logits"],
            dynamic_shapes=shapes,
            optimize=True,
            verbose=False,
        )
        prog.save(str(path), external_data=external)
    return path
