#!/usr/bin/python3
"""Sizes the data decides, inside a model (issue 48).

    check_data_dependent.py ONNXC --work DIR [--target T]

NonZero's, Unique's and a run-time Compress's results are bounded: their
type holds the largest size, the run reports the real one. These cases read
such results inside the model, the way exporters write it, and check each
output against PyTorch's or numpy's at several sizes, none and all included:

  mask      torch's `x[x > t] * 2` and `torch.nonzero(x > t)` (NonZero ->
            Transpose -> GatherND -> Mul; NonZero -> Transpose), t an input;
            `scores[keep][:, None] * boxes[keep]` (two NonZeros of one mask).
  unique    torch's `torch.unique(x) * 3 + 1`: Unique -> element-wise.
  topk      torchvision's detection candidates: boxes scoring over t, then
            the best min(3, count) (K from Shape -> Gather -> Concat ->
            ReduceMin at run time), their boxes gathered.
  per_class torchvision's per-class candidates (three classes' best
            min(2, count)) joined by torch.cat: a Concat along the dim.
  detect    torchvision's detection post-processing (SSD's): per-class
            candidates, batched_nms (coordinate trick; the If that returns
            nothing for no boxes), the best 3 kept; boxes, scores, labels.
  ssd       torchvision's SSDLite 320 exported whole (not in the default
            list: its own ctest), against PyTorch's boxes, scores, labels.
  head      `s[:4]` and `s[1:3]` of such an `s`: Slice along the dim (its
            size max(0, min(n, end) - start) at run time).
  reduce    sum, mean, amax, amin, prod, argmax, softmax and log_softmax
            over the rows a mask keeps (the rows past the size take the
            reduction's identity; the mean divides by the real count).
  shape     Shape and Size of NonZero's result: the run's, not the bound's.
  compress  ONNX Compress with a run-time condition: along an axis, and of
            the flattened input with a condition longer than it.
  stacked   outputs whose such dim comes after a dim larger than 1, packed
            for the caller: NonZero's values stacked twice, TopK along rows
            with a K the data decides.
  refused   readers that cannot take such a size are refused, naming the
            node (exit 3): a Hardmax over it.
"""
import argparse
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
from onnx_tensors import load_tensor  # noqa: E402

warnings.filterwarnings("ignore")


