#!/usr/bin/python3
"""Bounded dims and re-batching: sizes other than the export's (issue 48).

    check_bounded_dims.py ONNXC --work DIR [--target T] [CASE ...]

Each case exports a model from PyTorch with dynamic axes, builds it once with
`--dim NAME=LO..HI` and runs that one build (`onnxc run`, all sizes as input
sets of one call) at sizes across the range, against PyTorch's outputs:

  encoder     a 2-layer transformer encoder (d_model 64, 4 heads) with a
              learned position table sliced to the sequence, --dim seq=1..128,
              at seq 1, 7, 64, 127 and 128
  cnn         conv/BN/ReLU/pool x2, flattened with x.view(x.size(0), -1), and
              two Linear layers, --dim batch=1..32, at batch 1, 3, 17 and 32
  both        the encoder with batch and seq bounded, --dim batch=1..4
              --dim seq=1..32, at (1, 1), (1, 32), (3, 7) and (4, 32)
  errors      what a user gets wrong: a call outside the bounds through the C
              API (ONNXC_STATUS_DIM_RANGE, and the in-range call right after
              it matches), an inverted range, sizes the model cannot take
              (the position table has 128 rows: --dim seq=1..200), a dim a
              strided convolution divides (not a polynomial in the dim)
  cuda        --target cuda through the CPU emulation of CUDA (check_cuda_emulated.py):
              the cnn (batch=1..32) and the encoder (seq=1..128) in one session each,
              at sizes that change from run to run (the graph captured again), back to
              an earlier size, and a size past the bound (ONNXC_STATUS_DIM_RANGE, the
              next run right); then the CNN's library built by nvcc, warnings as
              errors, where nvcc is installed; --target is not used, nor is the case
              run unless named
  rebatch     models exported at batch 1 with fixed shapes (a CNN flattened
              with torch.flatten, ResNet-18), run at batch 3 and compiled with
              --batch 8; models whose export fixed batch-1 shapes inside (a
              Reshape to [1, -1], an encoder's attention reshapes) refused,
              naming the node
"""
import argparse
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
from onnx_tensors import load_tensor, save_tensor  # noqa: E402

warnings.filterwarnings("ignore")
RUNTIME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime-lite",
                       "include")


def encoder_model(max_seq=128):
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                                     dropout=0.0, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2,
                                                       enable_nested_tensor=False)
            self.positions = torch.nn.Parameter(torch.randn(1, max_seq, 64) * 0.1)

        def forward(self, x):
            return self.encoder(x + self.positions[:, :x.shape[1]])

    torch.manual_seed(0)
    return Encoder().eval()


def cnn_model(flatten=False):
    """(With `flatten`, torch.flatten(y, 1): an ONNX Flatten, which keeps the
    batch in a static export; y.view(y.size(0), -1) exports as a Reshape to
    a fixed [1, -1] there.)"""
    import torch

    class Cnn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layers, c = [], 3
            for out in (16, 32):
                layers += [torch.nn.Conv2d(c, out, 3, padding=1), torch.nn.BatchNorm2d(out),
                           torch.nn.ReLU(), torch.nn.MaxPool2d(2)]
                c = out
            self.features = torch.nn.Sequential(*layers)
            self.fc1 = torch.nn.Linear(32 * 8 * 8, 64)
            self.fc2 = torch.nn.Linear(64, 10)

        def forward(self, x):
            y = self.features(x)
            y = torch.flatten(y, 1) if flatten else y.view(y.size(0), -1)
            return self.fc2(torch.relu(self.fc1(y)))

    torch.manual_seed(0)
    m = Cnn().eval()
    gen = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(mod.num_features, generator=gen) * 0.1)
                mod.running_var.copy_(torch.rand(mod.num_features, generator=gen) + 0.5)
    return m


