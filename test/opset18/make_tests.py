#!/usr/bin/python3
"""Builds backend-style tests for opsets 18-22 (ONNX 1.12's own tests stop at
17): small models made with onnx.helper, inputs from a fixed seed, expected
outputs from PyTorch. Each test is OUT/test_<name>/model.onnx plus
test_data_set_0/, so run_conformance.py --root OUT runs them.

They cover what changed after opset 17 in onnxc's versioned import: Reduce*
axes as an input (18), Split num_outputs (18), Pad axes (18) and wrap mode
(19), ScatterElements/ScatterND max/min reduction (18), Resize axes (18),
AveragePool dilations (19), GroupNormalization per group (18) and per
channel (21), Mish and the Bitwise ops (18), Gelu (20). Also outputs whose
shape the data decides (NonZero, Unique, NonMaxSuppression) on inputs larger
than the backend suite's, with thresholds given at run time, and strings
(Cast to and from numbers, numpy's str() as reference; StringNormalizer;
string tensors through Concat, Gather and Transpose; strings made and read
between ops on numbers). And a 3-D convolution (Conv3d). And float16 and
bfloat16 tensors through element-wise and data-movement ops, and float64
through convolution, Gemm, MatMul and the normalisations, and a 3-D
ConvInteger.
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from onnx_tensors import save_tensor  # noqa: E402

F = TensorProto.FLOAT
I64 = TensorProto.INT64
I32 = TensorProto.INT32
D = TensorProto.DOUBLE
S = TensorProto.STRING


def make(out, name, opset, nodes, inputs, outputs, feeds, expected, inits=()):
    """inputs/outputs: (name, elem_type, shape); feeds/expected: arrays."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    d = os.path.join(out, "test_" + name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (vi, a) in enumerate(zip(inputs, feeds)):
        save_tensor(a, vi[0], os.path.join(d, "test_data_set_0", f"input_{i}.pb"))
    for i, (vi, a) in enumerate(zip(outputs, expected)):
        save_tensor(a, vi[0], os.path.join(d, "test_data_set_0", f"output_{i}.pb"))


