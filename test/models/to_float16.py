#!/usr/bin/python3
"""Writes the float16 form of a float32 model folder (model.onnx and
test_data_set_0), as a user gets from a float16 export: weights, inputs,
outputs, Casts to float and float Constants in float16; the expected
outputs are the float32 ones (PyTorch's) rounded to float16, and the inputs
the float32 ones rounded, so a run compares float16 arithmetic with the
float32 model's.

    to_float16.py FLOAT_MODEL_DIR OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_tensors import load_tensor, save_tensor  # noqa: E402


def to_float16(model):
    g = model.graph
    for t in g.initializer:
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    del g.value_info[:]
    for n in g.node:
        for a in n.attribute:
            if a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.FLOAT16
            if a.name == "value" and a.t.data_type == TensorProto.FLOAT:
                a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float16)))
    onnx.checker.check_model(model)
    return model


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
    model = to_float16(onnx.load(os.path.join(src, "model.onnx")))
    onnx.save(model, os.path.join(out, "model.onnx"))
    for kind, values in (("input", model.graph.input), ("output", model.graph.output)):
        for k, v in enumerate(values):
            path = os.path.join(src, "test_data_set_0", f"{kind}_{k}.pb")
            x = load_tensor(path)
            if x.dtype == np.float32:
                x = x.astype(np.float16)
            save_tensor(x, v.name, os.path.join(out, "test_data_set_0", f"{kind}_{k}.pb"))


if __name__ == "__main__":
    main()
