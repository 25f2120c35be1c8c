"""Reading and writing ONNX TensorProto files (the backend-test layout), shared
by the test scripts."""
import numpy as np
import onnx
from onnx import numpy_helper


def load_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def save_tensor(array, name, path):
    t = numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())