def save(path, nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def run(args, model, name, feeds):
    """onnxc run on `feeds` (name -> array): the outputs, in order."""
    base = os.path.join(args.work, name)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(os.path.join(base, "in"))
    for k, v in feeds.items():
        np.save(os.path.join(base, "in", k + ".npy"), v)
    out = os.path.join(base, "out")
    r = subprocess.run([args.onnxc, "run", model, "--inputs", os.path.join(base, "in"),
                        "--outputs", out, "--target", args.target, "--no-cache"],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL {name}: onnxc run exited {r.returncode}\n{r.stderr}")
    return [load_tensor(os.path.join(out, f"output_{i}.pb")) for i in range(len(os.listdir(out)))]


def expect_equal(name, got, want, rtol=0.0):
    """Outputs equal to the reference (within rtol of it where given: a sum
    in another order)."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not (np.array_equal(g, w) or
                                      (rtol and np.allclose(g, w, rtol=rtol, atol=rtol))):
            sys.exit(f"FAIL {name} output {i}: got {g.shape} {g.ravel()[:8]}, "
                     f"want {w.shape} {w.ravel()[:8]}")
    print(f"ok   {name}: " + ", ".join(str(g.shape) for g in got))


def mask(args):
    import torch

    class Mask(torch.nn.Module):
        def forward(self, x, t):
            m = x > t
            return x[m] * 2, torch.nonzero(m)

    path = os.path.join(args.work, "mask.onnx")
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(1))
    torch.onnx.export(Mask(), (x, torch.tensor(0.5)), path, opset_version=17,
                      input_names=["x", "t"], output_names=["picked", "where"])
    for t in (0.5, 10.0, -10.0):
        with torch.no_grad():
            want = [w.numpy() for w in Mask()(x, torch.tensor(t))]
        got = run(args, path, f"mask_t{t}", {"x": x.numpy(), "t": np.array(t, np.float32)})
        expect_equal(f"mask t={t}", got, want)

    class TwoPicks(torch.nn.Module):
        """Two values picked by one mask meet (torch writes a NonZero for
        each `[keep]`; they are one size)."""

        def forward(self, scores, boxes, t):
            keep = scores > t
            return scores[keep][:, None] * boxes[keep]

    path = os.path.join(args.work, "two_picks.onnx")
    boxes = torch.rand(5, 4, generator=torch.Generator().manual_seed(9))
    scores = x[0]
    torch.onnx.export(TwoPicks(), (scores, boxes, torch.tensor(0.5)), path, opset_version=17,
                      input_names=["scores", "boxes", "t"], output_names=["weighted"])
    for t in (0.5, 10.0, -10.0):
        with torch.no_grad():
            want = [TwoPicks()(scores, boxes, torch.tensor(t)).numpy()]
        got = run(args, path, "two_picks", {"scores": scores.numpy(), "boxes": boxes.numpy(),
                                            "t": np.array(t, np.float32)})
        expect_equal(f"two picks t={t}", got, want)


def unique(args):
    import torch

    class Unique(torch.nn.Module):
        def forward(self, x):
            return torch.unique(x) * 3 + 1

    path = os.path.join(args.work, "unique.onnx")
    torch.onnx.export(Unique(), (torch.zeros(10),), path, opset_version=17,
                      input_names=["x"], output_names=["u"])
    rng = np.random.default_rng(2)
    for name, x in (("repeats", rng.integers(0, 4, 10).astype(np.float32)),
                    ("distinct", rng.permutation(10).astype(np.float32)),
                    ("one value", np.full(10, 7, np.float32))):
        with torch.no_grad():
            want = [Unique()(torch.from_numpy(x)).numpy()]
        expect_equal(f"unique {name}", run(args, path, "unique", {"x": x}), want)


def topk(args):
    import torch
    from torchvision.models.detection._utils import _topk_min

    class Candidates(torch.nn.Module):
        """torchvision's detection post-processing: the boxes scoring over
        t, then the best min(3, count) of them (K from Shape -> ReduceMin)."""

        def forward(self, scores, boxes, t):
            keep = scores > t
            s, b = scores[keep], boxes[keep]
            top, idx = s.topk(_topk_min(s, 3, 0))
            return top, b[idx]

    path = os.path.join(args.work, "topk.onnx")
    g = torch.Generator().manual_seed(4)
    scores, boxes = torch.rand(8, generator=g), torch.rand(8, 4, generator=g)
    torch.onnx.export(Candidates(), (scores, boxes, torch.tensor(0.5)), path, opset_version=17,
                      input_names=["scores", "boxes", "t"], output_names=["top", "box"])
    ranked = np.sort(scores.numpy())[::-1]
    # 0, 1, 2 boxes over t (K = count), and 5, all 8 (K = 3).
    for t in (2.0, ranked[0] - 1e-3, ranked[1] - 1e-3, ranked[4] - 1e-3, -1.0):
        with torch.no_grad():
            want = [w.numpy() for w in Candidates()(scores, boxes, torch.tensor(float(t)))]
        got = run(args, path, "topk", {"scores": scores.numpy(), "boxes": boxes.numpy(),
                                       "t": np.array(t, np.float32)})
        expect_equal(f"topk t={t:.3f}", got, want)


def per_class_candidates(scores, boxes, t, k):
    """torchvision's per-class candidates: for each class (a column of
    scores) the boxes scoring over t, the best min(k, count) of them and
    their labels (full_like), joined by torch.cat."""
    import torch
    from torchvision.models.detection._utils import _topk_min
    top_scores, top_boxes, labels = [], [], []
    for c in range(scores.shape[1]):
        keep = scores[:, c] > t
        s, b = scores[:, c][keep], boxes[keep]
        top, idx = s.topk(_topk_min(s, k, 0))
        top_scores.append(top)
        top_boxes.append(b[idx])
        labels.append(torch.full_like(top, c, dtype=torch.int64))
    return torch.cat(top_scores), torch.cat(top_boxes, 0), torch.cat(labels)


def threshold_sweep(args, module, name, scores, boxes, outputs, thresholds):
    """Exports module(scores, boxes, t) and checks onnxc's outputs against
    PyTorch's at each score threshold t."""
    import torch
    path = os.path.join(args.work, name + ".onnx")
    torch.onnx.export(module, (scores, boxes, torch.tensor(0.5)), path, opset_version=17,
                      input_names=["scores", "boxes", "t"], output_names=outputs)
    for t in thresholds:
        with torch.no_grad():
            want = [w.numpy() for w in module(scores, boxes, torch.tensor(t))]
        got = run(args, path, name, {"scores": scores.numpy(), "boxes": boxes.numpy(),
                                     "t": np.array(t, np.float32)})
        expect_equal(f"{name} t={t}", got, want)


def per_class(args):
    import torch

    class PerClass(torch.nn.Module):
        """torchvision's per-class candidates, joined: for each class the
        boxes scoring over t, the best min(2, count) and their labels
        (full_like: ConstantOfShape of a Shape), then torch.cat of the
        classes' (a Concat along the dim whose size the data decides)."""

        def forward(self, scores, boxes, t):
            s, b, labels = per_class_candidates(scores, boxes, t, 2)
            return s, b * 2, labels

    g = torch.Generator().manual_seed(7)
    scores, boxes = torch.rand(6, 3, generator=g), torch.rand(6, 4, generator=g)
    threshold_sweep(args, PerClass(), "per_class", scores, boxes, ["top", "box", "label"],
                    (2.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.2, -1.0))


def detect(args):
    import torch
    from torchvision.ops import boxes as box_ops

    class Detect(torch.nn.Module):
        """torchvision's detection post-processing (as SSD's): per-class
        candidates over t, the best min(4, count) each, joined, then
        batched_nms (its coordinate trick: boxes offset by class, and an If
        returning nothing when there are no boxes) and the best 3 kept."""

        def forward(self, scores, boxes, t):
            s, b, lab = per_class_candidates(scores, boxes, t, 4)
            keep = box_ops.batched_nms(b, s, lab, 0.4)[:3]
            return b[keep], s[keep], lab[keep]

    g = torch.Generator().manual_seed(8)
    scores = torch.rand(10, 3, generator=g)
    corners = torch.rand(10, 2, generator=g) * 20
    boxes = torch.cat([corners, corners + 4 + torch.rand(10, 2, generator=g) * 10], 1)
    threshold_sweep(args, Detect(), "detect", scores, boxes,
                    ["boxes_out", "scores_out", "labels"], (2.0, 0.95, 0.8, 0.5, 0.0))


def ssd(args):
    """torchvision's SSDLite 320 (MobileNetV3-Large backbone, 5 classes,
    untrained weights scaled so the scores do not tie), exported whole: its
    transform, the heads, and the post-processing above (per-class score
    threshold and top-50, batched_nms, the best 20) against PyTorch's boxes,
    scores and labels."""
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5, detections_per_img=20,
        topk_candidates=50)
    with torch.no_grad():
        # Untrained heads give every anchor nearly one score (ties, which
        # PyTorch and ONNX break differently); these weights do not.
        for name, p in model.named_parameters():
            if "head" in name:
                p.normal_(0, 0.3)
            elif p.dim() > 1:
                p.mul_(3.0)
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.1)
    model.eval()
    image = torch.rand(3, 320, 320)
    path = os.path.join(args.work, "ssd.onnx")
    torch.onnx.export(model, ([image],), path, opset_version=17, input_names=["image"],
                      output_names=["boxes", "scores", "labels"])
    with torch.no_grad():
        out = model([image])[0]
    want = [out["boxes"].numpy(), out["scores"].numpy(), out["labels"].numpy()]
    got = run(args, path, "ssd", {"image": image.numpy()})
    # Box corners in pixels (to 320) after float convolutions: 1e-4 relative.
    expect_equal("ssdlite320", got, want, rtol=1e-4)


