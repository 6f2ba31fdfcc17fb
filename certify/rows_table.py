"""The data of the row-independence rule (sketchpad.certify.rows): which ONNX operators a step
graph may use, and how each one moves the batch axis.  The page reads the same table from
web/generated/certificate-rule.json ("rows", `table_json`), so Python and JavaScript check
one list.

Each operator names a `kind`, the handler that knows its semantics (certify/rows_ops.py and
web/certify/rows_ops.js implement the same handlers), and `shape_inputs`: the inputs read as
values (a target shape, axes, slice bounds, pads) rather than as data.  Only there may a value
computed from the batch size go; anywhere else it is arithmetic on the batch size, refused.

Everything not listed is refused.  Operators that draw random numbers are refused by name,
with their own reason, even if someone adds them to the list.
"""

from __future__ import annotations

OPSET_MIN, OPSET_MAX = 18, 21  # ai.onnx versions whose operator signatures the handlers know
DOMAINS = ("", "ai.onnx")

NONDETERMINISTIC = (
    "Bernoulli",
    "Dropout",
    "Multinomial",
    "RandomNormal",
    "RandomNormalLike",
    "RandomUniform",
    "RandomUniformLike",
)

_UNARY = (
    "Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Elu Erf Exp Floor Gelu HardSigmoid HardSwish "
    "Identity IsInf IsNaN LeakyRelu Log Mish Neg Not Reciprocal Relu Round Selu Shrink Sigmoid Sign Sin "
    "Sinh Softplus Softsign Sqrt Tan Tanh ThresholdedRelu Cast"
).split()
_BROADCAST = (
    "Add And BitShift Div Equal Greater GreaterOrEqual Less LessOrEqual Max Mean Min Mod Mul Or Pow "
    "PRelu Sub Sum Where Xor Clip"
).split()
_REDUCE = (
    "ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare"
).split()


def _ops() -> dict:
    ops = {op: {"kind": "unary"} for op in _UNARY}
    ops.update({op: {"kind": "broadcast"} for op in _BROADCAST})
    ops["Clip"] = {"kind": "broadcast", "free_inputs": [1, 2]}
    ops["CastLike"] = {"kind": "unary", "free_inputs": [1]}  # input 1 gives only its type
    ops.update({op: {"kind": "reduce", "shape_inputs": [1]} for op in _REDUCE})
    ops.update(
        {
            "ArgMax": {"kind": "argreduce"},
            "ArgMin": {"kind": "argreduce"},
            "Softmax": {"kind": "along", "axis": -1},
            "LogSoftmax": {"kind": "along", "axis": -1},
            "Hardmax": {"kind": "along", "axis": -1},
            "CumSum": {"kind": "along", "axis_input": 1, "shape_inputs": [1]},
            "LayerNormalization": {"kind": "normalize", "axis": -1, "free_inputs": [1, 2]},
            "MatMul": {"kind": "matmul", "a": 0, "b": 1},
            "MatMulInteger": {"kind": "matmul", "a": 0, "b": 1, "free_inputs": [2, 3], "scalar_inputs": [2]},
            "QLinearMatMul": {
                "kind": "matmul",
                "a": 0,
                "b": 3,
                "free_inputs": [1, 2, 4, 5, 6, 7],
                "scalar_inputs": [1, 2, 6, 7],
            },
            "Gemm": {"kind": "gemm", "free_inputs": [1, 2]},
            "QuantizeLinear": {"kind": "quantize", "free_inputs": [1, 2]},
            "DequantizeLinear": {"kind": "quantize", "free_inputs": [1, 2]},
            "DynamicQuantizeLinear": {"kind": "whole_tensor"},
            "Transpose": {"kind": "transpose"},
            "Unsqueeze": {"kind": "unsqueeze", "shape_inputs": [1]},
            "Squeeze": {"kind": "squeeze", "shape_inputs": [1]},
            "Reshape": {"kind": "reshape", "shape_inputs": [1]},
            "Flatten": {"kind": "flatten"},
            "Expand": {"kind": "expand", "shape_inputs": [1]},
            "Tile": {"kind": "tile", "shape_inputs": [1]},
            "Concat": {"kind": "concat"},
            "Split": {"kind": "split", "shape_inputs": [1]},
            "Slice": {"kind": "slice", "shape_inputs": [1, 2, 3, 4]},
            "Pad": {"kind": "pad", "shape_inputs": [1, 3], "free_inputs": [2]},
            "Gather": {"kind": "gather"},
            "GatherElements": {"kind": "elements"},
            "ScatterElements": {"kind": "elements"},
            "GatherND": {"kind": "gather_nd"},
            "ScatterND": {"kind": "scatter_nd"},
            "Trilu": {"kind": "trilu", "shape_inputs": [1]},
            "Shape": {"kind": "shape"},
            "Size": {"kind": "size"},
            "Constant": {"kind": "constant"},
            "ConstantOfShape": {"kind": "constant_of_shape", "shape_inputs": [0]},
            "Range": {"kind": "range", "shape_inputs": [0, 1, 2]},
        }
    )
    for name in NONDETERMINISTIC:
        ops.pop(name, None)
    return dict(sorted(ops.items()))


OPS = _ops()


def table_json() -> dict:
    """The table for JavaScript (in web/generated/certificate-rule.json)."""
    return {
        "format": "sketchpad-rows-rule/1",
        "opset": [OPSET_MIN, OPSET_MAX],
        "domains": list(DOMAINS),
        "nondeterministic": list(NONDETERMINISTIC),
        "ops": OPS,
    }
