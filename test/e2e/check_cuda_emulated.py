#!/usr/bin/python3
"""Runs a model's generated CUDA code whole on the CPU and compares its
outputs with the reference outputs (PyTorch's for the e2e models; 1e-4
relative).

    check_cuda_emulated.py --onnxc ONNXC --model-dir DIR [--cxx c++] [--same-as-host]

--same-as-host expects the host build's outputs bit for bit (a quantized
model: the GPU's integer kernels against the host's).

`onnxc --target cuda` writes NAME.cu; the host compiler builds it against
test/kernels/cuda_emulation.h (CUDA's threads, barriers, warp shuffles and
the runtime calls of the session, on the CPU) with a small program that
creates a session, runs the model twice through NAME_run_v (the CUDA Graph
path: the schedule is captured at create and replayed) and writes the
outputs. This checks the schedule, its arguments, arena offsets and weights
and the kernels together without a GPU; what needs one (timing, the GPU's
memory model, the real runtime) is cuda.run.*. run_conformance.py
--cuda-emulated runs the ONNX backend tests the same way (run_emulated).
"""
import argparse
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from onnx_tensors import load_tensor  # noqa: E402

# The test programs' includes and their file reads and writes.
PROGRAM_HEAD = r"""
#include "model.h"
#include "onnxc_rt/string.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static bool io(const char *path, std::vector<unsigned char> &data, bool write) {
  std::FILE *f = std::fopen(path, write ? "wb" : "rb");
  if (!f) return false;
  size_t done = write ? std::fwrite(data.data(), 1, data.size(), f)
                      : std::fread(data.data(), 1, data.size(), f);
  return std::fclose(f) == 0 && done == data.size();
}
"""

MAIN = PROGRAM_HEAD + r"""
// argv: n_in, then path, bytes and kind of each input, then of each output.
// Kind "s": strings (onnxc_string, 16 bytes each), in the file as each
// string's length (8 bytes) and bytes; "b": the tensor's bytes.
static bool read_all(const char *path, std::vector<char> &text) {
  std::FILE *f = std::fopen(path, "rb");
  if (!f) return false;
  char chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;)
    text.insert(text.end(), chunk, chunk + n);
  return std::fclose(f) == 0;
}
int main(int argc, char **argv) {
  int n_in = std::atoi(argv[1]), n_all = (argc - 2) / 3;
  std::vector<std::vector<unsigned char>> bufs(n_all);
  std::vector<std::vector<char>> texts(n_all);
  std::vector<const void *> in;
  std::vector<void *> out;
  for (int i = 0; i < n_all; ++i) {
    const char *path = argv[2 + 3 * i];
    const bool strings = argv[4 + 3 * i][0] == 's';
    bufs[i].resize(std::strtoull(argv[3 + 3 * i], nullptr, 10));
    if (i < n_in && strings) {
      if (!read_all(path, texts[i])) return 2;
      onnxc_string *s = reinterpret_cast<onnxc_string *>(bufs[i].data());
      size_t at = 0;
      for (size_t k = 0; k < bufs[i].size() / sizeof(onnxc_string); ++k) {
        int64_t size = 0;
        if (at + 8 > texts[i].size()) return 2;
        std::memcpy(&size, texts[i].data() + at, 8);
        s[k].data = texts[i].data() + at + 8;
        s[k].size = size;
        at += 8 + size_t(size);
      }
    } else if (i < n_in && !io(path, bufs[i], false)) {
      return 2;
    }
    if (i < n_in) in.push_back(bufs[i].data()); else out.push_back(bufs[i].data());
  }
  static model_session session;
  if (int rc = model_create(&session, 0)) {
    std::printf("create: %d %s\n", rc, model_error(&session));
    return 3;
  }
  // Twice: the replayed graph must give the same outputs again.
  for (int run = 0; run < 2; ++run)
    if (int rc = model_run_v(&session, in.data(), out.data())) {
      std::printf("run: %d %s\n", rc, model_error(&session));
      return 3;
    }
  for (int i = n_in; i < n_all; ++i) {
    if (argv[4 + 3 * i][0] == 's') { // before destroy: they point into the session
      std::vector<unsigned char> text;
      const onnxc_string *s = reinterpret_cast<const onnxc_string *>(bufs[i].data());
      for (size_t k = 0; k < bufs[i].size() / sizeof(onnxc_string); ++k) {
        const int64_t size = s[k].size;
        const unsigned char *p = reinterpret_cast<const unsigned char *>(&size);
        text.insert(text.end(), p, p + 8);
        text.insert(text.end(), s[k].data, s[k].data + size);
      }
      bufs[i] = text;
    }
    if (!io(argv[2 + 3 * i], bufs[i], true)) return 2;
  }
  model_destroy(&session);
  return 0;
}
"""