def const(name, values, dtype=np.int64):
    return helper.make_tensor(name, I64 if dtype == np.int64 else F,
                              [len(values)], list(values))


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    tx = torch.from_numpy(x)

    # Reduce* with axes as an input (18).
    for op, fn in [("ReduceMean", lambda t, a: t.mean(a, keepdim=True)),
                   ("ReduceMax", lambda t, a: t.amax(a, keepdim=True)),
                   ("ReduceMin", lambda t, a: t.amin(a, keepdim=True)),
                   ("ReduceProd", lambda t, a: t.prod(a[0], keepdim=True).prod(a[1], keepdim=True)),
                   ("ReduceL2", lambda t, a: t.pow(2).sum(a, keepdim=True).sqrt()),
                   ("ReduceLogSumExp", lambda t, a: t.logsumexp(a, keepdim=True))]:
        make(out, f"{op.lower()}_axes_input_opset18", 18,
             [helper.make_node(op, ["x", "axes"], ["y"], keepdims=1)],
             [("x", F, x.shape)], [("y", F, None)], [x],
             [fn(tx, (1, 3)).numpy()], [const("axes", [1, -1])])
    make(out, "reducesum_empty_axes_noop_opset18", 18,
         [helper.make_node("ReduceMean", ["x", "axes"], ["y"], noop_with_empty_axes=1)],
         [("x", F, x.shape)], [("y", F, None)], [x], [x], [const("axes", [])])

    # Split into num_outputs uneven parts (18): 7 -> 3, 3, 1.
    s = rng.standard_normal((7, 2)).astype(np.float32)
    parts = torch.from_numpy(s).split(3)
    make(out, "split_num_outputs_uneven_opset18", 18,
         [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)],
         [("x", F, s.shape)], [("a", F, None), ("b", F, None), ("c", F, None)], [s],
         [p.numpy() for p in parts])

    # Pad with axes (18) and wrap mode (19).
    make(out, "pad_axes_reflect_opset18", 18,
         [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect")],
         [("x", F, x.shape)], [("y", F, None)], [x],
         [torch.nn.functional.pad(tx, (2, 1, 1, 2), mode="reflect").numpy()],
         [const("pads", [1, 2, 2, 1]), const("axes", [2, 3])])
    make(out, "pad_wrap_opset19", 19,
         [helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")],
         [("x", F, x.shape)], [("y", F, None)], [x],
         [torch.nn.functional.pad(tx, (1, 2, 2, 1), mode="circular").numpy()],
         [const("pads", [0, 0, 2, 1, 0, 0, 1, 2])])

    # ScatterElements and ScatterND with max/min reduction (18).
    data = rng.standard_normal((3, 4)).astype(np.float32)
    idx = np.array([[0, 1, 0, 2], [2, 1, 0, 0]], np.int64)
    upd = rng.standard_normal((2, 4)).astype(np.float32)
    for red, tred in (("max", "amax"), ("min", "amin")):
        ref = torch.from_numpy(data).scatter_reduce(0, torch.from_numpy(idx),
                                                    torch.from_numpy(upd), tred, include_self=True)
        make(out, f"scatter_elements_{red}_opset18", 18,
             [helper.make_node("ScatterElements", ["d", "i", "u"], ["y"], axis=0, reduction=red)],
             [("d", F, data.shape), ("i", I64, idx.shape), ("u", F, upd.shape)],
             [("y", F, None)], [data, idx, upd], [ref.numpy()])
    nd_idx = np.array([[1], [0], [1]], np.int64)
    nd_upd = rng.standard_normal((3, 4)).astype(np.float32)
    ref = data.copy()
    for k in range(3):
        ref[nd_idx[k, 0]] = np.maximum(ref[nd_idx[k, 0]], nd_upd[k])
    make(out, "scatternd_max_opset18", 18,
         [helper.make_node("ScatterND", ["d", "i", "u"], ["y"], reduction="max")],
         [("d", F, data.shape), ("i", I64, nd_idx.shape), ("u", F, nd_upd.shape)],
         [("y", F, None)], [data, nd_idx, nd_upd], [ref])

    # Resize with axes (18): bilinear on the spatial axes only.
    img = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    ref = torch.nn.functional.interpolate(torch.from_numpy(img), size=(8, 9), mode="bilinear",
                                          align_corners=False)
    make(out, "resize_axes_linear_opset18", 18,
         [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear", axes=[2, 3])],
         [("x", F, img.shape)], [("y", F, None)], [img], [ref.numpy()],
         [const("sizes", [8, 9])])

    # AveragePool with dilations (19): checked against an unfold-based mean.
    ap = rng.standard_normal((1, 2, 7, 7)).astype(np.float32)
    cols = torch.nn.functional.unfold(torch.from_numpy(ap), kernel_size=2, dilation=2)
    ref = cols.view(1, 2, 4, -1).mean(2).view(1, 2, 5, 5)
    make(out, "averagepool_dilations_opset19", 19,
         [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2])],
         [("x", F, ap.shape)], [("y", F, None)], [ap], [ref.numpy()])

    # GroupNormalization: per-group scale (18) and per-channel scale (21).
    g = rng.standard_normal((2, 6, 3, 3)).astype(np.float32)
    gs = rng.standard_normal(3).astype(np.float32)
    gb = rng.standard_normal(3).astype(np.float32)
    ref = torch.nn.functional.group_norm(torch.from_numpy(g), 3, torch.from_numpy(np.repeat(gs, 2)),
                                         torch.from_numpy(np.repeat(gb, 2)), eps=1e-5)
    make(out, "groupnorm_per_group_opset18", 18,
         [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3)],
         [("x", F, g.shape), ("s", F, gs.shape), ("b", F, gb.shape)], [("y", F, None)],
         [g, gs, gb], [ref.numpy()])
    cs = rng.standard_normal(6).astype(np.float32)
    cb = rng.standard_normal(6).astype(np.float32)
    ref = torch.nn.functional.group_norm(torch.from_numpy(g), 3, torch.from_numpy(cs),
                                         torch.from_numpy(cb), eps=1e-5)
    make(out, "groupnorm_per_channel_opset21", 21,
         [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3)],
         [("x", F, g.shape), ("s", F, cs.shape), ("b", F, cb.shape)], [("y", F, None)],
         [g, cs, cb], [ref.numpy()])

    # Mish (18), Gelu (20), Bitwise (18).
    make(out, "mish_opset18", 18, [helper.make_node("Mish", ["x"], ["y"])],
         [("x", F, x.shape)], [("y", F, None)], [x],
         [torch.nn.functional.mish(tx).numpy()])
    for approx in ("none", "tanh"):
        make(out, f"gelu_{approx}_opset20", 20,
             [helper.make_node("Gelu", ["x"], ["y"], approximate=approx)],
             [("x", F, x.shape)], [("y", F, None)], [x],
             [torch.nn.functional.gelu(tx, approximate=approx).numpy()])
    a = rng.integers(-100, 100, (3, 4)).astype(np.int32)
    b = rng.integers(-100, 100, (4,)).astype(np.int32)
    for op, fn in (("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or),
                   ("BitwiseXor", np.bitwise_xor)):
        make(out, f"{op.lower()}_broadcast_opset18", 18, [helper.make_node(op, ["a", "b"], ["y"])],
             [("a", I32, a.shape), ("b", I32, b.shape)], [("y", I32, None)], [a, b],
             [fn(torch.from_numpy(a).numpy(), b)])
    make(out, "bitwisenot_opset18", 18, [helper.make_node("BitwiseNot", ["a"], ["y"])],
         [("a", I32, a.shape)], [("y", I32, None)], [a], [(~torch.from_numpy(a)).numpy()])

    # Data-dependent output shapes, PyTorch (and torchvision's nms) as reference.
    z = np.where(rng.random((3, 4, 5)) < 0.5, 0, rng.standard_normal((3, 4, 5))).astype(np.float32)
    make(out, "nonzero_3d_opset18", 18, [helper.make_node("NonZero", ["x"], ["y"])],
         [("x", F, z.shape)], [("y", I64, None)], [z],
         [torch.nonzero(torch.from_numpy(z)).T.contiguous().numpy()])
    u = rng.integers(0, 10, (40,)).astype(np.int64)
    yu, inv, cnt = torch.unique(torch.from_numpy(u), sorted=True, return_inverse=True,
                                return_counts=True)
    make(out, "unique_sorted_no_indices_opset18", 18,
         [helper.make_node("Unique", ["x"], ["y", "", "inverse", "counts"], sorted=1)],
         [("x", I64, u.shape)], [("y", I64, None), ("inverse", I64, None), ("counts", I64, None)],
         [u], [yu.numpy(), inv.numpy(), cnt.numpy()])
    ua = rng.integers(0, 2, (2, 12)).astype(np.float32)
    yu, inv, cnt = torch.unique(torch.from_numpy(ua), sorted=True, return_inverse=True,
                                return_counts=True, dim=1)
    make(out, "unique_axis1_opset18", 18,
         [helper.make_node("Unique", ["x"], ["y", "", "inverse", "counts"], sorted=1, axis=1)],
         [("x", F, ua.shape)], [("y", F, None), ("inverse", I64, None), ("counts", I64, None)],
         [ua], [yu.numpy(), inv.numpy(), cnt.numpy()])
    import torchvision
    corners = rng.random((1, 30, 2)).astype(np.float32) * 10
    sizes = rng.random((1, 30, 2)).astype(np.float32) * 4 + 0.5
    boxes = np.concatenate([corners, corners + sizes], axis=2)  # [y1, x1, y2, x2]
    scores = rng.random((1, 2, 30)).astype(np.float32)
    limit, iou, thresh = np.array([6], np.int64), np.array([0.3], np.float32), np.array([0.2], np.float32)
    rows = []
    tb = torch.from_numpy(boxes[0][:, [1, 0, 3, 2]])  # torchvision wants x1, y1, x2, y2
    for c in range(2):
        keep_score = np.nonzero(scores[0, c] > thresh[0])[0]
        kept = torchvision.ops.nms(tb[keep_score], torch.from_numpy(scores[0, c][keep_score]),
                                   float(iou[0]))
        rows += [[0, c, int(keep_score[k])] for k in kept[:limit[0]]]
    make(out, "nonmaxsuppression_runtime_thresholds_opset18", 18,
         [helper.make_node("NonMaxSuppression", ["boxes", "scores", "limit", "iou", "thresh"],
                           ["selected"])],
         [("boxes", F, boxes.shape), ("scores", F, scores.shape), ("limit", I64, [1]),
          ("iou", F, [1]), ("thresh", F, [1])], [("selected", I64, None)],
         [boxes, scores, limit, iou, thresh], [np.array(rows, np.int64)])

    # Strings. numpy's astype(str) is what ONNX's own Cast tests expect.
    nums = np.array([0.0, -0.0, 1.0, 2.5e-5, 1e-4, 123456789.0, 1e16, -3.25e20, 0.1,
                     np.nan, np.inf, -np.inf], np.float64)
    make(out, "cast_DOUBLE_to_STRING_opset18", 18, [helper.make_node("Cast", ["x"], ["y"], to=S)],
         [("x", D, nums.shape)], [("y", S, None)], [nums], [nums.astype(str).astype(object)])
    ints = np.array([0, -7, 9223372036854775807, -9223372036854775808], np.int64)
    make(out, "cast_INT64_to_STRING_opset18", 18, [helper.make_node("Cast", ["x"], ["y"], to=S)],
         [("x", I64, ints.shape)], [("y", S, None)], [ints], [ints.astype(str).astype(object)])
    texts = np.array(["1.5", " -2e3", "inf", "-INF", "nan", "0.1"], dtype=object)
    make(out, "cast_STRING_to_DOUBLE_opset18", 18, [helper.make_node("Cast", ["x"], ["y"], to=D)],
         [("x", S, texts.shape)], [("y", D, None)], [texts],
         [np.array([float(t) for t in texts], np.float64)])
    itexts = np.array(["42", "-17", " 9000000000"], dtype=object)
    make(out, "cast_STRING_to_INT64_opset18", 18, [helper.make_node("Cast", ["x"], ["y"], to=I64)],
         [("x", S, itexts.shape)], [("y", I64, None)], [itexts],
         [np.array([int(t) for t in itexts], np.int64)])
    words = np.array([["The", "quick", "BROWN", "fox", "the", "Lazy", "dög"]], dtype=object)
    stop = ["the", "lazy"]
    kept = [w.lower() if w.isascii() else w for w in words[0] if w.lower() not in stop]
    make(out, "strnormalizer_insensitive_lower_2d_opset18", 18,
         [helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="LOWER",
                           is_case_sensitive=0, stopwords=stop)],
         [("x", S, words.shape)], [("y", S, None)], [words], [np.array([kept], dtype=object)])
    a = np.array([["a", "bb"], ["ccc", ""]], dtype=object)
    b = np.array([["δ", "e"]], dtype=object)
    idx = np.array([2, 0], np.int64)
    ref = np.concatenate([a, b], axis=0)[idx].T
    make(out, "strings_concat_gather_transpose_opset18", 18,
         [helper.make_node("Concat", ["a", "b"], ["c"], axis=0),
          helper.make_node("Gather", ["c", "i"], ["g"], axis=0),
          helper.make_node("Transpose", ["g"], ["y"])],
         [("a", S, a.shape), ("b", S, b.shape), ("i", I64, idx.shape)], [("y", S, None)],
         [a, b, idx], [ref])
    # A 3-D convolution (Conv3d): 2 groups, strides, asymmetric pads and
    # dilations, each spatial dim different; then Relu (on --target cuda the
    # direct N-d kernel).
    x3 = rng.standard_normal((1, 4, 5, 6, 7)).astype(np.float32)
    w3 = rng.standard_normal((6, 2, 3, 3, 2)).astype(np.float32)
    b3 = rng.standard_normal(6).astype(np.float32)
    padded = torch.nn.functional.pad(torch.from_numpy(x3), (0, 1, 1, 1, 1, 0))
    y3 = torch.relu(torch.nn.functional.conv3d(padded, torch.from_numpy(w3), torch.from_numpy(b3),
                                               stride=(2, 1, 1), dilation=(1, 2, 1), groups=2))
    make(out, "conv3d_groups_opset18", 18,
         [helper.make_node("Conv", ["x", "w", "b"], ["c"], group=2, strides=[2, 1, 1],
                           pads=[1, 1, 0, 0, 1, 1], dilations=[1, 2, 1]),
          helper.make_node("Relu", ["c"], ["y"])],
         [("x", F, x3.shape)], [("y", F, None)], [x3], [y3.numpy()],
         inits=[numpy_helper.from_array(w3, "w"), numpy_helper.from_array(b3, "b")])
    # ConvInteger over 3 spatial dims, a zero point per output channel,
    # padded (the padding is the input's zero point); PyTorch's double
    # convolution of the shifted values, exact at these sizes.
    U8 = TensorProto.UINT8
    xq = rng.integers(0, 256, (1, 2, 4, 5, 6)).astype(np.uint8)
    wq = rng.integers(0, 256, (3, 2, 2, 3, 2)).astype(np.uint8)
    xzp, wzp = np.array(131, np.uint8), np.array([120, 128, 135], np.uint8)
    shifted = torch.from_numpy(xq.astype(np.float64) - 131.0)
    yq = torch.nn.functional.conv3d(
        torch.nn.functional.pad(shifted, (1, 0, 0, 1, 1, 1)),
        torch.from_numpy(wq.astype(np.float64) - wzp.astype(np.float64)[:, None, None, None,
                                                                        None]),
        stride=(1, 2, 1))
    make(out, "conv_integer_3d_opset18", 18,
         [helper.make_node("ConvInteger", ["x", "w", "xzp", "wzp"], ["y"], strides=[1, 2, 1],
                           pads=[1, 0, 1, 1, 1, 0])],
         [("x", U8, xq.shape)], [("y", I32, None)], [xq], [yq.numpy().astype(np.int32)],
         inits=[numpy_helper.from_array(wq, "w"), numpy_helper.from_array(xzp, "xzp"),
                numpy_helper.from_array(wzp, "wzp")])
    # float64 through Conv, BatchNormalization, InstanceNormalization, Gemm,
    # LayerNormalization, Softmax, a broadcast MatMul and a LogSoftmax over a
    # strided axis (on --target cuda their double kernels, summing in
    # double); PyTorch in double.
    xd = rng.standard_normal((2, 3, 6, 6))
    wd, bd = rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4)
    bn = [rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4),
          rng.random(4) + 0.5]  # scale, bias, mean, var
    ins_s, ins_b = rng.standard_normal(4), rng.standard_normal(4)
    gw, gb = rng.standard_normal((10, 144)) * 0.1, rng.standard_normal(10)
    ln_s, ln_b = rng.standard_normal(10), rng.standard_normal(10)
    mw = rng.standard_normal((36, 5))
    eps = float(np.float32(1e-5))
    td = [torch.from_numpy(a) for a in (xd, wd, bd, *bn, ins_s, ins_b, gw, gb, ln_s, ln_b, mw)]
    fn = torch.nn.functional
    cd = torch.relu(fn.batch_norm(fn.conv2d(td[0], td[1], td[2], padding=1), td[5], td[6], td[3],
                                  td[4], eps=eps))
    nd = fn.instance_norm(cd, weight=td[7], bias=td[8], eps=eps)
    gd = torch.relu(0.5 * nd.reshape(2, 144) @ td[9].T + 2.0 * td[10])
    y1 = torch.softmax(fn.layer_norm(gd, [10], td[11], td[12], eps=eps), -1)
    y2 = torch.log_softmax(nd.reshape(2, 4, 36) @ td[13], 1)
    names = ["w", "b", "bn_s", "bn_b", "bn_m", "bn_v", "in_s", "in_b", "gw", "gb", "ln_s", "ln_b",
             "mw"]
    make(out, "float64_conv_gemm_norms_opset18", 18,
         [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
          helper.make_node("BatchNormalization", ["c", "bn_s", "bn_b", "bn_m", "bn_v"], ["n"],
                           epsilon=eps),
          helper.make_node("Relu", ["n"], ["r"]),
          helper.make_node("InstanceNormalization", ["r", "in_s", "in_b"], ["i"], epsilon=eps),
          helper.make_node("Reshape", ["i", "flat"], ["f"]),
          helper.make_node("Gemm", ["f", "gw", "gb"], ["g"], transB=1, alpha=0.5, beta=2.0),
          helper.make_node("Relu", ["g"], ["gr"]),
          helper.make_node("LayerNormalization", ["gr", "ln_s", "ln_b"], ["l"], epsilon=eps),
          helper.make_node("Softmax", ["l"], ["y1"], axis=-1),
          helper.make_node("Reshape", ["i", "rows"], ["i3"]),
          helper.make_node("MatMul", ["i3", "mw"], ["m"]),
          helper.make_node("LogSoftmax", ["m"], ["y2"], axis=1)],
         [("x", D, xd.shape)], [("y1", D, None), ("y2", D, None)], [xd],
         [y1.numpy(), y2.numpy()],
         inits=[numpy_helper.from_array(a, n) for a, n in
                zip((wd, bd, *bn, ins_s, ins_b, gw, gb, ln_s, ln_b, mw), names)] +
               [const("flat", [2, 144]), const("rows", [2, 4, 36])])
    # Strings between device ops: on --target cuda the Mul and the Add run on
    # the GPU, the casts and StringNormalizer on the host as steps of its
    # schedule, the numbers crossing both ways.
    xs = np.array([0.003, -2.5, 7.0, 1e-3, 0.1, -0.2], np.float32)
    sq = (torch.from_numpy(xs) * torch.from_numpy(xs)).numpy()
    text = np.array([str(v) for v in sq], dtype=object)
    upper = np.array([v.upper() for v in text], dtype=object)
    back = (torch.from_numpy(text.astype(np.float32)) + torch.from_numpy(xs)).numpy()
    make(out, "strings_between_device_ops_opset18", 18,
         [helper.make_node("Mul", ["x", "x"], ["sq"]),
          helper.make_node("Cast", ["sq"], ["s"], to=S),
          helper.make_node("StringNormalizer", ["s"], ["u"], case_change_action="UPPER"),
          helper.make_node("Cast", ["s"], ["f"], to=F),
          helper.make_node("Add", ["f", "x"], ["y"])],
         [("x", F, xs.shape)], [("y", F, None), ("u", S, None)], [xs], [back, upper])
    # 16-bit float tensors through the element-wise and data-movement ops
    # (what --target cuda takes them in): PyTorch's float arithmetic, each
    # op's result rounded to float16 or bfloat16 (this PyTorch has no
    # float16 Relu on the CPU).
    H, BF = TensorProto.FLOAT16, TensorProto.BFLOAT16
    xh = rng.standard_normal((2, 3, 4, 5)).astype(np.float16)
    yh = rng.standard_normal((2, 3, 4, 5)).astype(np.float16)
    th, uh = torch.from_numpy(xh).float(), torch.from_numpy(yh).float()

    def half(v):
        return v.half().float()
    t = half(torch.sigmoid(torch.relu(half(half(th + uh) * th)))).permute(0, 2, 1, 3)
    sliced = torch.cat([t, t], 1)[:, 1:7:2, :, 1:4].half()
    gathered = th[[1, 0, 1]].half()
    clipped = torch.clamp(torch.where(th > uh, th, uh), -0.5, 0.75)
    padded = torch.nn.functional.pad(clipped, (0, 2, 1, 0))
    make(out, "float16_elementwise_movement_opset18", 18,
         [helper.make_node("Add", ["x", "y"], ["a"]), helper.make_node("Mul", ["a", "x"], ["m"]),
          helper.make_node("Relu", ["m"], ["r"]), helper.make_node("Sigmoid", ["r"], ["sg"]),
          helper.make_node("Transpose", ["sg"], ["t"], perm=[0, 2, 1, 3]),
          helper.make_node("Concat", ["t", "t"], ["c"], axis=1),
          helper.make_node("Slice", ["c", "starts", "ends", "axes", "steps"], ["s"]),
          helper.make_node("Gather", ["x", "idx"], ["g"], axis=0),
          helper.make_node("Greater", ["x", "y"], ["cond"]),
          helper.make_node("Where", ["cond", "x", "y"], ["w"]),
          helper.make_node("Clip", ["w", "lo", "hi"], ["cl"]),
          helper.make_node("Pad", ["cl", "pads"], ["p"]),
          helper.make_node("Cast", ["p"], ["pf"], to=F)],
         [("x", H, xh.shape), ("y", H, yh.shape)],
         [("s", H, None), ("g", H, None), ("pf", F, None)], [xh, yh],
         [sliced.numpy(), gathered.numpy(), padded.numpy()],
         [const("starts", [1, 1]), const("ends", [7, 4]), const("axes", [1, 3]),
          const("steps", [2, 1]), const("idx", [1, 0, 1]),
          helper.make_tensor("lo", H, [], [-0.5]), helper.make_tensor("hi", H, [], [0.75]),
          const("pads", [0, 0, 1, 0, 0, 0, 0, 2])])
    xf = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    tf = torch.from_numpy(xf).bfloat16().float()
    bsum = ((tf * tf).bfloat16().float() + tf).bfloat16().permute(0, 3, 1, 2).float()
    make(out, "bfloat16_elementwise_movement_opset18", 18,
         [helper.make_node("Cast", ["x"], ["b"], to=BF),
          helper.make_node("Mul", ["b", "b"], ["sq"]), helper.make_node("Add", ["sq", "b"], ["a"]),
          helper.make_node("Transpose", ["a"], ["t"], perm=[0, 3, 1, 2]),
          helper.make_node("Cast", ["t"], ["y"], to=F)],
         [("x", F, xf.shape)], [("y", F, None)], [xf], [bsum.numpy()])
    print(f"wrote opset 18+ tests to {out}")


if __name__ == "__main__":
    main()