def head(args):
    import torch

    class Head(torch.nn.Module):
        """The first rows of a size the data decides: `[:4]`, `[1:3]`."""

        def forward(self, x, t):
            s = x[x > t]
            return s[:4], s[1:3]

    path = os.path.join(args.work, "head.onnx")
    x = torch.rand(10, generator=torch.Generator().manual_seed(5))
    torch.onnx.export(Head(), (x, torch.tensor(0.5)), path, opset_version=17,
                      input_names=["x", "t"], output_names=["first4", "second2"])
    ranked = np.sort(x.numpy())[::-1]
    for count in (0, 1, 2, 3, 6, 10):
        t = 2.0 if count == 0 else ranked[count - 1] - 1e-4
        with torch.no_grad():
            want = [w.numpy() for w in Head()(x, torch.tensor(float(t)))]
        got = run(args, path, "head", {"x": x.numpy(), "t": np.array(t, np.float32)})
        expect_equal(f"head of {count}", got, want)


def reduce(args):
    import torch

    class Reduce(torch.nn.Module):
        """Reductions over the rows a mask keeps: only the real rows count."""

        def forward(self, x, boxes, t):
            keep = x > t
            s, b = x[keep], boxes[keep] - 1
            return (s.sum(), s.mean(), b.amax(0), b.amin(0), torch.softmax(s, 0),
                    b.argmax(0), (b * 2).prod(0), torch.log_softmax(b, 0))

    path = os.path.join(args.work, "reduce.onnx")
    g = torch.Generator().manual_seed(6)
    x, boxes = torch.rand(10, generator=g), torch.rand(10, 4, generator=g)
    torch.onnx.export(Reduce(), (x, boxes, torch.tensor(0.5)), path, opset_version=17,
                      input_names=["x", "boxes", "t"])
    ranked = np.sort(x.numpy())[::-1]
    for count in (1, 3, 10):
        t = ranked[count - 1] - 1e-4
        with torch.no_grad():
            want = [w.numpy() for w in Reduce()(x, boxes, torch.tensor(float(t)))]
        got = run(args, path, "reduce", {"x": x.numpy(), "boxes": boxes.numpy(),
                                         "t": np.array(t, np.float32)})
        expect_equal(f"reduce over {count}", got, want, rtol=1e-5)


