#!/usr/bin/python3
"""Writes the malformed-model corpus: one folder per case under OUT_DIR.

Every case is a model file (plus, for external data, the files beside it)
that onnxc must reject with a clear error, a non-zero exit and no output.
The expected error text is part of the case (cases.json), so the check
(check_corpus.py) fails when the error stops naming the node, tensor or
file. Models are built with onnx.helper; the few byte-level cases (empty,
truncated, bit-flipped) start from a valid model's bytes.

Usage: make_corpus.py OUT_DIR
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def model(nodes, inputs, outputs, initializers=(), opset=OPSET, domains=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    imports = [helper.make_opsetid("", opset)] if opset is not None else []
    imports += [helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(graph, opset_imports=imports, producer_name="make_corpus")
    m.ir_version = 8
    return m


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def relu_model(shape=(2, 3)):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", shape)], [vi("y", shape)])


def with_dim(shape):
    """A Relu model whose input and output dims are written as given (the
    helper rejects some of them, so the protobuf is edited directly)."""
    m = relu_model((1,))
    for v in (m.graph.input[0], m.graph.output[0]):
        dims = v.type.tensor_type.shape.dim
        del dims[:]
        for d in shape:
            dims.add().dim_value = d
    return m


def nested_if(depth):
    """`depth` If nodes, each holding the next in its then-branch."""
    leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["r"])], "leaf", [],
                             [vi("r", [1])])
    body = leaf
    for level in range(depth):
        node = helper.make_node("If", ["c"], ["r"], name=f"if_{level}",
                                then_branch=body, else_branch=leaf)
        body = helper.make_graph([node], f"level_{level}", [], [vi("r", [1])])
    return model(list(body.node), [vi("x", [1]), vi("c", [], TensorProto.BOOL)],
                 [vi("r", [1])])


def loop_model(trip_count):
    body = helper.make_graph(
        [helper.make_node("Add", ["v", "one"], ["v_next"], name="step"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going")],
        "body",
        [vi("i", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL), vi("v", [1])],
        [vi("cond_out", [], TensorProto.BOOL), vi("v_next", [1])],
        [numpy_helper.from_array(np.ones(1, np.float32), "one")])
    return model(
        [helper.make_node("Loop", ["trip", "cond", "x"], ["y"], name="huge_loop", body=body)],
        [vi("x", [1])], [vi("y", [1])],
        [numpy_helper.from_array(np.array(trip_count, np.int64), "trip"),
         numpy_helper.from_array(np.array(True), "cond")])


def external_weights(location, offset=None, length=None):
    """Add(x, w) with w in external data at `location`."""
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
              [vi("x", [4])], [vi("y", [4])],
              [numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")])
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = w.external_data.add()
        e.key, e.value = k, v
    return m


def cases():
    """(name, model or bytes, expected error text, extra files[, onnxc
    arguments[, the number of errors expected]])."""
    good = relu_model().SerializeToString()
    flipped = bytearray(good)
    flipped[0] ^= 0x07  # ir_version's tag becomes wire type 7, which does not exist
    w16 = np.arange(16, dtype=np.float32).tobytes()

    yield "empty-file", b"", "is not a valid ONNX model", {}
    yield "truncated", good[: len(good) // 2], "is not a valid ONNX model", {}
    yield "bit-flipped", bytes(flipped), "is not a valid ONNX model", {}
    yield "not-protobuf", b"ir_version: 8\nthis is text\n", "is not a valid ONNX model", {}
    yield "no-graph", onnx.ModelProto(ir_version=8, opset_import=[helper.make_opsetid("", 17)]), \
        "no ir_version or graph", {}
    yield "cycle", model(
        [helper.make_node("Add", ["x", "b"], ["a"], name="add"),
         helper.make_node("Relu", ["a"], ["b"], name="relu")],
        [vi("x", [2])], [vi("b", [2])]), "cycle through nodes 'add', 'relu'", {}
    yield "dangling-input", model(
        [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")],
        [vi("x", [2])], [vi("y", [2])]), "'nowhere'", {}
    yield "dangling-output", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("missing", [2])]), "'missing'", {}
    yield "duplicate-node-output", model(
        [helper.make_node("Relu", ["x"], ["y"], name="first"),
         helper.make_node("Neg", ["x"], ["y"], name="second")],
        [vi("x", [2])], [vi("y", [2])]), "'y'", {}
    yield "duplicate-graph-input", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2]), vi("x", [2])], [vi("y", [2])]), "'x'", {}
    yield "output-shadows-input", model(
        [helper.make_node("Relu", ["x"], ["x"], name="relu")],
        [vi("x", [2])], [vi("x", [2])]), "'x'", {}
    yield "unknown-op", model(
        [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="frob")],
        [vi("x", [2])], [vi("y", [2])]), "FrobnicateTensor", {}
    yield "empty-op-type", model(
        [helper.make_node("", ["x"], ["y"], name="nameless")],
        [vi("x", [2])], [vi("y", [2])]), "nameless", {}
    yield "custom-domain", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu", domain="com.example")],
        [vi("x", [2])], [vi("y", [2])], domains=["com.example"]), "com.example", {}
    yield "no-default-opset", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("y", [2])], opset=None), "no opset of the default ONNX domain", {}
    yield "opset-0", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("y", [2])], opset=0), "opset 0", {}
    yield "opset-99", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("y", [2])], opset=99), "opset 99", {}
    yield "negative-dim", with_dim([2, -5]), "'x'", {}
    yield "overflow-2^40x2^40", with_dim([1 << 40, 1 << 40]), "'x'", {}
    yield "overflow-bytes-2^62", with_dim([1 << 62]), "'x'", {}
    yield "huge-dim-2^50", with_dim([1 << 50]), "'x'", {}
    init = numpy_helper.from_array(np.arange(16, dtype=np.float32), "w")
    init.raw_data = w16[:40]  # 10 floats for 16 elements
    yield "initializer-raw-size", model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", [16])], [vi("y", [16])], [init]), "'w'", {}
    short = helper.make_tensor("w", TensorProto.FLOAT, [10], list(range(10)))
    short.dims[0] = 16  # 10 values for 16 elements
    yield "initializer-float-data-count", model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", [16])], [vi("y", [16])], [short]), "'w'", {}
    bad_type = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    bad_type.data_type = 999
    yield "initializer-unknown-dtype", model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", [4])], [vi("y", [4])], [bad_type]), "'w'", {}
    yield "input-unknown-dtype", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2], 999)], [vi("y", [2])]), "'x'", {}
    yield "dtype-mismatch", model(
        [helper.make_node("Add", ["x", "n"], ["y"], name="mixed_add")],
        [vi("x", [2]), vi("n", [2], TensorProto.INT64)], [vi("y", [2])]), "mixed_add", {}
    yield "wrong-attribute-type", model(
        [helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=1.5)],
        [vi("x", [2, 3])], [vi("y", [2, 3])]), "softmax", {}
    yield "loop-huge-trip-count", loop_model(1 << 62), "huge_loop", {}
    yield "nested-if-200", nested_if(200), "nests subgraphs deeper", {}
    # Found by the fuzzer: a Reshape target whose element count overflows int64
    # (UBSan: signed overflow in shape inference).
    yield "reshape-overflow", model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        [vi("x", [1, 9, 4, 4])], [vi("y", None)],
        [numpy_helper.from_array(np.array([2354478658407226368, 4, 4], np.int64), "shape")]), \
        "node 'reshape'", {}
    # Found by the fuzzer: DepthToSpace without its input (a null dereference).
    yield "depth-to-space-no-input", model(
        [helper.make_node("DepthToSpace", [], ["y"], name="d2s", blocksize=2)],
        [vi("x", [1, 4, 2, 2])], [vi("y", [1, 1, 4, 4])]), "node 'd2s'", {}
    yield "expand-overflow", model(
        [helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")],
        [vi("x", [1, 1])], [vi("y", None)],
        [numpy_helper.from_array(np.array([1 << 40, 1 << 40], np.int64), "shape")]), \
        "node 'expand'", {}
    # Found by the fuzzer's long run (the rest of this block): Tile repeats
    # whose product overflows int64 (UBSan), and negative repeats.
    yield "tile-overflow", model(
        [helper.make_node("Tile", ["x", "reps"], ["y"], name="tile")],
        [vi("x", [3, 2])], [vi("y", None)],
        [numpy_helper.from_array(np.array([7234316346692756851, 1], np.int64), "reps")]), \
        "node 'tile'", {}
    yield "tile-negative", model(
        [helper.make_node("Tile", ["x", "reps"], ["y"], name="tile")],
        [vi("x", [3, 2])], [vi("y", None)],
        [numpy_helper.from_array(np.array([-2, 1], np.int64), "reps")]), "node 'tile'", {}
    # Inputs the schema requires, missing (Concat of nothing read past its
    # operand list; any op's inference may assume its required inputs).
    yield "concat-no-inputs", model(
        [helper.make_node("Concat", [], ["y"], name="concat", axis=0)],
        [vi("x", [2])], [vi("y", None)]), "node 'concat'", {}
    yield "required-input-empty", model(
        [helper.make_node("Gemm", ["x", ""], ["y"], name="gemm")],
        [vi("x", [2, 2])], [vi("y", None)]), "node 'gemm'", {}
    yield "too-many-inputs", model(
        [helper.make_node("Relu", ["x", "x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("y", [2])]), "node 'relu'", {}
    # Ranks an op's inference indexed without checking.
    yield "gathernd-scalar-indices", model(
        [helper.make_node("GatherND", ["x", "i"], ["y"], name="gathernd")],
        [vi("x", [2, 2])], [vi("y", None)],
        [numpy_helper.from_array(np.array(0, np.int64), "i")]), "node 'gathernd'", {}
    yield "roialign-scalar-rois", model(
        [helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], name="roialign")],
        [vi("x", [1, 1, 4, 4])], [vi("y", None)],
        [numpy_helper.from_array(np.array(0, np.float32), "rois"),
         numpy_helper.from_array(np.zeros(1, np.int64), "idx")]), "node 'roialign'", {}
    yield "split-to-sequence-axis", model(
        [helper.make_node("SplitToSequence", ["x"], ["s"], name="split", axis=5),
         helper.make_node("ConcatFromSequence", ["s"], ["y"], name="join", axis=0)],
        [vi("x", [2, 2])], [vi("y", None)]), "node 'split'", {}
    # The sequence ops are expanded at import: a missing tensor input (opset
    # 18, past the schemas libonnx has: only their minimum applies), a
    # split into 788 million pieces (memory blow-up), a split size of 0
    # (an endless loop).
    yield "split-to-sequence-no-input", model(
        [helper.make_node("SplitToSequence", [], ["s"], name="split", axis=0),
         helper.make_node("ConcatFromSequence", ["s"], ["y"], name="join", axis=0)],
        [vi("x", [3])], [vi("y", None)], opset=18), "node 'split'", {}
    yield "split-to-sequence-huge", model(
        [helper.make_node("SplitToSequence", ["x"], ["s"], name="split", axis=0),
         helper.make_node("ConcatFromSequence", ["s"], ["y"], name="join", axis=0)],
        [vi("x", [788495101])], [vi("y", None)]), "node 'split'", {}
    yield "split-to-sequence-zero-size", model(
        [helper.make_node("SplitToSequence", ["x", "size"], ["s"], name="split", axis=0),
         helper.make_node("ConcatFromSequence", ["s"], ["y"], name="join", axis=0)],
        [vi("x", [6])], [vi("y", None)],
        [numpy_helper.from_array(np.array(0, np.int64), "size")]), "node 'split'", {}
    # group = 0 divided the channel count in ConvTranspose's inference.
    yield "conv-transpose-group-zero", model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv", group=0)],
        [vi("x", [1, 3, 4, 5])], [vi("y", None)],
        [numpy_helper.from_array(np.ones((3, 3, 3, 3), np.float32), "w")]), "node 'deconv'", {}
    yield "group-norm-zero-groups", model(
        [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=0)],
        [vi("x", [1, 4, 2, 2])], [vi("y", None)],
        [numpy_helper.from_array(np.ones(4, np.float32), "s"),
         numpy_helper.from_array(np.zeros(4, np.float32), "b")], opset=21), "node 'gn'", {}
    # An empty tensor whose other dims multiply past int64: Flatten (here
    # inside opset-12 Softmax's 2-D coercion) multiplied them.
    yield "empty-tensor-huge-dims", with_dim([0, 38700654258, 12752773118]), "'x'", {}
    # STFT with a scalar window (its length read from a rank-0 shape).
    yield "stft-scalar-window", model(
        [helper.make_node("STFT", ["signal", "step", "window"], ["y"], name="stft")],
        [vi("signal", [1, 128, 1])], [vi("y", None)],
        [numpy_helper.from_array(np.array(8, np.int64), "step"),
         numpy_helper.from_array(np.array(1, np.float32), "window")]), "node 'stft'", {}
    yield "stft-zero-step", model(
        [helper.make_node("STFT", ["signal", "step", "window"], ["y"], name="stft")],
        [vi("signal", [1, 128, 1])], [vi("y", None)],
        [numpy_helper.from_array(np.array(0, np.int64), "step"),
         numpy_helper.from_array(np.ones(16, np.float32), "window")]), "node 'stft'", {}
    # Split with no outputs divided the dimension by their count.
    yield "split-no-outputs", model(
        [helper.make_node("Split", ["x"], [], name="split", axis=0)],
        [vi("x", [3])], [vi("x2", None)]), "node 'split'", {}
    # An op at an opset before ONNX had it (Scan came in opset 8): libonnx
    # has no schema to check it against, and the Scan-8 import read an input
    # list that was empty.
    yield "op-before-its-opset", model(
        [helper.make_node("Scan", [], ["y"], name="scan5", body=helper.make_graph(
            [], "body", [], []), num_scan_inputs=1)],
        [vi("x", [2])], [vi("y", None)], opset=5), "node 'scan5'", {}
    scan_body = helper.make_graph(
        [helper.make_node("Identity", ["e"], ["o"])], "body", [vi("e", [2])], [vi("o", [2])])
    yield "scan-axis-out-of-range", model(
        [helper.make_node("Scan", ["x"], ["y"], name="scan", body=scan_body,
                          num_scan_inputs=1, scan_input_axes=[7])],
        [vi("x", [3, 2])], [vi("y", None)]), "node 'scan'", {}
    yield "scan-count-out-of-range", model(
        [helper.make_node("Scan", ["x"], ["y"], name="scan", body=scan_body,
                          num_scan_inputs=-3)],
        [vi("x", [3, 2])], [vi("y", None)]), "node 'scan'", {}
    scan8_body = helper.make_graph(
        [helper.make_node("Identity", ["e"], ["o"])], "body", [vi("e", [2])], [vi("o", [2])])
    yield "scan8-empty-batch", model(
        [helper.make_node("Scan", ["", "x"], ["y"], name="scan8", body=scan8_body,
                          num_scan_inputs=1)],
        [vi("x", [0, 3, 2])], [vi("y", None)], opset=8), "node 'scan8'", {}
    # 4 TiB of arena: fine on a 64-bit host, refused for a 32-bit target.
    yield "arena-beyond-32-bit", model(
        [helper.make_node("ConstantOfShape", ["shape"], ["zeros"], name="fill"),
         helper.make_node("Add", ["x", "zeros"], ["y"], name="add")],
        [vi("x", [1])], [vi("y", None)],
        [numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "shape")]), \
        "cortex-m4 addresses 4 GiB", {}, ["--target", "cortex-m4"]
    yield "duplicate-initializer", model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", [4])], [vi("y", [4])],
        [numpy_helper.from_array(np.ones(4, np.float32), "w"),
         numpy_helper.from_array(np.zeros(4, np.float32), "w")]), "initializer 'w' is defined twice", {}
    # One error for one cause: the readers of a failed node say nothing more.
    yield "one-error-per-cause", model(
        [helper.make_node("QuantizeLinear", ["x", "zero", "zp"], ["q"], name="quantize"),
         helper.make_node("DequantizeLinear", ["q", "one", "zp"], ["d"], name="dequantize"),
         helper.make_node("Relu", ["d"], ["y"], name="relu")],
        [vi("x", [4])], [vi("y", [4])],
        [numpy_helper.from_array(np.array(0, np.float32), "zero"),
         numpy_helper.from_array(np.array(1, np.float32), "one"),
         numpy_helper.from_array(np.array(0, np.int8), "zp")]), "node 'quantize'", {}, [], 1
    yield "external-dotdot", external_weights("../w.bin"), "'w'", {}
    yield "external-absolute", external_weights("/etc/passwd"), "'w'", {}
    yield "external-missing", external_weights("absent.bin"), "'w'", {}
    yield "external-offset-beyond", external_weights("w.bin", offset=4096), "'w'", {"w.bin": w16}
    yield "external-length-beyond", external_weights("w.bin", offset=48, length=32), "'w'", \
        {"w.bin": w16}
    yield "external-length-mismatch", external_weights("w.bin", length=8), "'w'", {"w.bin": w16}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    index = []
    for name, m, expect, extra, *more in cases():
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        data = m if isinstance(m, bytes) else m.SerializeToString()
        with open(os.path.join(folder, "model.onnx"), "wb") as f:
            f.write(data)
        for file, content in extra.items():
            with open(os.path.join(folder, file), "wb") as f:
                f.write(content)
        entry = {"name": name, "expect": expect}
        if more:
            entry["args"] = more[0]
        if len(more) > 1:
            entry["errors"] = more[1]
        index.append(entry)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"make_corpus: {len(index)} cases in {out}")


if __name__ == "__main__":
    main()
