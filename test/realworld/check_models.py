#!/usr/bin/python3
"""The real-model set against ONNX Runtime: each model of models.txt, as
downloaded, is compiled and run by `onnxc run` on the inputs in data/NAME/
and its outputs compared with ONNX Runtime's (data/NAME/output_N.pb, made by
make_references.py). Prints a table (model, result, max abs error, what the
output means) and exits non-zero if any model fails.

  check_models.py ONNXC [--target T] [--models silero_vad_v5,...]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
from onnx_tensors import load_tensor  # noqa: E402

# data folder -> (model file, absolute tolerance, relative tolerance)
MODELS = {
    "silero_vad_v5": ("silero_vad_v5.onnx", 1e-4, 1e-3),
    "silero_vad_legacy": ("silero_vad_legacy.onnx", 1e-4, 1e-3),
    "ppocr_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", 1e-4, 1e-3),
    "ppocr_rec": ("ch_PP-OCRv4_rec_infer.onnx", 1e-4, 1e-3),
    "ppocr_det": ("ch_PP-OCRv4_det_infer.onnx", 1e-4, 1e-3),
}


def ctc_text(probs):
    """PaddleOCR's greedy CTC decoding: the best class per step, repeats
    merged, blanks (0) dropped; classes index ppocr_keys_v1.txt (+ space)."""
    with open(os.path.join(HERE, "models", "ppocr_keys_v1.txt"), encoding="utf-8") as f:
        keys = ["<blank>"] + [line.rstrip("\n") for line in f] + [" "]
    best = probs[0].argmax(-1)
    text, last = [], 0
    for k in best:
        if k != last and k != 0:
            text.append(keys[k])
        last = k
    return "".join(text)


def meaning(name, outputs):
    if name.startswith("silero"):
        return f"speech probability {outputs[0].item():.4f}"
    if name == "ppocr_cls":
        return f"orientation {('0', '180')[int(outputs[0].argmax())]} ({outputs[0].max():.4f})"
    if name == "ppocr_rec":
        return f"text '{ctc_text(outputs[0])}'"
    return f"text pixels (p > 0.3): {int((outputs[0] > 0.3).sum())}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("--target", default="native")
    ap.add_argument("--models", default="",
                    help="comma-separated names (data/ folders) to check; default: all")
    args = ap.parse_args()
    chosen = args.models.split(",") if args.models else list(MODELS)
    unknown = [m for m in chosen if m not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; the set: {', '.join(MODELS)}")
    failures = 0
    rows = []
    for name in chosen:
        model_file, atol, rtol = MODELS[name]
        model = os.path.join(HERE, "models", model_file)
        data = os.path.join(HERE, "data", name)
        if not os.path.exists(model):
            print(f"{name}: {model} is missing: run test/realworld/fetch_models.sh "
                  "(install-deps.sh does)")
            failures += 1
            continue
        with tempfile.TemporaryDirectory() as out:
            run = subprocess.run([args.onnxc, "run", model, "--inputs", data, "--outputs", out,
                                  "--target", args.target],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{name}: onnxc run failed ({run.returncode}):\n{run.stdout}{run.stderr}")
                rows.append((name, "FAIL", "-", "onnxc run failed"))
                failures += 1
                continue
            summary = [line.strip() for line in run.stdout.splitlines() if "control" in line]
            got, want = [], []
            i = 0
            while os.path.exists(os.path.join(data, f"output_{i}.pb")):
                want.append(load_tensor(os.path.join(data, f"output_{i}.pb")))
                got.append(load_tensor(os.path.join(out, f"output_{i}.pb")))
                i += 1
        ok = all(g.shape == w.shape for g, w in zip(got, want))
        err = max(float(np.abs(g - w).max()) for g, w in zip(got, want)) if ok else float("inf")
        ok = ok and all(np.allclose(g, w, atol=atol, rtol=rtol) for g, w in zip(got, want))
        said = meaning(name, got)
        if ok and meaning(name, want) != said and name != "ppocr_det":
            ok = False
            said += f" (ONNX Runtime: {meaning(name, want)})"
        rows.append((name, "pass" if ok else "FAIL", f"{err:.2e}", said))
        for line in summary:
            print(f"{name}: {line}")
        failures += not ok
    print(f"\n| model | onnxc {args.target} vs ONNX Runtime | max abs error | output |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nrealworld: {len(rows) - failures} of {len(chosen)} models match ONNX Runtime")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
