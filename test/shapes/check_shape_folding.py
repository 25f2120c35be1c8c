#!/usr/bin/python3
"""Shape arithmetic, as exporters write it, folds to constants (issue 48).

    check_shape_folding.py ONNXC --work DIR [CASE ...]

Each case is a model whose every input dimension is known (or fixed with
--dim) but whose graph computes shapes, pads, slice bounds or branch
conditions from them at run time:

  swin          torchvision's Swin Transformer (two stages, window 7): the
                window padding is (7 - H % 7) % 7 through Shape, Gather, Mod,
                Sub, Concat, ConstantOfShape, Reshape, Slice with a negative
                step, Transpose and Cast, and the attention mask is built with
                ScatterND; PyTorch's outputs are the reference.
  torch_dynamic a transformer encoder and a CNN exported by PyTorch with
                dynamic_axes (batch, seq), so every Reshape target is a
                Shape -> Gather -> Unsqueeze -> Concat chain, compiled with
                --dim batch=2 --dim seq=7; PyTorch's outputs.
  tf2onnx       tf2onnx's forms, written with onnx.helper: int32 shape values
                (Shape -> Cast(int32) -> Slice -> Squeeze -> Unsqueeze/Concat
                -> Cast(int64)), FloorMod padding, a float round trip with
                Ceil, Range + Gather position tables, Min/Max/Where bounds,
                Size, and an If on Equal(shape) (tf.cond); numpy computes the
                intended result directly.

For each: `onnxc run` matches the reference, and the planned IR (--emit
mlir) holds no Shape, Size, Range, ConstantOfShape or If, and every shape
operand (Reshape's shape, Pad's pads, Slice's bounds, Expand's and Tile's
sizes, a reduction's axes) is a constant.
"""
import argparse
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
from onnx_tensors import load_tensor, save_tensor  # noqa: E402

warnings.filterwarnings("ignore")

# Ops that must not survive the passes, and the operands that must be
# constants where they do (op: operand positions).
FOLDED_AWAY = ("Shape", "Size", "Range", "ConstantOfShape", "If", "NonZero")
SHAPE_OPERANDS = {"Reshape": (1,), "Pad": (1, 2), "Slice": (1, 2, 3, 4), "Expand": (1,),
                  "Tile": (1,), "Unsqueeze": (1,), "Squeeze": (1,), "ReduceSum": (1,),
                  "ReduceMean": (1,), "ReduceMax": (1,), "Split": (1,), "TopK": (1,),
                  "OneHot": (1,)}


# --- the models -----------------------------------------------------------------


def torch_case(name, model, inputs, input_names, dynamic_axes=None):
    import torch
    torch.manual_seed(0)
    model.eval()
    with torch.no_grad():
        ref = model(*inputs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return {"export": lambda path: torch.onnx.export(
                model, tuple(inputs), path, opset_version=17, input_names=input_names,
                output_names=[f"out{i}" for i in range(len(refs))], dynamic_axes=dynamic_axes),
            "inputs": [x.numpy() for x in inputs], "outputs": [r.numpy() for r in refs]}


def swin():
    import torch
    from torchvision.models.swin_transformer import SwinTransformer
    torch.manual_seed(0)
    # 112 x 112: stage resolutions 28 and 14, neither a multiple of the
    # window (7 divides both, so the pads fold to 0; 100 x 100 gives 25 and
    # 13: real padding, and the shifted windows' masks).
    m = SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                        window_size=[7, 7], stochastic_depth_prob=0.0, num_classes=10)
    x = torch.randn(1, 3, 100, 100, generator=torch.Generator().manual_seed(1))
    return {**torch_case("swin", m, [x], ["x"]), "flags": []}