BOUNDED_MAIN = PROGRAM_HEAD + r"""
// argv: n_dims, n_in, n_out, then for each run its sizes, then the path and
// bytes of each input and output. One session serves every run, in order:
// a run at other sizes than the last captures the graph again. Prints each
// run's status; a failed run writes no outputs.
int main(int argc, char **argv) {
  const int nd = std::atoi(argv[1]), ni = std::atoi(argv[2]), no = std::atoi(argv[3]);
  static model_session session;
  if (int rc = model_create(&session, 0)) {
    std::printf("create: %d %s\n", rc, model_error(&session));
    return 3;
  }
  for (int a = 4; a + nd + 2 * (ni + no) <= argc;) {
    std::vector<int64_t> dims;
    for (int i = 0; i < nd; ++i) dims.push_back(std::strtoll(argv[a++], nullptr, 10));
    std::vector<std::vector<unsigned char>> bufs(ni + no);
    std::vector<const void *> in;
    std::vector<void *> out;
    std::vector<const char *> paths;
    for (int i = 0; i < ni + no; ++i) {
      paths.push_back(argv[a]);
      bufs[i].resize(std::strtoull(argv[a + 1], nullptr, 10));
      a += 2;
      if (i < ni && !io(paths[i], bufs[i], false)) return 2;
      if (i < ni) in.push_back(bufs[i].data()); else out.push_back(bufs[i].data());
    }
    const int rc = model_run_v(&session, dims.data(), in.data(), out.data());
    std::printf("run: %d %s\n", rc, rc ? model_error(&session) : "");
    for (int i = ni; i < ni + no && rc == 0; ++i)
      if (!io(paths[i], bufs[i], true)) return 2;
  }
  model_destroy(&session);
  return 0;
}
"""


def bounded_interface(header):
    """The bounded dims' names (NAME_DIM_x_MIN, in order) and [(kind,
    dtype, shape of dims -> shape)] of the inputs then outputs of a model
    built with --dim NAME=LO..HI (" *   in  x: float[batch x 3] (at most
    [8x3])")."""
    names, tensors = [], []
    for line in open(header):
        m = re.match(r"#define \w+?_DIM_(\w+)_MIN ", line)
        if m:
            names.append(m.group(1))
        m = re.match(r" \*   (in |out) \w+: ([\w:]+)\[([^\]]*)\]", line)
        if m:
            texts = [t.strip() for t in re.split(r" x |x(?=\d)|(?<=\d)x", m.group(3)) if t]

            def shape(dims, texts=texts):
                env = dict(zip(names, dims))
                return tuple(int(eval(t, {"__builtins__": {}}, env)) for t in texts)
            tensors.append((m.group(1).strip(), np.dtype(DTYPES[m.group(2)]), shape))
    return names, tensors