def shape(args):
    """Shape of NonZero's result is the run's [rank, count] (it once folded
    to the bound, [rank, numel]); Size is rank * count."""
    path = os.path.join(args.work, "shape.onnx")
    i64 = TensorProto.INT64
    save(path, [helper.make_node("NonZero", ["x"], ["i"]),
                helper.make_node("Shape", ["i"], ["s"]),
                helper.make_node("Size", ["i"], ["n"])],
         [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
         [helper.make_tensor_value_info("s", i64, [2]),
          helper.make_tensor_value_info("n", i64, [])])
    for x in (np.array([[0, 1, 2], [0, 0, 3]], np.float32), np.zeros((2, 3), np.float32)):
        count = int(np.count_nonzero(x))
        expect_equal(f"shape of nonzero ({count})", run(args, path, "shape", {"x": x}),
                     [np.array([2, count]), np.array(2 * count)])


def compress(args):
    path = os.path.join(args.work, "compress.onnx")
    f32, b = TensorProto.FLOAT, TensorProto.BOOL
    save(path, [helper.make_node("Greater", ["s", "t"], ["m"]),
                helper.make_node("Compress", ["x", "m"], ["rows"], axis=0),
                helper.make_node("Compress", ["x", "c"], ["flat"])],
         [helper.make_tensor_value_info("x", f32, [5, 3]),
          helper.make_tensor_value_info("s", f32, [5]),
          helper.make_tensor_value_info("t", f32, []),
          helper.make_tensor_value_info("c", b, [20])],
         [helper.make_tensor_value_info("rows", f32, ["n", 3]),
          helper.make_tensor_value_info("flat", f32, ["k"])])
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    s = rng.standard_normal(5).astype(np.float32)
    for t in (0.0, 9.0, -9.0):
        c = rng.random(20) > 0.5
        got = run(args, path, "compress", {"x": x, "s": s, "t": np.array(t, np.float32), "c": c})
        # Condition elements past the input's are ignored (ONNX Compress).
        expect_equal(f"compress t={t}", got,
                     [np.compress(s > t, x, axis=0), np.compress(c[:15], x)])


def stacked(args):
    """Outputs whose data-sized dim comes after a dim larger than 1, packed
    for the caller: NonZero's values stacked twice ([2, n]), and TopK along
    the rows of a [3, 8] input with a K the data decides ([3, k])."""
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    path = os.path.join(args.work, "stacked.onnx")
    zero = helper.make_tensor("zero", i64, [], [0])
    save(path, [helper.make_node("NonZero", ["x"], ["i"]),
                helper.make_node("Transpose", ["i"], ["it"], perm=[1, 0]),
                helper.make_node("GatherND", ["x", "it"], ["g"]),
                helper.make_node("Constant", [], ["axes"],
                                 value=helper.make_tensor("a", i64, [1], [0])),
                helper.make_node("Unsqueeze", ["g", "axes"], ["u"]),
                helper.make_node("Concat", ["u", "u"], ["y"], axis=0),
                helper.make_node("Constant", [], ["row"], value=zero),
                helper.make_node("Gather", ["z", "row"], ["z0"], axis=0),
                helper.make_node("Greater", ["z0", "t"], ["above"]),
                helper.make_node("Cast", ["above"], ["ones"], to=i64),
                helper.make_node("ReduceSum", ["ones", "axes"], ["k"], keepdims=1),
                helper.make_node("TopK", ["z", "k"], ["values", "indices"], axis=1)],
         [helper.make_tensor_value_info("x", f32, [2, 3]),
          helper.make_tensor_value_info("z", f32, [3, 8]),
          helper.make_tensor_value_info("t", f32, [])],
         [helper.make_tensor_value_info("y", f32, [2, "n"]),
          helper.make_tensor_value_info("values", f32, [3, "k"]),
          helper.make_tensor_value_info("indices", i64, [3, "k"])])
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3)).astype(np.float32) * (rng.random((2, 3)) > 0.4)
    z = rng.standard_normal((3, 8)).astype(np.float32)
    for t in (9.0, 0.0, -9.0):
        got = run(args, path, "stacked", {"x": x, "z": z, "t": np.array(t, np.float32)})
        k = int((z[0] > t).sum())
        order = np.argsort(-z, axis=1, kind="stable")[:, :k]
        expect_equal(f"stacked t={t}", got,
                     [np.stack([x[x != 0]] * 2), np.take_along_axis(z, order, 1), order])


