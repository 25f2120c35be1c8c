#!/usr/bin/python3
"""Names from the model cannot inject code into the generated source.

Builds a model whose graph, node, input, output and initializer names, doc
strings and string constants carry C/C++ payloads (a comment closer that
defines `injected_by_model`, quotes, backslashes, newlines, `#include`,
trigraphs, non-UTF-8 bytes, C++ keywords, names equal after sanitising), and
a model file name that does the same. Then:

  - onnxc compiles it (generic target);
  - the header compiles as C (-std=c11 -trigraphs) and C++ (-std=c++17
    -trigraphs), and the source as C++, all with -Wall -Wextra -Werror;
  - no object defines a symbol named like a payload;
  - `onnxc run` gives the outputs numpy computes (float and string).

Usage: check_injection.py ONNXC RUNTIME_INCLUDE WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Each payload is a name. NONUTF8 is replaced by invalid UTF-8 bytes in the
# serialized model (protobuf's Python API refuses them).
CLOSE_COMMENT = "a*/ static int injected_by_model = 42; /*"
PAYLOADS = [
    CLOSE_COMMENT,
    'b"\n#include <injected_header_that_does_not_exist.h>\nint injected_by_include;',
    "c\\",
    "d??/",
    "e'*/'",
    "f//*/ int injected_line_comment; //",
    "NONUTF8X",
    "class",
    "arena",
    "x-y",
    "x_y",
]
NON_UTF8 = b"\xff\xfe\xc0\x80\xed\xa0\x80!"
assert len(NON_UTF8) == len(b"NONUTF8X")


def build_model():
    """Relu and Add per float payload input; string payloads pass through."""
    nodes, inputs, outputs, inits = [], [], [], []
    for i, name in enumerate(PAYLOADS):
        inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [3]))
        out = f"out {name} */"
        outputs.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, [3]))
        bias = f"bias {name}"
        inits.append(numpy_helper.from_array(np.full(3, i, np.float32), bias))
        nodes.append(helper.make_node("Relu", [name], [f"relu {name}"], name=f"node {name}",
                                      doc_string=f"doc {name} */ int injected_doc; /*"))
        nodes.append(helper.make_node("Add", [f"relu {name}", bias], [out],
                                      name=f"add {name}"))
    strings = np.array([CLOSE_COMMENT, 'q"\\??/\n*/#include', "plain"], dtype=object)
    nodes.append(helper.make_node(
        "Constant", [], ["strings */ int injected_const; /*"], name="const */",
        value=helper.make_tensor("s", TensorProto.STRING, [3],
                                 [s.encode() for s in strings])))
    outputs.append(helper.make_tensor_value_info("strings */ int injected_const; /*",
                                                 TensorProto.STRING, [3]))
    graph = helper.make_graph(nodes, CLOSE_COMMENT, inputs, outputs, inits,
                              doc_string="*/ int injected_graph_doc; /*")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name=CLOSE_COMMENT, doc_string=CLOSE_COMMENT)
    model.ir_version = 8
    data = model.SerializeToString().replace(b"NONUTF8X", NON_UTF8)
    return data, strings


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return p


def main():
    onnxc, include, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data, strings = build_model()
    # The file name itself (no "/" possible): a newline and a backslash.
    path = os.path.join(work, "evil*\nint injected_file_name; \\.onnx")
    open(path, "wb").write(data)
    out = os.path.join(work, "out")
    run([onnxc, path, "-o", out, "--name", "evil"])

    cxx = os.environ.get("CXX", "g++")
    cc = os.environ.get("CC", "gcc")
    warn = ["-Wall", "-Wextra", "-Werror", "-trigraphs", "-I", include, "-I", out]
    probe_c = os.path.join(work, "probe.c")
    open(probe_c, "w").write('#include "evil.h"\nint main(void) { return evil_NUM_INPUTS == 0; }\n')
    probe_cpp = os.path.join(work, "probe.cpp")
    open(probe_cpp, "w").write(
        '#include "evil.h"\n'
        'static_assert(evil::Input0::size == 3, "shape");\n'
        'int main() { return evil_NUM_INPUTS == 0; }\n')
    objects = []
    for compiler, std, src in [(cc, "-std=c11", probe_c), (cxx, "-std=c++17", probe_cpp),
                               (cxx, "-std=c++17", os.path.join(out, "evil.cpp"))]:
        obj = src + ".o"
        run([compiler, std, *warn, "-c", src, "-o", obj])
        objects.append(obj)
    symbols = "".join(run(["nm", o]).stdout for o in objects)
    injected = [l for l in symbols.splitlines() if "inject" in l]
    if injected:
        sys.exit("FAIL: payload symbols in the objects:\n" + "\n".join(injected))
    for f in os.listdir(out):
        for line in open(os.path.join(out, f), "rb").read().splitlines():
            if line.lstrip().startswith(b"#include <injected") or b"injected_by_include;" == line:
                sys.exit(f"FAIL: a line from the model reached {f}: {line!r}")

    # The program still computes the right values.
    inputs_dir = os.path.join(work, "inputs")
    outputs_dir = os.path.join(work, "outputs")
    os.makedirs(inputs_dir)
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal(3).astype(np.float32) for _ in PAYLOADS]
    for i, x in enumerate(xs):
        t = numpy_helper.from_array(x)
        open(os.path.join(inputs_dir, f"input_{i}.pb"), "wb").write(t.SerializeToString())
    run([onnxc, "run", path, "--inputs", inputs_dir, "--outputs", outputs_dir, "--target",
         "generic"])
    for i, x in enumerate(xs):
        t = onnx.TensorProto()
        t.ParseFromString(open(os.path.join(outputs_dir, f"output_{i}.pb"), "rb").read())
        got = numpy_helper.to_array(t)
        want = np.maximum(x, 0) + i
        if not np.array_equal(got, want):
            sys.exit(f"FAIL: output {i}: {got} != {want}")
    t = onnx.TensorProto()
    t.ParseFromString(open(os.path.join(outputs_dir, f"output_{len(xs)}.pb"), "rb").read())
    got = [s.decode() for s in t.string_data]
    if got != list(strings):
        sys.exit(f"FAIL: string output {got!r} != {list(strings)!r}")
    print(f"check_injection: {len(PAYLOADS)} hostile names, a hostile file name, doc strings "
          "and string constants: header compiles as C and C++, source as C++ (-Werror "
          "-trigraphs), no injected symbol, outputs exact")


if __name__ == "__main__":
    main()
