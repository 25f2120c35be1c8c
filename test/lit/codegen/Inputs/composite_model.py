#!/usr/bin/python3
"""Writes a model whose inputs and outputs are a sequence and optionals (the
textual ONNX syntax of this onnx version has no such types):
    out = SequenceInsert(s, t); wrapped = Optional(t); has = OptionalHasElement(o)
with s: seq(float[N, 3]), t: float[2, 3], o: optional(float[4]).
Usage: composite_model.py OUT.onnx"""
import sys

import onnx
from onnx import TensorProto, helper

seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, ["N", 3]))
opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [4]))
graph = helper.make_graph(
    [helper.make_node("SequenceInsert", ["s", "t"], ["out"]),
     helper.make_node("Optional", ["t"], ["wrapped"]),
     helper.make_node("OptionalHasElement", ["o"], ["has"])],
    "g",
    [helper.make_value_info("s", seq),
     helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 3]),
     helper.make_value_info("o", opt)],
    [helper.make_value_info("out", seq),
     helper.make_value_info("wrapped", helper.make_optional_type_proto(
         helper.make_tensor_type_proto(TensorProto.FLOAT, [2, 3]))),
     helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