def refused(args):
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    x = [helper.make_tensor_value_info("x", f32, [2, 3])]
    cases = {
        "hardmax": ([helper.make_node("NonZero", ["x"], ["i"], name="nz"),
                     helper.make_node("Transpose", ["i"], ["it"], perm=[1, 0]),
                     helper.make_node("Cast", ["it"], ["f"], to=f32, name="cast"),
                     helper.make_node("Hardmax", ["f"], ["y"], axis=0, name="soft")],
                    [helper.make_tensor_value_info("y", f32, ["n", 2])],
                    "node 'soft': reads a value whose size the data decides (from node 'nz')"),
    }
    for name, (nodes, outputs, message) in cases.items():
        path = os.path.join(args.work, f"refused_{name}.onnx")
        save(path, nodes, x, outputs)
        out = os.path.join(args.work, f"refused_{name}")
        shutil.rmtree(out, ignore_errors=True)
        r = subprocess.run([args.onnxc, path, "-o", out, "--target", args.target],
                           capture_output=True, text=True)
        if r.returncode != 3 or message not in r.stderr or os.path.exists(out):
            sys.exit(f"FAIL refused {name}: exit {r.returncode}, wrote {os.path.exists(out)}\n"
                     f"{r.stderr}\nwanted: {message}")
        print(f"ok   refused {name} (exit {r.returncode})")


CASES = {"mask": mask, "unique": unique, "topk": topk, "per_class": per_class, "detect": detect,
         "head": head, "ssd": ssd,
         "reduce": reduce,
         "shape": shape,
         "compress": compress,
         "stacked": stacked,
         "refused": refused}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("onnxc")
    p.add_argument("--work", required=True)
    p.add_argument("--target", default="native")
    p.add_argument("cases", nargs="*", default=[c for c in CASES if c != "ssd"])
    args = p.parse_intermixed_args()
    os.makedirs(args.work, exist_ok=True)
    for c in args.cases:
        CASES[c](args)


if __name__ == "__main__":
    main()
