#!/usr/bin/python3
"""Float models in fp32 and with --precision bf16 (x86-64-amx), beside ONNX Runtime, with bf16's accuracy.

Speed: each model compiled by onnxc for x86-64-amx in fp32 and in bf16 (the convolutions'
and matrix products on AMX-BF16 tiles), linked with onnxc_bench_main.cpp, and ORT 1.30
(onnxruntime-node, fp32, all graph optimisations: its x86 build has no bf16 path) on the
same model, and PyTorch 1.13 in bf16 (torch_bench.py's bf16: oneDNN, channels-last; its
fastest bf16 form here); one thread, batch 1;
the peers alternate for --rounds rounds of --runs inferences a process; best and median of
the per-round medians, ms (run_bench.alternate).

Accuracy: --samples inputs (the model's test input, then uniform [-1, 1) tensors of its
shape, seeded) run by `onnxc run` in fp32 and in bf16; reported: the largest error over
the largest fp32 output (max |bf16 - fp32| / max |fp32|), the relative RMS error, and how
often the arg-max (top-1 class) agrees.

  /usr/bin/python3 bf16_bench.py resnet18 squeezenet1_1
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np

import run_bench  # first: it puts test/models on the path

from onnx import numpy_helper  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = "x86-64-amx"


def save_pb(arr, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(arr).SerializeToString())


def accuracy(onnxc, model, x0, samples):
    """(max error / max |fp32|, relative RMS error, top-1 agreement) over samples."""
    rng = np.random.default_rng(0)
    worst = rms_num = rms_den = 0.0
    agree = 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in range(samples):
            x = x0 if s == 0 else rng.uniform(-1, 1, x0.shape).astype(np.float32)
            ins = os.path.join(tmp, f"in{s}")
            os.makedirs(ins)
            save_pb(x, os.path.join(ins, "input_0.pb"))
            outs = {}
            for precision in ("fp32", "bf16"):
                out = os.path.join(tmp, f"out{s}{precision}")
                subprocess.run([onnxc, "run", model, "--inputs", ins, "--outputs", out,
                                "--target", TARGET, "--precision", precision, "--quiet"],
                               check=True)
                outs[precision] = run_bench.load_tensor(
                    os.path.join(out, "output_0.pb")).astype(np.float64)
            ref, got = outs["fp32"], outs["bf16"]
            worst = max(worst, np.abs(got - ref).max() / np.abs(ref).max())
            rms_num += ((got - ref) ** 2).sum()
            rms_den += (ref ** 2).sum()
            agree += int(ref.reshape(-1).argmax() == got.reshape(-1).argmax())
    return worst, (rms_num / rms_den) ** 0.5, agree


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=["resnet18", "squeezenet1_1", "mobilenet_v2",
                                                  "efficientnet_b0", "shufflenet_v2",
                                                  "transformer_encoder", "cifar_cnn"])
    ap.add_argument("--onnxc", default=os.path.join(run_bench.ROOT, "build", "compiler", "tools",
                                                      "onnxc"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--work", default=os.path.join(run_bench.ROOT, "build", "bench"))
    args = ap.parse_args()
    print("| model | onnxc fp32 ms | onnxc bf16 ms | ORT fp32 ms | PyTorch bf16 ms "
          "| fp32 / bf16 | ORT / bf16 | PyTorch bf16 / bf16 "
          "| max err / max | RMS rel err | top-1 agree |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.models:
        model_dir, model, x, inp = run_bench.prepare_model(name, args.work)
        peers = {}
        for precision in ("fp32", "bf16"):
            exe = run_bench.build_onnxc(args.onnxc, model_dir,
                                        os.path.join(args.work, name, f"amx-{precision}"), TARGET,
                                        extra=["--precision", precision])
            peers[precision] = [exe, inp, str(args.runs)]
        peers["ORT"] = ["node", os.path.join(HERE, "ort_bench.js"), model, inp,
                        "x".join(map(str, x.shape)), str(args.runs), "1"]
        peers["torch"] = ["/usr/bin/python3", os.path.join(HERE, "torch_bench.py"), name,
                          str(args.runs), "1", "bf16"]
        timed = run_bench.alternate(peers, args.rounds)
        best = {p: t[0] for p, t in timed.items()}
        worst, rms, agree = accuracy(args.onnxc, model, x.astype(np.float32), args.samples)
        cells = [f"{best[p]:.3f} ({timed[p][1]:.3f})" for p in peers]
        print(f"| {name} | " + " | ".join(cells) +
              f" | {best['fp32'] / best['bf16']:.2f} | {best['ORT'] / best['bf16']:.2f} "
              f"| {best['torch'] / best['bf16']:.2f} "
              f"| {worst:.2e} | {rms:.2e} | {agree}/{args.samples} |", flush=True)


if __name__ == "__main__":
    main()