def run_bounded(onnxc, model, dim_flags, runs, cxx="c++", timeout=600):
    """Compiles `model` for cuda once with `dim_flags` (--dim NAME=LO..HI)
    and runs it through the emulation for each (sizes, inputs) of `runs`,
    in order, in one session. Returns [(status, outputs, message)] (outputs
    None and NAME_error's message where the run failed)."""
    with tempfile.TemporaryDirectory(prefix="onnxc-cuda-bounded-") as work:
        gen = os.path.join(work, "gen")
        r = subprocess.run([onnxc, model, "--target", "cuda", "--name", "model", "--quiet",
                            "-o", gen, *dim_flags], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError((r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0])
        names, tensors = bounded_interface(os.path.join(gen, "model.h"))
        ins = [t for t in tensors if t[0] == "in"]
        outs = [t for t in tensors if t[0] == "out"]
        with open(os.path.join(work, "main.cpp"), "w") as f:
            f.write(BOUNDED_MAIN)
        program = os.path.join(work, "model")
        build(cxx, gen, work, program)
        args = [program, str(len(names)), str(len(ins)), str(len(outs))]
        for j, (dims, inputs) in enumerate(runs):
            args += [str(d) for d in dims]
            for k, x in enumerate(inputs):
                path = os.path.join(work, f"run{j}_in{k}.bin")
                np.ascontiguousarray(x).tofile(path)
                args += [path, str(x.nbytes)]
            for k, (_, dtype, shape) in enumerate(outs):
                n = int(np.prod(shape(dims), dtype=np.int64))
                args += [os.path.join(work, f"run{j}_out{k}.bin"), str(n * dtype.itemsize)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"the program failed ({r.returncode}): "
                               f"{r.stdout.strip()}{r.stderr.strip()}")
        runs_said = [line.split(" ", 2)[1:] for line in r.stdout.splitlines()
                     if line.startswith("run:")]
        statuses = [int(said[0]) for said in runs_said]
        results = []
        for j, (dims, _) in enumerate(runs):
            got = None
            if statuses[j] == 0:
                got = [np.fromfile(os.path.join(work, f"run{j}_out{k}.bin"),
                                   dtype=dtype).reshape(shape(dims))
                       for k, (_, dtype, shape) in enumerate(outs)]
            results.append((statuses[j], got, runs_said[j][1] if len(runs_said[j]) > 1 else ""))
        return results


EMULATION = os.path.join(ROOT, "test", "kernels", "cuda_emulation.h")
_precompiled = {}
_precompiled_lock = threading.Lock()


def emulation_header(flags):
    """The header every emulated build pre-includes: cuda_emulation.h,
    precompiled once a process for these flags (a third of a small model's
    build was its parse), or the header itself where it cannot be."""
    key = tuple(flags)
    with _precompiled_lock:
        if key not in _precompiled:
            folder = tempfile.mkdtemp(prefix="onnxc-cuda-emu-pch-")
            atexit.register(shutil.rmtree, folder, True)
            header = os.path.join(folder, "emulation.h")
            with open(header, "w") as f:
                f.write(f'#include "{EMULATION}"\n')
            r = subprocess.run([*flags, "-Wno-unknown-pragmas", "-x", "c++-header", header,
                                "-o", header + ".gch"], capture_output=True, text=True)
            _precompiled[key] = header if r.returncode == 0 else EMULATION
        return _precompiled[key]


def build(cxx, gen, work, program):
    """Builds gen/model.cu against the emulation with work/main.cpp."""
    flags = [cxx, "-std=c++17", "-O1", "-pthread", "-Wall", "-Wextra", "-Werror",
             "-I" + os.path.join(ROOT, "runtime-lite", "include")]
    emulation = emulation_header(flags)
    flags.append("-I" + gen)
    for step in ([*flags, "-Wno-unknown-pragmas", "-include", emulation, "-x", "c++", "-c",
                  os.path.join(gen, "model.cu"), "-o", program + ".o"],
                 [*flags, "-c", os.path.join(gen, "model_weights.S"), "-Wa,-I" + gen,
                  "-o", program + "_weights.o"],
                 [*flags, os.path.join(work, "main.cpp"), program + ".o",
                  program + "_weights.o", "-o", program]):
        r = subprocess.run(step, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("build failed: " + (r.stderr.strip().splitlines() or [""])[0])


# The header's C types -> numpy (the types the CUDA kernels take; bfloat16
# as its uint16 bits, as onnx_tensors.load_tensor gives ONNX's test data).
DTYPES = {"float": np.float32, "double": np.float64, "bool": np.bool_, "int8_t": np.int8,
          "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
          "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64,
          "uint64_t": np.uint64, "onnxc_rt::float16": np.float16,
          "onnxc_rt::bfloat16": np.uint16, "onnxc_string": object}
STRING_BYTES = 16  # sizeof(onnxc_string)


class Refused(Exception):
    """onnxc refused the model for cuda (exit 3): the reason."""


def interface(header):
    """[(kind, dtype, shape)] of the model's inputs then outputs, from the
    comment lines of NAME.h (" *   in  x: float[3x4]  (ONNX ...)")."""
    tensors = []
    for line in open(header):
        m = re.match(r" \*   (in |out) \w+: ([\w:]+)\[([0-9x]*)\]", line)
        if m:
            if m.group(2) not in DTYPES:
                raise Refused(f"element type {m.group(2)} at the interface")
            shape = tuple(int(d) for d in m.group(3).split("x")) if m.group(3) else ()
            tensors.append((m.group(1).strip(), np.dtype(DTYPES[m.group(2)]), shape))
    return tensors


def onnx_names(header):
    """The ONNX names of the outputs' parameters in NAME.h ("seq[1]" for a
    sequence's second tensor)."""
    names = []
    for line in open(header):
        m = re.match(r' \*   out \w+: .*\(ONNX "(.*)"\)$', line)
        if m:
            names.append(m.group(1))
    return names


def data_sized(header):
    """The outputs whose size the data decides, from NAME.h's comments
    ("dim D depends on the data: ...; the run writes its size to *NAME"):
    {output index: (dim, index of its extent output)}."""
    outs, sized = [], {}
    for line in open(header):
        m = re.match(r" \*   out (\w+): ", line)
        if m:
            outs.append(m.group(1))
        m = re.match(r" \*\s+dim (\d+) depends on the data: .*writes its size to \*(\w+)", line)
        if m:
            sized[len(outs) - 1] = (int(m.group(1)), m.group(2))
    return {k: (dim, outs.index(name)) for k, (dim, name) in sized.items()}


def trim_data_sized(header, outputs):
    """The ONNX outputs of a run: each output whose size the data decides
    cut to the size its extent output reports (the tensor lies densely at
    the buffer's start), the extent outputs dropped."""
    sized = data_sized(header)
    extents = {e for _, e in sized.values()}
    result = []
    for k, out in enumerate(outputs):
        if k in extents:
            continue
        if k in sized:
            dim, e = sized[k]
            size = int(outputs[e].reshape(-1)[0])
            if not 0 <= size <= out.shape[dim]:
                raise RuntimeError(f"output {k} reports size {size} of at most {out.shape[dim]}")
            shape = out.shape[:dim] + (size,) + out.shape[dim + 1:]
            out = out.reshape(-1)[:int(np.prod(shape, dtype=np.int64))].reshape(shape)
        result.append(out)
    return result


def composite_outputs(header):
    """{ONNX name: present} of the outputs NAME.h says are sequences or
    optionals (" *   ONNX output "s": sequence of 2 tensors")."""
    found = {}
    for line in open(header):
        m = re.match(r' \*   ONNX output "(.*)": (.*)$', line)
        if m:
            found[m.group(1)] = "absent" not in m.group(2)
    return found


def regroup(header, names, outputs):
    """The graph's outputs from a run's (ONNX name, tensor) pairs, the names
    as the header's "(ONNX ...)" gives them: a sequence as its list, an
    optional as its value or None. `names`: (name, kind) of each graph
    output, kind "optional" for an optional tensor."""
    composites = composite_outputs(header)
    result = []
    for name, kind in names:
        if name not in composites:
            result.append(outputs.pop(0)[1])
            continue
        items = []
        while outputs and (outputs[0][0] == name or outputs[0][0].startswith(name + "[")):
            items.append(outputs.pop(0)[1])
        if not composites[name]:
            result.append(None)
        elif kind == "optional":
            result.append(items[0])
        else:
            result.append(items)
    return result


def load_set_inputs(model, set_dir):
    """A test data set's inputs (input_K.pb) as ONNX values, each read as
    the model's graph input K's type says: an array, a list (sequence) or,
    for an optional, None or its value."""
    import onnx
    from onnx_tensors import load_value
    graph = onnx.load(model, load_external_data=False).graph
    inits = {t.name for t in graph.initializer}
    types = [i.type for i in graph.input if i.name not in inits]
    values = []
    while os.path.exists(os.path.join(set_dir, f"input_{len(values)}.pb")):
        values.append(load_value(os.path.join(set_dir, f"input_{len(values)}.pb"),
                                 types[len(values)]))
    return values


def flatten_inputs(model, values):
    """The arrays and onnxc arguments for graph inputs given as ONNX values
    (arrays; lists for sequences, None for an absent optional), as `onnxc
    run` takes them from its files: each sequence or optional passes as its
    tensors, their shapes compiled in (--elements); a tensor whose dims the
    model leaves open gets the given one's shape (--shape)."""
    import onnx
    graph = onnx.load(model, load_external_data=False).graph
    inits = {t.name for t in graph.initializer}
    order = [i for i in graph.input if i.name not in inits]
    arrays, names, args = [], [], []
    for vi, v in zip(order, values):
        if vi.type.WhichOneof("value") == "tensor_type":
            arrays.append(v)
            names.append(vi.name)
            dims = vi.type.tensor_type.shape.dim
            fixed = vi.type.tensor_type.HasField("shape") and all(
                d.HasField("dim_value") for d in dims)
            if not fixed and np.ndim(v) > 0 and np.size(v) > 0:
                args.append(f"--shape={vi.name}={'x'.join(str(d) for d in np.shape(v))}")
            continue
        items = [] if v is None else v if isinstance(v, list) else [v]
        shapes = ["x".join(str(d) for d in np.shape(x)) or "scalar" for x in items]
        args.append(f"--elements={vi.name}={'none' if v is None else ','.join(shapes)}")
        arrays += items
        names += [None] * len(items)
    return arrays, names, args


def bind_shape_inputs(onnxc, model, inputs, work, names=None):
    """--bind arguments that compile in, as `onnxc run` does, the values of
    the inputs that decide shapes (onnxc --list-shape-inputs; they stay in
    the interface, their values given again at run time). `names`: each
    input's graph input (None for a sequence's tensors), else graph order."""
    r = subprocess.run([onnxc, model, "--list-shape-inputs"], capture_output=True, text=True)
    shape_inputs = set(r.stdout.split()) if r.returncode == 0 else set()
    if not shape_inputs:
        return []
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(model, load_external_data=False).graph
    inits = {t.name for t in graph.initializer}
    order = names or [i.name for i in graph.input if i.name not in inits]
    args = []
    for name, x in zip(order, inputs):
        if name in shape_inputs:
            path = os.path.join(work, f"bind{len(args)}.pb")
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(x), name).SerializeToString())
            args.append(f"--bind={name}={path}")
    return args


