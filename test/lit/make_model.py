#!/usr/bin/python3
"""Builds an .onnx file from ONNX's textual syntax embedded in a lit test.

Lines starting with '#!' (the marker stripped) form the model text, e.g.

    #! <ir_version: 8, opset_import: ["" : 17]>
    #! g (float[2,3] x) => (float[2,3] y) { y = Relu(x) }

Usage: make_model.py TEST_FILE OUT.onnx
"""
import sys

import onnx
import onnx.parser


def main():
    src, out = sys.argv[1], sys.argv[2]
    text = "\n".join(line[2:] for line in open(src) if line.startswith("#!"))
    model = onnx.parser.parse_model(text)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
