"""Writes model.onnx (y = x * w, w in external data w.bin), a test data set,
and evil.onnx whose external location points outside its directory."""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

out = sys.argv[1]
w = numpy_helper.from_array(np.array([1, 2, 3, 4], np.float32), "w")
graph = helper.make_graph(
    [helper.make_node("Mul", ["x", "w"], ["y"], name="scale")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save_model(model, os.path.join(out, "model.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="w.bin", size_threshold=0)
os.makedirs(os.path.join(out, "data"))
x = np.array([0.5, -1, 2, 8], np.float32)
for name, arr in (("input_0", x), ("output_0", x * np.array([1, 2, 3, 4], np.float32))):
    with open(os.path.join(out, "data", name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(arr, name).SerializeToString())
evil = onnx.load(os.path.join(out, "model.onnx"), load_external_data=False)
for e in evil.graph.initializer[0].external_data:
    if e.key == "location":
        e.value = "../outside.bin"
onnx.save(evil, os.path.join(out, "evil.onnx"))