def run_emulated(onnxc, model, inputs, cxx="c++", timeout=600, onnxc_args=()):
    """Compiles `model` for cuda, runs it on `inputs` (graph order: arrays,
    lists for sequences, None for an absent optional) through the emulation
    and returns the graph's outputs in the same forms; the inputs whose
    values decide shapes are compiled in, as `onnxc run` does on the CPU
    targets, and the shapes of sequences' and optionals' tensors
    (--elements). Raises Refused when onnxc does not support the model for
    cuda, RuntimeError on any other failure."""
    inputs, names, elements = flatten_inputs(model, inputs)
    with tempfile.TemporaryDirectory(prefix="onnxc-cuda-emu-") as work:
        gen = os.path.join(work, "gen")
        binds = bind_shape_inputs(onnxc, model, inputs, work, names)
        r = subprocess.run([onnxc, model, "--target", "cuda", "--name", "model", "--quiet",
                            "-o", gen, *binds, *elements, *onnxc_args],
                           capture_output=True, text=True)
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0]
            raise (Refused if r.returncode == 3 else RuntimeError)(first)
        tensors = interface(os.path.join(gen, "model.h"))
        ins = [t for t in tensors if t[0] == "in"]
        outs = [t for t in tensors if t[0] == "out"]
        if len(ins) != len(inputs):
            raise RuntimeError(f"the model has {len(ins)} inputs, {len(inputs)} given")
        with open(os.path.join(work, "main.cpp"), "w") as f:
            f.write(MAIN)
        program = os.path.join(work, "model")
        build(cxx, gen, work, program)
        header = os.path.join(gen, "model.h")
        return graph_outputs(header, output_kinds(model),
                             run_program(program, work, inputs, ins, outs, timeout))


