"""Write a step-logits module to a single ONNX file.

The module maps input_ids [B, L] int64 (and gate [1] float32 when gated) to step logits
[B, n_steps].  We use torch.onnx's dynamo exporter (torch.export underneath) with only the
batch axis dynamic: L is fixed by the tokenizer.  The weights are embedded (no .data side
file) so that the browser fetches one file and its hash names everything.
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


def export_module(module: torch.nn.Module, seq_len: int, path: Path, gated: bool = True) -> Path:
    path = Path(path)
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
        prog.save(str(path), external_data=False)
    return path
