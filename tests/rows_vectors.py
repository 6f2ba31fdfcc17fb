"""Small ONNX graphs, each aimed at one rule of the row-independence check, with the verdict
code it must give (None: accepted).  Built here with the real `onnx` package; tests/test_rows.py
runs them through the Python check and the page's (web/certify/rows.js, under Node) and holds
the two equal, verdict and per-node trace alike.

Every graph maps input_ids [batch, 5] (and gate [1]) to logits [batch, 4]: embed (a Gather on
a [32, 8] table), then the nodes under test on x [B, 5, 8], then mean over the 5 positions and
a [8, 4] projection.  `x` names the embedded input, `y` what the nodes under test give.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LENGTH, STEPS = 5, 4


def _const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def graph(nodes, inits=(), *, output="y", head=True, opset=20, extra_inputs=(), functions=()) -> bytes:
    """A step graph around `nodes` (which read "x" and write `output`)."""
    rng = np.random.default_rng(0)
    base_inits = [
        numpy_helper.from_array(rng.standard_normal((32, 8)).astype(np.float32), "table"),
        numpy_helper.from_array(rng.standard_normal((8, STEPS)).astype(np.float32), "proj"),
        _const("axes1", [1]),
    ]
    pre = [helper.make_node("Gather", ["table", "input_ids"], ["x"], axis=0)]
    post = []
    if head:
        post = [
            helper.make_node("ReduceMean", [output, "axes1"], ["pooled"], keepdims=0),
            helper.make_node("MatMul", ["pooled", "proj"], ["logits"]),
        ]
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", LENGTH]),
        helper.make_tensor_value_info("gate", TensorProto.FLOAT, [1]),
        *extra_inputs,
    ]
    g = helper.make_graph(
        pre + list(nodes) + post,
        "vector",
        inputs,
        [helper.make_tensor_value_info("logits" if head else output, TensorProto.FLOAT, ["batch", STEPS])],
        base_inits + list(inits),
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], functions=list(functions))
    m.ir_version = 10
    return m.SerializeToString()


N = helper.make_node


def vectors() -> list[tuple[str, bytes, str | None]]:
    """[(name, model bytes, expected code or None)]."""
    c = _const
    v = [
        ("identity", graph([N("Identity", ["x"], ["y"])]), None),
        ("elementwise with a weight", graph([N("Mul", ["x", "w"], ["y"])], [c("w", np.ones(8), np.float32)]), None),
        ("softmax along features", graph([N("Softmax", ["x"], ["y"], axis=-1)]), None),
        ("softmax along the batch", graph([N("Softmax", ["x"], ["y"], axis=0)]), "rows-mix"),
        (
            "reduce over the batch",
            graph([N("ReduceMax", ["x", "a0"], ["m"]), N("Add", ["x", "m"], ["y"])], [c("a0", [0])]),
            "rows-mix",
        ),
        (
            "reduce over features",
            graph([N("ReduceMax", ["x", "a2"], ["m"]), N("Add", ["x", "m"], ["y"])], [c("a2", [2])]),
            None,
        ),
        ("reduce over everything", graph([N("ReduceSum", ["x"], ["m"]), N("Add", ["x", "m"], ["y"])]), "rows-mix"),
        (
            "batch size into data",
            graph(
                [N("Shape", ["input_ids"], ["s"], end=1), N("Cast", ["s"], ["sf"], to=1), N("Mul", ["x", "sf"], ["y"])]
            ),
            "rows-shape",
        ),
        (
            "batch size as a known number",
            graph([N("Shape", ["x"], ["s"], start=2), N("Cast", ["s"], ["sf"], to=1), N("Mul", ["x", "sf"], ["y"])]),
            None,
        ),
        ("reshape keeping rows", graph([N("Reshape", ["x", "t"], ["y"])], [c("t", [-1, 5, 8])]), None),
        (
            "reshape merging heads into rows",
            graph(
                [N("Reshape", ["x", "t"], ["r"]), N("Reshape", ["r", "u"], ["y"])],
                [c("t", [-1, 4]), c("u", [-1, 5, 8])],
            ),
            None,
        ),
        (
            "reshape mixing rows",
            graph(
                [N("Reshape", ["x", "t"], ["r"]), N("Reshape", ["r", "u"], ["y"])],
                [c("t", [-1, 80]), c("u", [-1, 5, 8])],
            ),
            "rows-mix",
        ),
        ("reshape to a fixed batch", graph([N("Reshape", ["x", "t"], ["y"])], [c("t", [2, 5, 8])]), "rows-mix"),
        (
            "reshape from the batch size",
            graph(
                [
                    N("Shape", ["input_ids"], ["s"], end=1),
                    N("Concat", ["s", "r"], ["t"], axis=0),
                    N("Reshape", ["x", "t"], ["y"]),
                ],
                [c("r", [5, 8])],
            ),
            None,
        ),
        (
            "reshape to batch x batch",
            graph(
                [
                    N("Shape", ["input_ids"], ["s"], end=1),
                    N("Concat", ["s", "s", "r"], ["t"], axis=0),
                    N("Reshape", ["x", "t"], ["y"]),
                ],
                [c("r", [8])],
            ),
            "rows-shape",
        ),
        (
            "transpose then matmul over the batch",
            graph(
                [
                    N("Transpose", ["x"], ["t"], perm=[1, 2, 0]),
                    N("MatMul", ["x", "t"], ["p"]),
                    N("ReduceMean", ["p", "a2"], ["q"]),
                    N("Add", ["x", "q"], ["y"]),
                ],
                [c("a2", [2])],
            ),
            "rows-mix",
        ),
        (
            "attention within a row",
            graph(
                [
                    N("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
                    N("MatMul", ["x", "t"], ["s"]),
                    N("Softmax", ["s"], ["p"], axis=-1),
                    N("MatMul", ["p", "x"], ["y"]),
                ]
            ),
            None,
        ),
        (
            "weight per batch position",
            graph([N("Mul", ["x", "w"], ["y"])], [c("w", np.ones((3, 1, 1)), np.float32)]),
            "rows-mix",
        ),
        (
            "concat along features",
            graph(
                [N("Concat", ["x", "x"], ["c"], axis=2), N("Slice", ["c", "s0", "s8", "a2"], ["y"])],
                [c("s0", [0]), c("s8", [8]), c("a2", [2])],
            ),
            None,
        ),
        (
            "concat along the batch",
            graph(
                [N("Concat", ["x", "x"], ["c"], axis=0), N("Slice", ["c", "s0", "s1", "a0"], ["y"])],
                [c("s0", [0]), c("s1", [1]), c("a0", [0])],
            ),
            "rows-mix",
        ),
        (
            "slice of the batch",
            graph([N("Slice", ["x", "s1", "big", "a0"], ["y"])], [c("s1", [1]), c("big", [2**62]), c("a0", [0])]),
            "rows-mix",
        ),
        (
            "slice of all the batch",
            graph([N("Slice", ["x", "s0", "big", "a0"], ["y"])], [c("s0", [0]), c("big", [2**62]), c("a0", [0])]),
            None,
        ),
        (
            "gather rows by index",
            graph([N("Gather", ["x", "i"], ["g"], axis=0), N("Add", ["x", "g"], ["y"])], [c("i", 0)]),
            "rows-mix",
        ),
        (
            "gather positions",
            graph(
                [
                    N("Gather", ["x", "i"], ["g"], axis=1),
                    N("Unsqueeze", ["g", "a1"], ["u"]),
                    N("Add", ["x", "u"], ["y"]),
                ],
                [c("i", 4), c("a1", [1])],
            ),
            None,
        ),
        ("cumsum along the batch", graph([N("CumSum", ["x", "a"], ["y"])], [c("a", 0)]), "rows-mix"),
        ("cumsum along positions", graph([N("CumSum", ["x", "a"], ["y"])], [c("a", 1)]), None),
        ("trilu over positions", graph([N("Trilu", ["x"], ["y"])]), None),
        (
            "trilu over batch and positions",
            graph(
                [
                    N("ReduceMean", ["x", "a2"], ["m"], keepdims=0),
                    N("Trilu", ["m"], ["t"]),
                    N("Unsqueeze", ["t", "a2"], ["u"]),
                    N("Add", ["x", "u"], ["y"]),
                ],
                [c("a2", [2])],
            ),
            "rows-mix",
        ),
        ("random numbers", graph([N("RandomUniformLike", ["x"], ["r"]), N("Add", ["x", "r"], ["y"])]), "rows-random"),
        ("dropout", graph([N("Dropout", ["x"], ["y"])]), "rows-random"),
        ("an operator off the list", graph([N("TopK", ["x", "k"], ["y", "i"], axis=2)], [c("k", [8])]), "rows-op"),
        ("a custom domain", graph([N("FusedMatMul", ["x", "x"], ["y"], domain="com.microsoft")]), "rows-op"),
        (
            "dynamic quantization",
            graph([N("DynamicQuantizeLinear", ["x"], ["q", "s", "z"]), N("DequantizeLinear", ["q", "s", "z"], ["y"])]),
            "rows-mix",
        ),
        (
            "static quantization",
            graph(
                [N("QuantizeLinear", ["x", "s", "z"], ["q"]), N("DequantizeLinear", ["q", "s", "z"], ["y"])],
                [c("s", 0.1, np.float32), c("z", 0, np.uint8)],
            ),
            None,
        ),
        (
            "constant rows from the batch size",
            graph(
                [
                    N("Shape", ["x"], ["s"]),
                    N("ConstantOfShape", ["s"], ["k"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
                    N("Add", ["x", "k"], ["y"]),
                ]
            ),
            None,
        ),
        (
            "range over the batch",
            graph(
                [
                    N("Shape", ["input_ids"], ["s"], end=1),
                    N("Squeeze", ["s"], ["b"]),
                    N("Range", ["z", "b", "o"], ["r"]),
                    N("Cast", ["r"], ["rf"], to=1),
                    N("Unsqueeze", ["rf", "a12"], ["u"]),
                    N("Add", ["x", "u"], ["y"]),
                ],
                [c("z", 0), c("o", 1), c("a12", [1, 2])],
            ),
            "rows-shape",
        ),
        (
            "expand along the batch",
            graph(
                [N("Shape", ["x"], ["s"]), N("Expand", ["w", "s"], ["e"]), N("Mul", ["x", "e"], ["y"])],
                [c("w", np.ones((1, 5, 8)), np.float32)],
            ),
            None,
        ),
        (
            "pad positions",
            graph(
                [N("Pad", ["x", "p"], ["q"]), N("Slice", ["q", "s0", "s5", "a1"], ["y"])],
                [c("p", [0, 1, 0, 0, 0, 0]), c("s0", [0]), c("s5", [5]), c("a1", [1])],
            ),
            None,
        ),
        ("pad the batch", graph([N("Pad", ["x", "p"], ["y"])], [c("p", [1, 0, 0, 0, 0, 0])]), "rows-mix"),
        (
            "a second input",
            graph(
                [N("Add", ["x", "extra"], ["y"])],
                extra_inputs=[helper.make_tensor_value_info("extra", TensorProto.FLOAT, [1])],
            ),
            "rows-format",
        ),
        (
            "output that is not per row",
            graph([N("ReduceMean", ["x", "a01"], ["y"], keepdims=0)], [c("a01", [0, 1])], head=False),
            "rows-mix",
        ),
        ("opset too old", graph([N("Identity", ["x"], ["y"])], opset=13), "rows-format"),
        (
            "a subgraph",
            graph(
                [
                    N(
                        "If",
                        ["cond"],
                        ["y"],
                        then_branch=helper.make_graph([], "t", [], []),
                        else_branch=helper.make_graph([], "e", [], []),
                    )
                ],
                [c("cond", True, np.bool_)],
            ),
            "rows-op",
        ),
        (
            "layer norm over features",
            graph(
                [N("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
                [c("g", np.ones(8), np.float32), c("b", np.zeros(8), np.float32)],
            ),
            None,
        ),
        (
            "layer norm over everything",
            graph(
                [N("LayerNormalization", ["x", "g", "b"], ["y"], axis=0)],
                [c("g", np.ones((5, 8)), np.float32), c("b", np.zeros((5, 8)), np.float32)],
            ),
            "rows-mix",
        ),
        (
            "flatten keeping rows",
            graph([N("Flatten", ["x"], ["f"], axis=1), N("Reshape", ["f", "t"], ["y"])], [c("t", [-1, 5, 8])]),
            None,
        ),
        (
            "flatten everything and back",
            graph([N("Flatten", ["x"], ["f"], axis=0), N("Reshape", ["f", "t"], ["y"])], [c("t", [-1, 5, 8])]),
            None,
        ),
        (
            "flatten everything, softmax over it",
            graph(
                [
                    N("Flatten", ["x"], ["f"], axis=0),
                    N("Softmax", ["f"], ["g"], axis=1),
                    N("Reshape", ["g", "t"], ["y"]),
                ],
                [c("t", [-1, 5, 8])],
            ),
            "rows-mix",
        ),
        (
            "split along features",
            graph([N("Split", ["x"], ["a", "b"], axis=2, num_outputs=2), N("Concat", ["b", "a"], ["y"], axis=2)]),
            None,
        ),
        (
            "split the batch",
            graph([N("Split", ["x"], ["a", "b"], axis=0, num_outputs=2), N("Concat", ["b", "a"], ["y"], axis=0)]),
            "rows-mix",
        ),
        (
            "tile features",
            graph(
                [N("Tile", ["x", "r"], ["t"]), N("Slice", ["t", "s0", "s8", "a2"], ["y"])],
                [c("r", [1, 1, 2]), c("s0", [0]), c("s8", [8]), c("a2", [2])],
            ),
            None,
        ),
        ("tile the batch", graph([N("Tile", ["x", "r"], ["y"])], [c("r", [2, 1, 1])]), "rows-mix"),
        (
            "gemm per row",
            graph([N("ReduceMean", ["x", "axes1"], ["m"], keepdims=0), N("Gemm", ["m", "proj"], ["y"])], head=False),
            None,
        ),
        (
            "gemm over the batch",
            graph(
                [
                    N("ReduceMean", ["x", "axes1"], ["m"], keepdims=0),
                    N("Gemm", ["m", "m"], ["z"], transA=1),
                    N("Gemm", ["m", "z"], ["h"]),
                    N("Gemm", ["h", "proj"], ["y"]),
                ],
                head=False,
            ),
            "rows-mix",
        ),
        ("scatter into the batch", graph([N("ScatterND", ["x", "i", "x"], ["y"])], [c("i", [[0]])]), "rows-mix"),
        (
            "a feature slice bounded by the batch size",
            graph(
                [N("Shape", ["input_ids"], ["s"], end=1), N("Slice", ["x", "z", "s", "a2"], ["y"])],
                [c("z", [0]), c("a2", [2])],
            ),
            "rows-shape",
        ),
        (
            "a feature expanded to the batch size",
            graph(
                [
                    N("Shape", ["input_ids"], ["s"], end=1),
                    N("Concat", ["s", "r", "s"], ["t"], axis=0),
                    N("Expand", ["x", "t"], ["e"]),
                    N("Slice", ["e", "z", "e8", "a2"], ["y"]),
                ],
                [c("r", [5]), c("z", [0]), c("e8", [8]), c("a2", [2])],
            ),
            "rows-mix",
        ),
    ]
    return v


def write(directory) -> list[dict]:
    """Write every vector as NAME.onnx in `directory`; [{name, file, code}]."""
    from pathlib import Path

    out = []
    for k, (name, data, code) in enumerate(vectors()):
        f = Path(directory) / f"v{k:02d}.onnx"
        f.write_bytes(data)
        out.append({"name": name, "file": str(f), "code": code})
    return out


def check_model_builds():
    for _name, data, _ in vectors():
        onnx.load_from_string(data)  # the onnx package reads every vector