def output_kinds(model):
    """(name, kind) of the graph's outputs, kind "optional" for an optional
    tensor, else "other" (regroup's `names`)."""
    import onnx
    graph = onnx.load(model, load_external_data=False).graph

    def kind(t):
        optional_tensor = (t.WhichOneof("value") == "optional_type" and
                           t.optional_type.elem_type.WhichOneof("value") == "tensor_type")
        return "optional" if optional_tensor else "other"
    return [(o.name, kind(o.type)) for o in graph.output]


def graph_outputs(header, kinds, outputs):
    """The graph's outputs from a program's (run_program's): each output
    whose size the data decides cut to it, sequences and optionals
    regrouped; `kinds` as output_kinds gives them."""
    # The extent outputs trim_data_sized drops follow the graph's.
    named = list(zip(onnx_names(header), trim_data_sized(header, outputs)))
    return regroup(header, kinds, named)


def run_program(program, work, inputs, ins, outs, timeout):
    """Runs a program built with MAIN on `inputs` (files in `work`) and
    returns its outputs; `ins` and `outs` as interface() gives them. Raises
    RuntimeError when an input does not fit or the program fails. (Also the
    GPU runs of bench/cuda/node_kit.py.)"""
    args = [program, str(len(inputs))]
    for k, (x, (_, dtype, shape)) in enumerate(zip(inputs, ins)):
        x = np.asarray(x, order="C")  # (ascontiguousarray makes a scalar 1-D)
        if x.dtype != dtype or x.shape != shape:
            raise RuntimeError(f"input {k} is {x.dtype}{list(x.shape)}, the model takes "
                               f"{dtype}{list(shape)}")
        path = os.path.join(work, f"in{k}.bin")
        if dtype == object:  # strings: each one's length, then its UTF-8 bytes
            with open(path, "wb") as f:
                for v in x.reshape(-1):
                    b = v if isinstance(v, bytes) else str(v).encode("utf-8")
                    f.write(len(b).to_bytes(8, "little") + b)
            args += [path, str(x.size * STRING_BYTES), "s"]
            continue
        x.tofile(path)
        args += [path, str(x.nbytes), "b"]
    for k, (_, dtype, shape) in enumerate(outs):
        n = int(np.prod(shape, dtype=np.int64))
        args += [os.path.join(work, f"out{k}.bin"),
                 str(n * (STRING_BYTES if dtype == object else dtype.itemsize)),
                 "s" if dtype == object else "b"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"the program failed ({r.returncode}): "
                           f"{r.stdout.strip()}{r.stderr.strip()}")
    return [read_strings(os.path.join(work, f"out{k}.bin"), shape) if dtype == object
            else np.fromfile(os.path.join(work, f"out{k}.bin"), dtype=dtype).reshape(shape)
            for k, (_, dtype, shape) in enumerate(outs)]


