"""On a machine without a usable GPU, `onnxc run --target cuda` must build
the model's program and then fail cleanly: exit 77 and a message naming the
CUDA error, no crash, no output files. With a GPU the run succeeds and this
test is skipped (the cuda.run.* tests check the numbers)."""
import argparse
import os
import subprocess
import sys
import tempfile

p = argparse.ArgumentParser()
p.add_argument("--onnxc", required=True)
p.add_argument("--model-dir", required=True)
a = p.parse_args()

with tempfile.TemporaryDirectory() as out:
    outputs = os.path.join(out, "outputs")
    r = subprocess.run([a.onnxc, "run", "--target", "cuda",
                        os.path.join(a.model_dir, "model.onnx"),
                        "--inputs", os.path.join(a.model_dir, "test_data_set_0"),
                        "--outputs", outputs], capture_output=True, text=True)
    text = r.stdout + r.stderr
    if r.returncode == 0:
        print("SKIPPED: this machine has a GPU")
        sys.exit(0)
    print(text)
    want = "onnxc: error: no device to run target 'cuda' on: "
    if r.returncode != 77 or want not in text:
        sys.exit(f"expected exit 77 and {want!r}, got exit {r.returncode}")
    if os.path.exists(outputs):
        sys.exit("outputs were written by a run that failed")
    print("ok: exit 77 with the CUDA error's message")
