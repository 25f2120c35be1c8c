#!/usr/bin/python3
"""`onnxc --quantize int8` on the bundled Fashion-MNIST CNN: the int8 build
must keep the float model's accuracy (top-1 within --max-drop percentage
points on the test batch), agree with it on almost every image, compile to
integer ops, and have weights at least 3.5x smaller and an arena at least
3x smaller. With --io int8 the same model takes and gives int8: fed the
test batch quantized with the scale and zero point onnxc prints, it must give
exactly the integers behind the float-io build's outputs.

    check_quantize.py --onnxc ONNXC --data DIR [--max-drop 0.5] [--method minmax]

DIR is make_calibration.py's output. The model's batch dimension is made
symbolic here so that one run takes the whole test batch.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from onnx_tensors import load_tensor  # noqa: E402

MODEL = os.path.join(ROOT, "examples", "fashion-mnist", "fashion_cnn.onnx")


def summary(onnxc, model, work, extra):
    """onnxc's compile summary figures: weight and arena bytes, and the ops."""
    out = subprocess.run([onnxc, model, "-o", work, "--name", "m", "--target", "generic",
                          *extra], check=True, capture_output=True, text=True).stdout
    weights = int(re.search(r"weights\s+(\d+) bytes", out).group(1))
    arena = int(re.search(r"arena\s+(\d+) bytes", out).group(1))
    return weights, arena, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--max-drop", type=float, default=0.5, help="percentage points")
    ap.add_argument("--method", default="minmax", help="--calibrate-method")
    args = ap.parse_args()
    cal, test = os.path.join(args.data, "calibration"), os.path.join(args.data, "test")
    labels = np.load(os.path.join(test, "labels.npy"))
    with tempfile.TemporaryDirectory() as work:
        m = onnx.load(MODEL)
        m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
        for o in m.graph.output:
            o.type.tensor_type.shape.dim[0].dim_param = "N"
        batch_model = os.path.join(work, "fashion_cnn_batch.onnx")
        onnx.save(m, batch_model)
        quant = ["--quantize", "int8", "--calibration", cal, "--calibrate-method", args.method]
        logits, printed = {}, {}
        for kind, extra in (("float", []), ("int8", quant)):
            out = os.path.join(work, kind)
            subprocess.run([args.onnxc, "run", batch_model, "--inputs", test, "--outputs", out,
                            "--target", "generic", "--quiet", *extra], check=True)
            logits[kind] = load_tensor(os.path.join(out, "output_0.pb"))
        # --io int8: the quantized batch in, int8 logits out.
        params = subprocess.run([args.onnxc, batch_model, "-o", os.path.join(work, "io"),
                                 "--target", "generic", "--dim", "N=1", *quant, "--io", "int8"],
                                check=True, capture_output=True, text=True).stdout
        for name, scale, zp in re.findall(r"onnxc: int8 (\S+): scale (\S+), zero point (-?\d+)",
                                          params):
            printed[name] = (np.float32(scale), int(zp))
        image_scale, image_zp = printed["image"]
        images = load_tensor(os.path.join(test, "input_0.pb"))
        q = np.clip(np.rint(images / image_scale) + image_zp, -128, 127).astype(np.int8)
        qin, qout = os.path.join(work, "qin"), os.path.join(work, "qout")
        os.makedirs(qin)
        with open(os.path.join(qin, "input_0.pb"), "wb") as f:
            f.write(onnx.numpy_helper.from_array(q, "image").SerializeToString())
        subprocess.run([args.onnxc, "run", batch_model, "--inputs", qin, "--outputs", qout,
                        "--target", "generic", "--quiet", *quant, "--io", "int8"], check=True)
        int8_logits = load_tensor(os.path.join(qout, "output_0.pb"))
        logit_scale, logit_zp = printed["logits"]
        expected = np.rint(logits["int8"] / logit_scale).astype(np.int64) + logit_zp
        io_mismatch = int(np.sum(int8_logits.astype(np.int64) != expected))
        # Sizes and ops of the batch-1 model compiled both ways.
        fw, fa, _ = summary(args.onnxc, MODEL, os.path.join(work, "f"), [])
        qw, qa, text = summary(args.onnxc, MODEL, os.path.join(work, "q"), quant)
        subprocess.run([args.onnxc, MODEL, "-o", os.path.join(work, "ir"), "--name", "m",
                        "--emit", "mlir", "--quiet", *quant], check=True)
        ir = open(os.path.join(work, "ir", "m.mlir")).read()
    acc = {k: float(np.mean(v.argmax(1) == labels)) * 100 for k, v in logits.items()}
    agree = float(np.mean(logits["float"].argmax(1) == logits["int8"].argmax(1))) * 100
    print(f"{len(labels)} test images: float top-1 {acc['float']:.2f}%, int8 top-1 "
          f"{acc['int8']:.2f}%, same class {agree:.2f}%")
    print(f"weights {fw} -> {qw} bytes ({fw / qw:.2f}x), arena {fa} -> {qa} bytes "
          f"({fa / qa:.2f}x)")
    print(f"--io int8: int8 logits {int8_logits.dtype}, {io_mismatch} of {int8_logits.size} "
          "differ from the float-io build's integers")
    ops = sorted(set(re.findall(r'"onnx\.(\w+)"', ir)) - {"Constant"})
    print("int8 model ops:", " ".join(ops))
    problems = []
    if acc["float"] - acc["int8"] > args.max_drop:
        problems.append(f"int8 accuracy drops by {acc['float'] - acc['int8']:.2f} points")
    if agree < 97.0:
        problems.append(f"int8 and float agree on only {agree:.2f}% of the images")
    if fw / qw < 3.5:
        problems.append(f"weights only {fw / qw:.2f}x smaller")
    if fa / qa < 3.0:
        problems.append(f"arena only {fa / qa:.2f}x smaller")
    if {"Conv", "Gemm", "MatMul"} & set(ops) or "QConv" not in ops:
        problems.append("float convolutions or products are left")
    if int8_logits.dtype != np.int8 or io_mismatch:
        problems.append("--io int8 does not compute the same integers")
    if problems:
        sys.exit("; ".join(problems))
    print("--quantize int8: accuracy kept, integer ops, smaller weights and arena")


if __name__ == "__main__":
    main()
