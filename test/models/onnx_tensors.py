"""Reading and writing ONNX TensorProto files (the backend-test layout), shared
by the test scripts."""
import numpy as np
import onnx
from onnx import numpy_helper


def load_tensor(path):
    """The tensor as a numpy array; bfloat16 comes back as its uint16 bits,
    the way ONNX's own test data stores it."""
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    if t.data_type == onnx.TensorProto.BFLOAT16:
        bits = (np.frombuffer(t.raw_data, np.uint16) if t.raw_data
                else np.array(t.int32_data, np.uint16))
        return bits.reshape(tuple(t.dims))
    return numpy_helper.to_array(t)


def save_tensor(array, name, path):
    t = numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())
