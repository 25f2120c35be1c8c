#!/usr/bin/python3
"""Makes the real-model set's test data: for each model, inputs a user would
give it (a rendered text line or page for PaddleOCR, a synthetic voiced
signal for Silero VAD, preprocessed as their pipelines do) and ONNX Runtime's
outputs on them, written to data/MODEL/ as input_N.pb and output_N.pb (the
ONNX test-data layout `onnxc run` reads). The files are committed; run this
again only when the set changes. It needs bench/'s onnxruntime-node
(cd bench && npm install) and the models (fetch_models.sh).

  /usr/bin/python3 test/realworld/make_references.py
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
from onnx_tensors import save_tensor  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
KINDS = {np.float32: "float32", np.int64: "int64"}


def ort_run(model, inputs):
    """ONNX Runtime's outputs for [(name, array)], in graph output order."""
    with tempfile.TemporaryDirectory() as tmp:
        spec = {"inputs": []}
        for i, (name, a) in enumerate(inputs):
            path = os.path.join(tmp, f"in_{i}.bin")
            a.tofile(path)
            spec["inputs"].append({"name": name, "type": KINDS[a.dtype.type],
                                   "dims": list(a.shape), "file": path})
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump(spec, f)
        out = os.path.join(tmp, "out")
        subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), model,
                        os.path.join(tmp, "spec.json"), out], check=True)
        with open(os.path.join(out, "outputs.json")) as f:
            described = json.load(f)
        dtypes = {"float32": np.float32, "int64": np.int64}
        return [(d["name"], np.fromfile(os.path.join(out, f"output_{i}.bin"),
                                        dtypes[d["type"]]).reshape(d["dims"]))
                for i, d in enumerate(described)]


def write(name, inputs, outputs):
    folder = os.path.join(HERE, "data", name)
    os.makedirs(folder, exist_ok=True)
    for i, (n, a) in enumerate(inputs):
        save_tensor(a, n, os.path.join(folder, f"input_{i}.pb"))
    for i, (n, a) in enumerate(outputs):
        save_tensor(a, n, os.path.join(folder, f"output_{i}.pb"))
    print(f"{name}: {[a.shape for _, a in inputs]} -> {[a.shape for _, a in outputs]}")


# --- Silero VAD: 16 kHz audio in 512-sample chunks, the state carried --------

def voiced_signal(samples, rate=16000):
    """Quiet noise, then a vowel-like sound: harmonics of a gliding pitch
    shaped by two formants, with a syllable envelope."""
    rng = np.random.default_rng(2026)
    t = np.arange(samples) / rate
    f0 = 140 + 40 * t / t[-1]
    phase = 2 * np.pi * np.cumsum(f0) / rate
    voice = np.zeros(samples)
    for k in range(1, 25):
        f = k * f0
        gain = np.exp(-((f - 700) / 250) ** 2) + 0.6 * np.exp(-((f - 1200) / 300) ** 2) + 0.05
        voice += gain * np.sin(k * phase) / k
    envelope = np.clip((t - 0.06) / 0.02, 0, 1) * (0.6 + 0.4 * np.sin(2 * np.pi * 4 * t) ** 2)
    signal = 0.3 * envelope * voice / np.abs(voice).max() + 0.003 * rng.standard_normal(samples)
    return signal.astype(np.float32)


def silero(model_file, name, state_inputs):
    """Runs ORT over chunks 0..5 and keeps chunk 5 (voiced, with the state
    five chunks left behind) as the test case."""
    model = os.path.join(HERE, "models", model_file)
    audio = voiced_signal(6 * 512)
    sr = np.array(16000, np.int64)
    state = {n: np.zeros(shape, np.float32) for n, shape in state_inputs}
    for chunk in range(6):
        x = audio[chunk * 512:(chunk + 1) * 512].reshape(1, 512)
        inputs = [("input", x)]
        if name == "silero_vad_v5":
            inputs += [("state", state["state"]), ("sr", sr)]
        else:
            inputs += [("sr", sr), ("h", state["h"]), ("c", state["c"])]
        outputs = ort_run(model, inputs)
        print(f"  {name} chunk {chunk}: speech probability {outputs[0][1].item():.3f}")
        for (n, _), (_, value) in zip(state_inputs, outputs[1:]):
            state[n] = value
    write(name, inputs, outputs)


# --- PaddleOCR: a rendered text line and a small page -------------------------

def text_image(lines, size, font_px):
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, font_px)
    for i, line in enumerate(lines):
        draw.text((6, 4 + i * (font_px + 10)), line, fill=(20, 20, 30), font=font)
    return image


def rec_input(text, height, width):
    """PaddleOCR's recognition/classifier preprocessing: the line resized to
    the model's height, (x/255 - 0.5) / 0.5, padded with zeros on the right."""
    line = text_image([text], (12 + 19 * len(text), 44), 32)
    w = min(width, int(np.ceil(height * line.width / line.height)))
    x = np.asarray(line.resize((w, height), Image.BILINEAR), np.float32) / 255
    x = ((x - 0.5) / 0.5).transpose(2, 0, 1)
    out = np.zeros((1, 3, height, width), np.float32)
    out[0, :, :, :w] = x
    return out


def det_input(height, width):
    """PaddleOCR's detection preprocessing: ImageNet mean/std on RGB."""
    page = text_image(["onnxc compiles", "ONNX to C++ 2026"], (width, height), 22)
    x = np.asarray(page, np.float32) / 255
    x = (x - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def paddle(model_file, name, x):
    model = os.path.join(HERE, "models", model_file)
    inputs = [("x", x)]
    write(name, inputs, ort_run(model, inputs))


def main():
    silero("silero_vad_v5.onnx", "silero_vad_v5", [("state", (2, 1, 128))])
    silero("silero_vad_legacy.onnx", "silero_vad_legacy", [("h", (2, 1, 64)), ("c", (2, 1, 64))])
    paddle("ch_ppocr_mobile_v2.0_cls_infer.onnx", "ppocr_cls", rec_input("onnxc 2026", 48, 192))
    paddle("ch_PP-OCRv4_rec_infer.onnx", "ppocr_rec", rec_input("onnxc 2026", 48, 160))
    paddle("ch_PP-OCRv4_det_infer.onnx", "ppocr_det", det_input(96, 192))


if __name__ == "__main__":
    main()