def read_strings(path, shape):
    """A string output as MAIN writes it, as an object array of str (what
    ONNX's test data loads as)."""
    data = open(path, "rb").read()
    values, at = [], 0
    for _ in range(int(np.prod(shape, dtype=np.int64))):
        size = int.from_bytes(data[at:at + 8], "little")
        values.append(data[at + 8:at + 8 + size].decode("utf-8"))
        at += 8 + size
    return np.array(values, dtype=object).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--max-rel-err", type=float, default=1e-4)
    ap.add_argument("--precision", default="fp32",
                    help="onnxc --precision (fp32, tf32, fp16, bf16)")
    ap.add_argument("--same-as-host", action="store_true",
                    help="expect the host's outputs (`onnxc run --target generic`) exactly, "
                         "not the model folder's (the integer kernels of a quantized model)")
    a = ap.parse_args()
    data = os.path.join(a.model_dir, "test_data_set_0")
    inputs, expected = [], []
    while os.path.exists(os.path.join(data, f"input_{len(inputs)}.pb")):
        inputs.append(load_tensor(os.path.join(data, f"input_{len(inputs)}.pb")))
    if a.same_as_host:
        a.max_rel_err = 0.0
        data = tempfile.mkdtemp(prefix="onnxc-host-")
        subprocess.run([a.onnxc, "run", os.path.join(a.model_dir, "model.onnx"), "--inputs",
                        os.path.join(a.model_dir, "test_data_set_0"), "--outputs", data,
                        "--target", "generic", "--quiet"], check=True)
    while os.path.exists(os.path.join(data, f"output_{len(expected)}.pb")):
        expected.append(load_tensor(os.path.join(data, f"output_{len(expected)}.pb")))
    if a.same_as_host:
        shutil.rmtree(data)
    try:
        outputs = run_emulated(a.onnxc, os.path.join(a.model_dir, "model.onnx"), inputs, a.cxx,
                               onnxc_args=["--precision", a.precision])
    except (Refused, RuntimeError) as err:
        sys.exit(str(err))
    ok = len(outputs) == len(expected)
    for k, (got, y) in enumerate(zip(outputs, expected)):
        if got.shape != y.shape or got.dtype != y.dtype:
            print(f"output_{k}: {got.dtype}{list(got.shape)} != expected {y.dtype}{list(y.shape)}")
            ok = False
            continue
        scale = float(np.max(np.abs(y))) if y.size else 0.0
        err = float(np.max(np.abs(got.astype(np.float64) - y))) if y.size else 0.0
        rel = err / scale if scale > 0 else err
        good = rel <= a.max_rel_err
        ok = ok and good
        print(f"output_{k}: max relative error {rel:.3g} {'ok' if good else 'TOO LARGE'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