def export(model, example, path, axes):
    import torch
    torch.onnx.export(model, (example,), path, opset_version=17, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": axes, "y": axes})


def run_sizes(onnxc, work, name, model, shapes, flags, target):
    """Exports `model`, runs one bounded build at every shape in `shapes`
    (input sets of one `onnxc run`) and compares with PyTorch."""
    import torch
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    refs = {}
    gen = torch.Generator().manual_seed(2)
    for shape in shapes:
        tag = "x".join(map(str, shape))
        x = torch.randn(*shape, generator=gen)
        with torch.no_grad():
            refs[tag] = model(x).numpy()
        os.makedirs(os.path.join(d, "inputs", tag))
        save_tensor(x.numpy(), "x", os.path.join(d, "inputs", tag, "input_0.pb"))
    export(model, torch.randn(*shapes[-1]), os.path.join(d, "model.onnx"), flags["axes"])
    cmd = [onnxc, "run", os.path.join(d, "model.onnx"), "--target", target,
           "--inputs", os.path.join(d, "inputs"), "--outputs", os.path.join(d, "outputs"),
           "--quiet"] + flags["dims"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print(f"{name}: onnxc run failed ({r.returncode}):\n{r.stderr[-3000:]}")
        return False
    ok = True
    for tag, ref in refs.items():
        got = load_tensor(os.path.join(d, "outputs", tag, "output_0.pb"))
        if got.shape != ref.shape:
            print(f"{name} at {tag}: shape {got.shape}, PyTorch {ref.shape}")
            ok = False
            continue
        rel = float(np.max(np.abs(got - ref))) / float(np.max(np.abs(ref)))
        good = rel <= 1e-4
        print(f"{name} at input {tag}: output {list(ref.shape)}, rel err {rel:.2g} "
              f"({'ok' if good else 'FAIL'})")
        ok &= good
    return ok


def case_encoder(onnxc, work, target):
    return run_sizes(onnxc, work, "encoder", encoder_model(),
                     [(1, s, 64) for s in (1, 7, 64, 127, 128)],
                     {"axes": {1: "seq"}, "dims": ["--dim", "seq=1..128"]}, target)


def case_cnn(onnxc, work, target):
    return run_sizes(onnxc, work, "cnn", cnn_model(),
                     [(b, 3, 32, 32) for b in (1, 3, 17, 32)],
                     {"axes": {0: "batch"}, "dims": ["--dim", "batch=1..32"]}, target)


def case_both(onnxc, work, target):
    return run_sizes(onnxc, work, "both", encoder_model(),
                     [(b, s, 64) for b, s in ((1, 1), (1, 32), (3, 7), (4, 32))],
                     {"axes": {0: "batch", 1: "seq"},
                      "dims": ["--dim", "batch=1..4", "--dim", "seq=1..32"]}, target)


CONSUMER = r"""
#include "enc.h"
#include <cstdio>
#include <vector>
int main(int argc, char **argv) {
  (void)argc;
  std::vector<float> x(enc::Input0::size), y(enc::Output0::size);
  std::FILE *f = std::fopen(argv[1], "rb");
  size_t n = std::fread(x.data(), sizeof(float), enc::Input0::size_for(5), f);
  std::fclose(f);
  static enc::Model model;
  int below = model.run(0, x.data(), y.data());
  int above = model.run(enc_DIM_seq_MAX + 1, x.data(), y.data());
  int ok = model.run(5, x.data(), y.data());
  f = std::fopen(argv[2], "wb");
  std::fwrite(y.data(), sizeof(float), enc::Output0::size_for(5), f);
  std::fclose(f);
  std::printf("read %zu, below %d, above %d, in range %d, DIM_RANGE %d\n", n, below, above,
              ok, ONNXC_STATUS_DIM_RANGE);
  return below == ONNXC_STATUS_DIM_RANGE && above == ONNXC_STATUS_DIM_RANGE && ok == 0 ? 0 : 1;
}
"""


def expect_error(onnxc, args, needle, what):
    r = subprocess.run([onnxc] + args, capture_output=True, text=True)
    good = r.returncode != 0 and needle in r.stderr
    print(f"errors: {what}: exit {r.returncode}, "
          f"{'names it' if good else 'WRONG: ' + r.stderr[-600:]}")
    return good


def case_errors(onnxc, work, target):
    import torch
    d = os.path.join(work, "errors")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ok = True
    model = encoder_model()
    path = os.path.join(d, "enc.onnx")
    export(model, torch.randn(1, 8, 64), path, {1: "seq"})
    # The C API outside the bounds, then inside them.
    out = os.path.join(d, "enc")
    r = subprocess.run([onnxc, path, "-o", out, "--dim", "seq=1..128", "--target", target,
                        "--emit", "lib", "--quiet"], capture_output=True, text=True)
    if r.returncode:
        print(f"errors: compile failed:\n{r.stderr[-2000:]}")
        return False
    with open(os.path.join(d, "consumer.cpp"), "w") as f:
        f.write(CONSUMER)
    flags = subprocess.run([onnxc, "--target", target, "--print-target-flags"],
                           capture_output=True, text=True).stdout.split()
    exe = os.path.join(d, "consumer")
    r = subprocess.run(["c++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"] + flags +
                       ["-I", out, "-I", RUNTIME, os.path.join(d, "consumer.cpp"),
                        os.path.join(out, "libenc.a"), "-o", exe], capture_output=True, text=True)
    if r.returncode:
        print(f"errors: the consumer does not build:\n{r.stderr[-2000:]}")
        return False
    x = torch.randn(1, 5, 64, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        ref = model(x).numpy()
    x.numpy().tofile(os.path.join(d, "x.bin"))
    r = subprocess.run([exe, os.path.join(d, "x.bin"), os.path.join(d, "y.bin")],
                       capture_output=True, text=True)
    got = np.fromfile(os.path.join(d, "y.bin"), np.float32).reshape(ref.shape)
    rel = float(np.max(np.abs(got - ref))) / float(np.max(np.abs(ref)))
    good = r.returncode == 0 and rel <= 1e-4
    print(f"errors: C API: {r.stdout.strip()}; seq 5 rel err {rel:.2g} "
          f"({'ok' if good else 'FAIL'})")
    ok &= good
    ok &= expect_error(onnxc, [path, "-o", os.path.join(d, "x1"), "--dim", "seq=9..3"],
                       "--dim 'seq=9..3' is an empty range", "inverted range")
    ok &= expect_error(onnxc, [path, "-o", os.path.join(d, "x2"), "--dim", "seq=0..3"],
                       "is not NAME=LO..HI", "range from 0")
    ok &= expect_error(onnxc, [path, "-o", os.path.join(d, "x3"), "--dim", "seq=1..200"],
                       "one of the sizes a bounded build checks", "sizes past the position table")
    ok &= not os.path.exists(os.path.join(d, "x3"))
    # A strided convolution over a bounded dim: its output size is not a
    # polynomial in the input's.
    conv = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)).eval()
    cpath = os.path.join(d, "conv.onnx")
    export(conv, torch.randn(1, 3, 16, 16), cpath, {2: "h"})
    ok &= expect_error(onnxc, [cpath, "-o", os.path.join(d, "x4"), "--dim", "h=8..64"],
                       "is not one polynomial in the dims", "a dim a strided window divides")
    return ok


def case_rebatch(onnxc, work, target):
    """A CNN and the encoder exported at batch 1 with fixed shapes, run at
    batch 3 (`onnxc run` on batch-3 inputs: their shapes re-batch it) and
    compiled with --batch 8; a model that merges the batch into a fixed
    shape is refused, naming its node."""
    import torch
    d = os.path.join(work, "rebatch")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ok = True
    for name, model, shape in (("cnn", cnn_model(flatten=True), (3, 32, 32)),
                               ("resnet18", None, (3, 64, 64))):
        if model is None:
            import torchvision
            torch.manual_seed(0)
            model = torchvision.models.resnet18(num_classes=10).eval()
        path = os.path.join(d, name + ".onnx")
        torch.onnx.export(model, (torch.randn(1, *shape),), path, opset_version=17,
                          input_names=["x"], output_names=["y"])
        x = torch.randn(3, *shape, generator=torch.Generator().manual_seed(4))
        with torch.no_grad():
            ref = model(x).numpy()
        os.makedirs(os.path.join(d, name + "_in"))
        save_tensor(x.numpy(), "x", os.path.join(d, name + "_in", "input_0.pb"))
        r = subprocess.run([onnxc, "run", path, "--target", target, "--inputs",
                            os.path.join(d, name + "_in"), "--outputs",
                            os.path.join(d, name + "_out"), "--quiet"],
                           capture_output=True, text=True)
        if r.returncode:
            print(f"rebatch: {name} at batch 3 failed:\n{r.stderr[-2000:]}")
            ok = False
            continue
        got = load_tensor(os.path.join(d, name + "_out", "output_0.pb"))
        rel = float(np.max(np.abs(got - ref))) / float(np.max(np.abs(ref)))
        good = got.shape == ref.shape and rel <= 1e-4
        print(f"rebatch: {name} exported at batch 1, run at batch 3: output {list(got.shape)}, "
              f"rel err {rel:.2g} ({'ok' if good else 'FAIL'})")
        ok &= good
        out = os.path.join(d, name + "_b8")
        r = subprocess.run([onnxc, path, "-o", out, "--batch", "8", "--name", "m", "--quiet"],
                           capture_output=True, text=True)
        with open(os.path.join(out, "m.h")) as f:
            header = f.read()
        good = r.returncode == 0 and f"in  x: float[8x{'x'.join(map(str, shape))}]" in header
        print(f"rebatch: {name} --batch 8: {'header says 8' if good else 'FAIL ' + r.stderr}")
        ok &= good

    class MergesBatch(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x.reshape(1, -1), 1)

    path = os.path.join(d, "merges.onnx")
    torch.onnx.export(MergesBatch(), (torch.randn(1, 8),), path, opset_version=17,
                      input_names=["x"], output_names=["y"])
    ok &= expect_error(onnxc, [path, "-o", os.path.join(d, "x"), "--batch", "4"],
                       "the batch does not stay a dim of its own", "a Reshape to [1, -1]")
    # A static export's attention reshapes fold to batch-1 shapes: refused,
    # the Reshape named.
    path = os.path.join(d, "encoder.onnx")
    torch.onnx.export(encoder_model(), (torch.randn(1, 16, 64),), path, opset_version=17,
                      input_names=["x"], output_names=["y"])
    ok &= expect_error(onnxc, [path, "-o", os.path.join(d, "x"), "--batch", "4"],
                       "cannot take another batch", "an encoder exported at batch 1")
    return ok


def case_cuda(onnxc, work, target):
    """One session a model, sizes in the order given; each run against PyTorch."""
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
    from check_cuda_emulated import run_bounded
    d = os.path.join(work, "cuda")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ok = True
    gen = torch.Generator().manual_seed(3)
    for name, model, axes, flag, shape_at, sizes in (
            ("cnn", cnn_model(), {0: "batch"}, "batch=1..32", lambda n: (n, 3, 32, 32),
             (3, 32, 1, 17, 33, 3)),
            ("encoder", encoder_model(), {1: "seq"}, "seq=1..128", lambda n: (1, n, 64),
             (7, 128, 1, 64, 129, 7))):
        path = os.path.join(d, name + ".onnx")
        export(model, torch.randn(*shape_at(sizes[0])), path, axes)
        xs = [torch.randn(*shape_at(n), generator=gen) for n in sizes]
        try:
            results = run_bounded(onnxc, path, ["--dim", flag], [
                ([n], [x.numpy()]) for n, x in zip(sizes, xs)])
        except RuntimeError as err:
            print(f"cuda {name}: {err}")
            ok = False
            continue
        for n, x, (status, outs, said) in zip(sizes, xs, results):
            if n > int(flag.split("..")[1]):
                dim, bounds = flag.split("=")
                good = (status == 2 and outs is None and
                        f"bounded dim '{dim}' is {n}, outside the model's bounds {bounds}" in said)
                print(f"cuda {name} at {n}: status {status}, \"{said}\" "
                      f"({'ONNXC_STATUS_DIM_RANGE, ok' if good else 'FAIL'})")
                ok &= good
                continue
            with torch.no_grad():
                ref = model(x).numpy()
            if status != 0 or outs[0].shape != ref.shape:
                print(f"cuda {name} at {n}: status {status}, "
                      f"shape {None if outs is None else outs[0].shape} ({ref.shape}) FAIL")
                ok = False
                continue
            rel = float(np.max(np.abs(outs[0] - ref))) / float(np.max(np.abs(ref)))
            good = rel <= 1e-4
            print(f"cuda {name} at {n}: output {list(ref.shape)}, rel err {rel:.2g} "
                  f"({'ok' if good else 'FAIL'})")
            ok &= good
    if shutil.which("nvcc"):
        env = dict(os.environ, ONNXC_CXXFLAGS="-Xcompiler=-Werror --Werror=all-warnings")
        r = subprocess.run([onnxc, os.path.join(d, "cnn.onnx"), "--target", "cuda", "--dim",
                            "batch=1..32", "--emit", "lib", "--quiet", "-o",
                            os.path.join(d, "lib")], capture_output=True, text=True, env=env)
        print(f"cuda cnn library by nvcc: exit {r.returncode} "
              f"({'ok' if r.returncode == 0 else 'FAIL: ' + r.stderr[-2000:]})")
        ok &= r.returncode == 0
    return ok


CASES = {"encoder": case_encoder, "cnn": case_cnn, "both": case_both, "errors": case_errors,
         "rebatch": case_rebatch,
         "cuda": case_cuda}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("onnxc")
    ap.add_argument("--work", required=True)
    ap.add_argument("--target", default="x86-64")
    ap.add_argument("cases", nargs="*", default=[c for c in CASES if c != "cuda"])
    args = ap.parse_intermixed_args()
    ok = True
    for name in args.cases:
        ok &= CASES[name](args.onnxc, args.work, args.target)
    print("bounded dims: " + ("all cases pass" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