def torch_dynamic():
    import torch

    class EncoderAndCnn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                                     dropout=0.0, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, num_layers=1,
                                                       enable_nested_tensor=False)
            self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.fc = torch.nn.Linear(8 * 8 * 8, 5)

        def forward(self, tokens, image):
            b, s, d = tokens.shape
            h = self.encoder(tokens)
            # view with sizes read from the tensor: the exporter's Shape chains
            heads = h.reshape(b, s, 4, d // 4).transpose(1, 2).reshape(b * 4, s, d // 4)
            y = self.conv(image)
            y = y.view(y.size(0), -1)
            return heads.sum(dim=1), self.fc(y)

    g = torch.Generator().manual_seed(1)
    tokens = torch.randn(2, 7, 32, generator=g)
    image = torch.randn(2, 3, 16, 16, generator=g)
    case = torch_case("torch_dynamic", EncoderAndCnn(), [tokens, image], ["tokens", "image"],
                      dynamic_axes={"tokens": {0: "batch", 1: "seq"}, "image": {0: "batch"}})
    case["flags"] = ["--dim", "batch=2", "--dim", "seq=7"]
    return case


def tf2onnx():
    """tf2onnx's forms of tf.shape arithmetic on an NHWC float input."""
    I32, I64, F = TensorProto.INT32, TensorProto.INT64, TensorProto.FLOAT
    n, h, w, c = 2, 6, 10, 3
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    table = rng.standard_normal((16, c)).astype(np.float32)
    inits = [numpy_helper.from_array(v, k) for k, v in {
        "i0": np.array([0], np.int64), "i1": np.array([1], np.int64),
        "i2": np.array([2], np.int64), "i3": np.array([3], np.int64),
        "i4": np.array([4], np.int64), "ax0": np.array([0], np.int64),
        "m1_32": np.array([-1], np.int32), "four32": np.array(4, np.int32),
        "zero32": np.array(0, np.int32), "one32": np.array(1, np.int32),
        "eight32": np.array(8, np.int32), "half": np.array(0.5, np.float32),
        "six32": np.array(6, np.int32), "table": table,
        "zeros4_32": np.zeros(4, np.int32), "zero1_32": np.array([0], np.int32),
        "zero64": np.array([0], np.int64)}.items()]
    nodes = [
        helper.make_node("Shape", ["x"], ["shape64"]),
        helper.make_node("Cast", ["shape64"], ["shape"], to=I32),
        # tf.reshape(x, [tf.shape(x)[0], -1]): StridedSlice + Squeeze + Pack
        helper.make_node("Slice", ["shape", "i0", "i1", "ax0"], ["n1"]),
        helper.make_node("Squeeze", ["n1", "ax0"], ["n"]),
        helper.make_node("Unsqueeze", ["n", "ax0"], ["n_packed"]),
        helper.make_node("Concat", ["n_packed", "m1_32"], ["flat32"], axis=0),
        helper.make_node("Cast", ["flat32"], ["flat64"], to=I64),
        helper.make_node("Reshape", ["x", "flat64"], ["flat"]),
        # pad H and W up to multiples of 4: (4 - d % 4) % 4 with FloorMod
        helper.make_node("Slice", ["shape", "i1", "i3", "ax0"], ["hw"]),
        helper.make_node("Mod", ["hw", "four32"], ["r"]),
        helper.make_node("Sub", ["four32", "r"], ["r2"]),
        helper.make_node("Mod", ["r2", "four32"], ["pad_hw"]),
        helper.make_node("Concat", ["zeros4_32", "zero1_32", "pad_hw", "zero1_32"],
                         ["pads32"], axis=0),
        helper.make_node("Cast", ["pads32"], ["pads"], to=I64),
        helper.make_node("Pad", ["x", "pads"], ["padded"]),
        # a half-height crop through a float round trip: ceil(h * 0.5)
        helper.make_node("Slice", ["shape", "i1", "i2", "ax0"], ["h_1"]),
        helper.make_node("Cast", ["h_1"], ["hw_f"], to=F),
        helper.make_node("Mul", ["hw_f", "half"], ["hw_half"]),
        helper.make_node("Ceil", ["hw_half"], ["hw_ceil"]),
        helper.make_node("Cast", ["hw_ceil"], ["crop_end"], to=I64),
        helper.make_node("Slice", ["x", "i0", "crop_end", "i1"], ["crop_h"]),
        # position table: Gather(table, Range(0, W)) added to x
        helper.make_node("Gather", ["shape", "i2"], ["w1"], axis=0),
        helper.make_node("Squeeze", ["w1", "ax0"], ["w_"]),
        helper.make_node("Range", ["zero32", "w_", "one32"], ["pos"]),
        helper.make_node("Gather", ["table", "pos"], ["pos_emb"], axis=0),
        helper.make_node("Add", ["x", "pos_emb"], ["with_pos"]),
        # slice end min(W, 8), step Where(W > 8, 1, 2)
        helper.make_node("Min", ["w_", "eight32"], ["end32"]),
        helper.make_node("Greater", ["w_", "eight32"], ["wide"]),
        helper.make_node("Where", ["wide", "one32", "four32"], ["step32"]),
        helper.make_node("Unsqueeze", ["end32", "ax0"], ["end_1"]),
        helper.make_node("Unsqueeze", ["step32", "ax0"], ["step_1"]),
        helper.make_node("Cast", ["end_1"], ["end"], to=I64),
        helper.make_node("Cast", ["step_1"], ["step"], to=I64),
        helper.make_node("Max", ["i0", "zero64"], ["start"]),
        helper.make_node("Slice", ["x", "start", "end", "i2", "step"], ["strided"]),
        # tf.cond(tf.shape(x)[1] == 6, mean over H, max over H)
        helper.make_node("Gather", ["shape", "i1"], ["h1"], axis=0),
        helper.make_node("Squeeze", ["h1", "ax0"], ["h_"]),
        helper.make_node("Equal", ["h_", "six32"], ["is6"]),
        helper.make_node("If", ["is6"], ["pooled"],
                         then_branch=helper.make_graph(
                             [helper.make_node("ReduceMean", ["x"], ["m"], axes=[1])], "then",
                             [], [helper.make_tensor_value_info("m", F, None)]),
                         else_branch=helper.make_graph(
                             [helper.make_node("ReduceMax", ["x"], ["m2"], axes=[1])], "else",
                             [], [helper.make_tensor_value_info("m2", F, None)])),
        # tf.size(x) as a float scale
        helper.make_node("Size", ["x"], ["size"]),
        helper.make_node("Cast", ["size"], ["size_f"], to=F),
        helper.make_node("Div", ["x", "size_f"], ["scaled"]),
    ]
    outs = ["flat", "padded", "crop_h", "with_pos", "strided", "pooled", "scaled"]
    graph = helper.make_graph(nodes, "tf2onnx_forms",
                              [helper.make_tensor_value_info("x", F, [n, h, w, c])],
                              [helper.make_tensor_value_info(o, F, None) for o in outs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    refs = [x.reshape(n, -1),
            np.pad(x, [(0, 0), (0, (4 - h % 4) % 4), (0, (4 - w % 4) % 4), (0, 0)]),
            x[:, :int(np.ceil(h * 0.5))],
            x + table[np.arange(w)][None, None],
            x[:, :, 0:min(w, 8):(1 if w > 8 else 4)],
            x.mean(axis=1, keepdims=True) if h == 6 else x.max(axis=1, keepdims=True),
            x / x.size]
    return {"export": lambda path: onnx.save(model, path), "inputs": [x], "outputs": refs,
            "flags": []}


CASES = {"swin": swin, "torch_dynamic": torch_dynamic, "tf2onnx": tf2onnx}


# --- the checks -----------------------------------------------------------------


def unfolded(mlir):
    """What of the shape arithmetic is left in the planned IR."""
    constants = set(re.findall(r"(%[\w#]+) = \"onnx\.(?:Constant|NoValue)\"", mlir))
    problems = []
    for m in re.finditer(r"(%[\w#]+)(?::\d+)?(?:, %[\w#]+)* = \"onnx\.(\w+)\"\(([^)]*)\)", mlir):
        op, operands = m.group(2), [a.strip() for a in m.group(3).split(",") if a.strip()]
        if op in FOLDED_AWAY:
            problems.append(f"{op} left: {m.group(0)[:120]}")
        for i in SHAPE_OPERANDS.get(op, ()):
            if i < len(operands) and operands[i] not in constants:
                problems.append(f"{op} operand {i} is computed at run time: {m.group(0)[:120]}")
    return problems


def check(onnxc, name, case, work):
    d = os.path.join(work, name)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    model = os.path.join(d, "model.onnx")
    case["export"](model)
    for i, x in enumerate(case["inputs"]):
        save_tensor(x, f"input_{i}", os.path.join(data, f"input_{i}.pb"))
    ok = True
    r = subprocess.run([onnxc, model, "-o", os.path.join(d, "mlir"), "--emit", "mlir", "--quiet",
                        "--name", "m"] + case["flags"], capture_output=True, text=True)
    if r.returncode:
        print(f"{name}: compile failed:\n{r.stderr[-3000:]}")
        return False
    with open(os.path.join(d, "mlir", "m.mlir")) as f:
        problems = unfolded(f.read())
    for p in problems[:10]:
        print(f"{name}: {p}")
    ok &= not problems
    out = os.path.join(d, "out")
    r = subprocess.run([onnxc, "run", model, "--target", "generic", "--inputs", data,
                        "--outputs", out] + case["flags"], capture_output=True, text=True)
    if r.returncode:
        print(f"{name}: onnxc run failed:\n{r.stderr[-3000:]}")
        return False
    for i, ref in enumerate(case["outputs"]):
        got = load_tensor(os.path.join(out, f"output_{i}.pb"))
        if got.shape != ref.shape:
            print(f"{name}: output {i} shape {got.shape}, reference {ref.shape}")
            ok = False
            continue
        scale = max(float(np.max(np.abs(ref))), 1e-30)
        rel = float(np.max(np.abs(got.astype(np.float64) - ref))) / scale
        good = rel <= 1e-4
        print(f"{name}: output {i} {list(ref.shape)} rel err {rel:.2g} "
              f"({'ok' if good else 'FAIL'})")
        ok &= good
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("onnxc")
    ap.add_argument("--work", required=True)
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_intermixed_args()
    ok = True
    for name in args.cases:
        ok &= check(args.onnxc, name, CASES[name](), args.work)
    print("shape folding: " + ("all cases pass" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
