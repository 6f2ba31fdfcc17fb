"""ONNX export of a gated Sketchpad model, with a parity check against PyTorch on every view.

    from sketchpad.export import export_model
    report = export_model(model_dir, out_dir)       # writes model.onnx, model.json, parity.json

See export/README.md for why torch.onnx (not optimum) and why the gate is a graph input.
"""

from .pipeline import export_model

__all__ = ["export_model"]
