#!/usr/bin/python3
"""Writes an int8 QDQ model of 3-D windows: a Conv3d (grouped by nothing,
strided in one dim, padded in two) with ReLU, then an AvgPool3d that pads
and leaves the padding out of its counts; quantized by onnxc itself
(`--quantize int8 --emit qdq-onnx`, calibrated on the test input), so the
integer kernels that take it are onnxc's qs8 conv and average pool of
rank 3.

    make_conv3d_qdq.py ONNXC OUT_DIR

OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/input_0.pb, for
check_cuda_emulated.py --same-as-host (the GPU's integer kernels against
the host's, output for output).
"""
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from onnx_tensors import save_tensor  # noqa: E402


class Windows3d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv3d(3, 8, (3, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0))
        self.pool = torch.nn.AvgPool3d((2, 2, 2), stride=(1, 1, 2), padding=(1, 0, 1),
                                       count_include_pad=False)

    def forward(self, x):
        return self.pool(torch.relu(self.conv(x)))


def main():
    onnxc, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = Windows3d().eval()
    x = torch.randn(1, 3, 6, 8, 7)
    os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
    save_tensor(x.numpy(), "x", os.path.join(out, "test_data_set_0", "input_0.pb"))
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "windows3d.onnx")
        torch.onnx.export(model, (x,), path, opset_version=17, input_names=["x"],
                          output_names=["y"])
        subprocess.run([onnxc, path, "--quantize", "int8", "--calibration",
                        out, "--emit", "qdq-onnx", "-o", work,
                        "--quiet"], check=True)
        os.replace(os.path.join(work, "windows3d.qdq.onnx"), os.path.join(out, "model.onnx"))
    print(f"wrote {out}/model.onnx")


if __name__ == "__main__":
    main()
