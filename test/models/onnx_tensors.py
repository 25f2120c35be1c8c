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


def load_value(path, type_proto):
    """A graph output file: an array, a list of arrays (sequence) or, for an
    optional, None or its value."""
    kind = type_proto.WhichOneof("value")
    if kind == "sequence_type":
        s = onnx.SequenceProto()
        with open(path, "rb") as f:
            s.ParseFromString(f.read())
        return [numpy_helper.to_array(t) for t in s.tensor_values]
    if kind == "optional_type":
        o = onnx.OptionalProto()
        with open(path, "rb") as f:
            o.ParseFromString(f.read())
        if o.HasField("tensor_value"):
            return numpy_helper.to_array(o.tensor_value)
        if o.HasField("sequence_value"):
            return [numpy_helper.to_array(t) for t in o.sequence_value.tensor_values]
        return None
    return load_tensor(path)


def save_tensor(array, name, path):
    # (np.ascontiguousarray would make a scalar 1-D)
    t = numpy_helper.from_array(np.asarray(array, order="C"), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())
