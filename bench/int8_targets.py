#!/usr/bin/python3
"""int8 models on several onnxc targets beside ONNX Runtime's U8S8 form, alternating.

For each model of the e2e set: onnxc's QDQ file (run_bench.py's quantize_qdq: MinMax on
the model's test input), compiled by onnxc for each --targets entry into a static library
linked with onnxc_bench_main.cpp, and ORT 1.30 (onnxruntime-node) on the same model with
uint8 activations (qdq_u8s8.py); one thread, batch 1. The peers alternate for --rounds
rounds of --runs inferences a process; each peer's best and median per-round median are
printed, ms, with the ratios to the last target. The best is the figure to read on a shared
host whose neighbours slow programs in bursts (a burst only ever slows). Reuses the work
folder run_bench.py --int8 leaves (--work), exporting and quantizing what is missing.

  /usr/bin/python3 int8_targets.py --targets x86-64-vnni,x86-64-amx resnet18 mobilenet_v2
"""
import argparse
import os

import run_bench  # first: it puts test/models on the path

import export_models  # noqa: E402
import qdq_u8s8  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=run_bench.INT8_MODELS)
    ap.add_argument("--targets", default="x86-64-vnni,x86-64-amx")
    ap.add_argument("--onnxc", default=os.path.join(run_bench.ROOT, "build", "compiler", "tools",
                                                      "onnxc"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--work", default=os.path.join(run_bench.ROOT, "build", "bench"))
    args = ap.parse_args()
    targets = args.targets.split(",")
    print("| model | " + " | ".join(targets) + " | ORT U8S8 | " +
          " | ".join(f"{t} / {targets[-1]}" for t in targets[:-1] + ["ORT"]) + " |")
    print("|---|" + "---:|" * (2 * len(targets) + 1))
    for name in args.models:
        model_dir = os.path.join(args.work, "models", f"{name}_op13")
        if not os.path.exists(os.path.join(model_dir, "model.onnx")):
            export_models.export(name, 13, os.path.join(args.work, "models"))
        x = run_bench.load_tensor(os.path.join(model_dir, "test_data_set_0", "input_0.pb"))
        inp = os.path.join(args.work, f"{name}.bin")
        x.astype("float32").tofile(inp)
        int8_dir = os.path.join(args.work, name, "int8")
        qdq = os.path.join(int8_dir, "q.qdq.onnx")
        if not os.path.exists(qdq):
            qdq = run_bench.quantize_qdq(args.onnxc, model_dir, int8_dir)
        u8s8 = os.path.join(int8_dir, "q.u8s8.onnx")
        qdq_u8s8.save_u8s8(qdq, u8s8)
        peers = {}
        for t in targets:
            exe = run_bench.build_onnxc(args.onnxc, model_dir, os.path.join(args.work, name, t),
                                        t, model_file=qdq)
            peers[t] = [exe, inp, str(args.runs)]
        peers["ORT"] = ["node", os.path.join(HERE, "ort_bench.js"), u8s8, inp,
                        "x".join(map(str, x.shape)), str(args.runs), "1"]
        timed = run_bench.alternate(peers, args.rounds)
        best = {p: t[0] for p, t in timed.items()}
        median = {p: t[1] for p, t in timed.items()}
        last = targets[-1]
        cells = [f"{best[p]:.3f} ({median[p]:.3f})" for p in peers]
        ratios = [f"{best[p] / best[last]:.2f}" for p in targets[:-1] + ["ORT"]]
        print(f"| {name} | " + " | ".join(cells + ratios) + " |", flush=True)


if __name__ == "__main__":
    main()
