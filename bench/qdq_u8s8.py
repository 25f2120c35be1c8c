"""Rewrites a QDQ model with int8 activations (S8S8, what onnxc writes) into
ONNX Runtime's preferred x86 form, uint8 activations with int8 weights (U8S8,
what ORT's own quantizer writes for x86): every activation's zero point moves
by +128 and becomes uint8, weights and biases stay as they are. The two models
compute the same numbers (int8 [-128, 127] around zp and uint8 [0, 255]
around zp + 128 are the same grid), but ORT's integer kernels on x86 are built
for U8S8 and take slow paths on S8S8, so the int8 benchmark gives ORT this
form (issue 52: a win over a peer's slow path is not a win).

    /usr/bin/python3 qdq_u8s8.py IN.qdq.onnx OUT.qdq.onnx
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def to_u8s8(model):
    """The U8S8 form of `model` (a QDQ ModelProto with int8 activations), a new
    ModelProto; raises ValueError where an int8 activation meets anything but
    a DequantizeLinear (not a QDQ model)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    quantized = {n.output[0] for n in g.node if n.op_type == "QuantizeLinear"}
    for n in g.node:
        for x in n.input:
            if x in quantized and n.op_type != "DequantizeLinear":
                raise ValueError(f"node '{n.name}' ({n.op_type}) reads the int8 activation "
                                 f"'{x}': not a QDQ model")
    made = {}

    def unsigned_zero_point(name):
        if name not in made:
            zp = numpy_helper.to_array(inits[name])
            if zp.dtype != np.int8:
                raise ValueError(f"zero point '{name}' is {zp.dtype}, not int8")
            u8 = numpy_helper.from_array((zp.astype(np.int16) + 128).astype(np.uint8),
                                         name + "_u8")
            g.initializer.append(u8)
            made[name] = u8.name
        return made[name]

    for n in g.node:
        activation = (n.op_type == "QuantizeLinear" or
                      (n.op_type == "DequantizeLinear" and n.input[0] in quantized))
        if not activation:
            continue
        if len(n.input) < 3 or not n.input[2]:
            raise ValueError(f"node '{n.name}' has no zero point: already uint8")
        n.input[2] = unsigned_zero_point(n.input[2])
    # The int8 zero points nothing reads any more.
    used = {x for n in g.node for x in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    # Types inferred for the activations said int8.
    kept = [v for v in g.value_info if v.name not in quantized]
    del g.value_info[:]
    g.value_info.extend(kept)
    return m


def save_u8s8(src, dst):
    m = to_u8s8(onnx.load(src))
    onnx.checker.check_model(m)
    onnx.save(m, dst)


def main():
    save_u8s8(*sys.argv[1:3])


if __name__ == "__main__":
    main()
