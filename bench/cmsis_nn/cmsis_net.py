#!/usr/bin/python3
"""Writes a C file that runs an int8 QDQ ONNX model (as `onnxc --quantize int8
--emit qdq-onnx` writes it) with ARM's CMSIS-NN kernels, called the way
TensorFlow Lite Micro's cmsis_nn kernels call them, without TFLM's
interpreter: the peer side of bench/cmsis_nn/compare.py.

    cmsis_net.py MODEL.qdq.onnx OUT.c [--meta OUT.json] [--s16 --shapes FLOAT.onnx]

The C file defines the interface of harness.h (net_init, net_run, the input
and output sizes) over the model's own quantized numbers: int8 weights per
output channel in CMSIS-NN's layouts (OHWI convolutions, 1HWC depthwise,
[out][in] fully connected), int32 biases, Q31 multipliers and shifts from
the same scales (TFLite's QuantizeMultiplier, as onnxc derives them), NHWC
activations in one arena planned as TFLM's greedy planner does (largest
tensor first, lowest offset free over its lifetime). Layers:

  Conv (group 1)      arm_convolve_wrapper_s8
  Conv (depthwise)    arm_depthwise_conv_wrapper_s8
  Gemm                arm_fully_connected_wrapper_s8 (kernel sums computed in
                      net_init where the core's kernel wants them, as TFLM's
                      Prepare does)
  MaxPool             arm_max_pool_s8
  GlobalAveragePool   arm_avgpool_s8, then the int8 requantization TFLM's
                      QUANTIZE runs where the output's scale differs
  Add                 arm_elementwise_add_s8 (TFLite's add parameters)
  Relu before a Q     the activation clamp of the layer it follows
  Flatten             nothing (NHWC order: the next Gemm's columns permuted)

net_run takes the input in NHWC, as a TFLite model does (compare.py
transposes the model's NCHW input for this side), so no layout change is
counted against CMSIS-NN.

--s16: a model with int16 activations (`onnxc --quantize int16x8`, its
pairs com.microsoft QuantizeLinear/DequantizeLinear), run on CMSIS-NN's
16x8 kernels as TFLM's int16 path calls them: arm_convolve_wrapper_s16 and
arm_depthwise_conv_wrapper_s16 (int64 biases), arm_avgpool_s16. Gemm runs
as a 1 x 1 arm_convolve_wrapper_s16, since CMSIS-NN's int16 fully connected
kernel takes one multiplier per tensor and onnxc's weights are per channel
(the same products; the layer is 0.1% of DS-CNN's work). ONNX's shape
inference does not see through com.microsoft ops, so the shapes come from
the float model (--shapes), whose tensor names the QDQ model keeps.
"""
import argparse
import json
import math

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference


def quantize_multiplier(real):
    """TFLite's QuantizeMultiplier: real = m * 2^(shift - 31), m in [2^30, 2^31)."""
    if not real > 0:
        return 0, 0
    frac, exp = math.frexp(real)
    q = int(math.floor(frac * (1 << 31) + 0.5))
    if q == 1 << 31:
        q //= 2
        exp += 1
    if exp < -31:
        return 0, 0
    if exp > 30:
        return (1 << 31) - 1, 30
    return q, exp


class Graph:
    def __init__(self, path, shapes_from=None):
        model = shape_inference.infer_shapes(onnx.load(path))
        g = model.graph
        self.g = g
        self.init = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        self.producer = {o: n for n in g.node for o in n.output}
        self.consumers = {}
        for n in g.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.shapes = {}
        infos = list(g.value_info) + list(g.input) + list(g.output)
        if shapes_from:
            fg = shape_inference.infer_shapes(onnx.load(shapes_from)).graph
            infos += list(fg.value_info) + list(fg.input) + list(fg.output)
        for vi in infos:
            dims = vi.type.tensor_type.shape.dim
            if dims and all(d.dim_value > 0 for d in dims):
                self.shapes.setdefault(vi.name, [d.dim_value for d in dims])
        for n in g.node:  # (com.microsoft Q/DQ: the shape they keep)
            if n.op_type in ("QuantizeLinear", "DequantizeLinear") and n.input[0] in self.shapes:
                self.shapes.setdefault(n.output[0], self.shapes[n.input[0]])

    def const(self, name):
        if name in self.init:
            return self.init[name]
        p = self.producer.get(name)
        if p is not None and p.op_type == "Constant":
            return numpy_helper.to_array(p.attribute[0].t)
        raise SystemExit(f"cmsis_net: '{name}' is not a constant")

    def dequantized(self, name):
        """(int8 or int32 source tensor name, scale array, zero point array)
        of a DequantizeLinear output."""
        dq = self.producer.get(name)
        if dq is None or dq.op_type != "DequantizeLinear":
            raise SystemExit(f"cmsis_net: '{name}' is not a DequantizeLinear output")
        zp = self.const(dq.input[2]) if len(dq.input) > 2 and dq.input[2] else np.int8(0)
        return dq.input[0], np.atleast_1d(self.const(dq.input[1])).astype(np.float32), \
            np.atleast_1d(zp)

    def quantized_output(self, name):
        """Follows a float result through an optional Relu to its
        QuantizeLinear: (int8 tensor, scale, zero point, relu)."""
        users = self.consumers.get(name, [])
        relu = False
        if len(users) == 1 and users[0].op_type == "Relu":
            relu = True
            users = self.consumers.get(users[0].output[0], [])
        if len(users) != 1 or users[0].op_type != "QuantizeLinear":
            raise SystemExit(f"cmsis_net: '{name}' is not quantized by one QuantizeLinear")
        q = users[0]
        return (q.output[0], float(self.const(q.input[1])), int(self.const(q.input[2])), relu)


def attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def c_array(ctype, name, values, align=4):
    flat = [int(v) for v in np.asarray(values).ravel()]
    body = ",".join(str(v) for v in flat) if flat else "0"
    return f"static const {ctype} {name}[{max(len(flat), 1)}] __attribute__((aligned({align}))) = {{{body}}};\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--meta")
    ap.add_argument("--s16", action="store_true")
    ap.add_argument("--shapes")
    a = ap.parse_args()
    G = Graph(a.model, a.shapes)
    S16 = a.s16
    ELEM = 2 if S16 else 1  # bytes an activation
    LO, HI = (-32768, 32767) if S16 else (-128, 127)
    ACT = "int16_t" if S16 else "int8_t"

    # Activation tensors (int8, NHWC): name -> dict(shape [n,h,w,c], scale, zp).
    tensors = {}
    layers = []
    aliases = {}  # Flatten: output tensor -> input tensor (and the NCHW shape behind it)
    flatten_from = {}

    def act(name):
        return aliases.get(name, name)

    graph_in = G.g.input[0].name
    q_in = [n for n in G.consumers[graph_in] if n.op_type == "QuantizeLinear"][0]
    in_shape = G.shapes[graph_in]
    if len(in_shape) == 2:
        in_shape = [in_shape[0], 1, 1, in_shape[1]]
    else:
        in_shape = [in_shape[0], in_shape[2], in_shape[3], in_shape[1]]
    tensors[q_in.output[0]] = dict(shape=in_shape, scale=float(G.const(q_in.input[1])),
                                   zp=int(G.const(q_in.input[2])))
    input_name = q_in.output[0]

    def nhwc(name):
        s = G.shapes[name]
        return [s[0], s[2], s[3], s[1]] if len(s) == 4 else [s[0], 1, 1, s[1]]

    for n in G.g.node:
        if n.op_type in ("QuantizeLinear", "DequantizeLinear", "Relu", "Constant"):
            continue
        if n.op_type == "Flatten":
            src, _, _ = G.dequantized(n.input[0])
            q, _, _, _ = G.quantized_output(n.output[0])
            aliases[q] = act(src)
            flatten_from[q] = G.shapes[n.input[0]]
            continue
        if n.op_type in ("Conv", "Gemm"):
            x, xs, xz = G.dequantized(n.input[0])
            w, ws, _ = G.dequantized(n.input[1])
            wq = G.const(w).astype(np.int8)
            bias = (G.const(G.dequantized(n.input[2])[0]).astype(np.int32)
                    if len(n.input) > 2 and n.input[2] else None)
            y, ys, yz, relu = G.quantized_output(n.output[0])
            xs, xz = float(xs[0]), int(xz[0])
            m = wq.shape[0] if n.op_type == "Conv" else (wq.shape[0] if attr(n, "transB", 0) else wq.shape[1])
            ws = np.broadcast_to(ws, (m,))
            mults = [quantize_multiplier(float(xs) * float(s) / ys) for s in ws]
            L = dict(op=n.op_type, name=n.name or n.output[0], x=act(x), y=y,
                     in_off=-xz, out_off=yz, act_min=yz if relu else LO, act_max=HI,
                     mult=[mm for mm, _ in mults], shift=[sh for _, sh in mults],
                     bias=bias if bias is not None else np.zeros(m, np.int32))
            if n.op_type == "Conv":
                group = attr(n, "group", 1)
                kh, kw = wq.shape[2], wq.shape[3]
                pads = attr(n, "pads", [0, 0, 0, 0])
                strides = attr(n, "strides", [1, 1])
                dil = attr(n, "dilations", [1, 1])
                cin = tensors[act(x)]["shape"][3]
                L.update(kh=kh, kw=kw, pad=(pads[0], pads[1]), stride=strides, dil=dil)
                if group == 1:
                    L["kind"] = "conv"
                    L["w"] = wq.transpose(0, 2, 3, 1)  # OIHW -> OHWI
                elif group == cin and wq.shape[1] == 1:
                    L["kind"] = "dw"
                    L["mult_ch"] = m // cin
                    L["w"] = wq.reshape(m, kh, kw).transpose(1, 2, 0)  # -> [1,kh,kw,M]
                else:
                    raise SystemExit(f"cmsis_net: node '{n.name}': grouped convolution "
                                     f"(group {group}) has no CMSIS-NN kernel")
                tensors[y] = dict(shape=nhwc(n.output[0]), scale=ys, zp=yz)
            else:
                if attr(n, "transA", 0) or attr(n, "alpha", 1.0) != 1.0:
                    raise SystemExit(f"cmsis_net: node '{n.name}': Gemm with transA or alpha")
                wt = wq if attr(n, "transB", 0) else wq.T  # -> [out][in]
                if x in flatten_from or act(x) != x:
                    src_shape = flatten_from.get(x)
                    if src_shape and len(src_shape) == 4 and src_shape[2] * src_shape[3] > 1:
                        _, c, h, w_ = src_shape  # columns in NCHW order -> NHWC order
                        wt = wt.reshape(m, c, h, w_).transpose(0, 2, 3, 1).reshape(m, -1)
                L["kind"] = "fc"
                L["w"] = np.ascontiguousarray(wt)
                L["k"] = wt.shape[1]
                L["m"] = m
                L["per_channel"] = len(set(L["mult"])) > 1 or len(set(L["shift"])) > 1
                tensors[y] = dict(shape=[1, 1, 1, m], scale=ys, zp=yz)
            layers.append(L)
        elif n.op_type in ("MaxPool", "GlobalAveragePool", "AveragePool"):
            x, xs, xz = G.dequantized(n.input[0])
            y, ys, yz, relu = G.quantized_output(n.output[0])
            xin = tensors[act(x)]
            ish = xin["shape"]
            if n.op_type == "GlobalAveragePool":
                k, s, p = [ish[1], ish[2]], [1, 1], [0, 0]
            else:
                k = attr(n, "kernel_shape", None)
                s = attr(n, "strides", [1, 1])
                pads = attr(n, "pads", [0, 0, 0, 0])
                p = [pads[0], pads[1]]
                if n.op_type == "AveragePool" and any(pads) and attr(n, "count_include_pad", 0):
                    raise SystemExit(f"cmsis_net: node '{n.name}': count_include_pad has no "
                                     "CMSIS-NN kernel")
            L = dict(kind="maxpool" if n.op_type == "MaxPool" else "avgpool",
                     name=n.name or n.output[0], x=act(x), y=y, kh=k[0], kw=k[1], stride=s,
                     pad=p, act_min=yz if relu else LO, act_max=HI,
                     in_zp=int(xz[0]), in_scale=float(xs[0]), out_zp=yz, out_scale=ys)
            if L["kind"] == "maxpool" and (abs(float(xs[0]) - ys) > 0 or int(xz[0]) != yz):
                raise SystemExit(f"cmsis_net: node '{n.name}': MaxPool changes the quantization")
            tensors[y] = dict(shape=nhwc(n.output[0]), scale=ys, zp=yz)
            layers.append(L)
        elif n.op_type == "Add":
            a_, as_, az = G.dequantized(n.input[0])
            b_, bs, bz = G.dequantized(n.input[1])
            y, ys, yz, relu = G.quantized_output(n.output[0])
            if tensors[act(a_)]["shape"] != tensors[act(b_)]["shape"]:
                raise SystemExit(f"cmsis_net: node '{n.name}': broadcasting Add")
            as_, bs = float(as_[0]), float(bs[0])
            twice = 2 * max(as_, bs)
            am, ash = quantize_multiplier(as_ / twice)
            bm, bsh = quantize_multiplier(bs / twice)
            om, osh = quantize_multiplier(twice / ((1 << 20) * ys))
            L = dict(kind="add", name=n.name or n.output[0], a=act(a_), b=act(b_), y=y,
                     a_off=-int(az[0]), a_mult=am, a_shift=ash, b_off=-int(bz[0]), b_mult=bm,
                     b_shift=bsh, out_off=yz, out_mult=om, out_shift=osh,
                     act_min=yz if relu else -128, act_max=127)
            if S16:
                raise SystemExit(f"cmsis_net: node '{n.name}': Add is not in the s16 harness")
            tensors[y] = dict(shape=tensors[act(a_)]["shape"], scale=ys, zp=yz)
            layers.append(L)
        else:
            raise SystemExit(f"cmsis_net: node '{n.name}': {n.op_type} is not in the harness")
    # The graph output: DequantizeLinear of the last int8 tensor.
    dq_out = G.producer[G.g.output[0].name]
    out_name = act(dq_out.input[0])

    # Lifetimes and TFLM's greedy plan.
    order = {}
    for i, L in enumerate(layers):
        for key in ("x", "a", "b"):
            if key in L:
                order.setdefault(L[key], [i, i])[1] = i
        order.setdefault(L["y"], [i, i])
        order[L["y"]][0] = min(order[L["y"]][0], i)
    order[input_name] = [-1, order[input_name][1]]
    order[out_name][1] = len(layers)

    def size(name):  # bytes
        s = tensors[name]["shape"]
        return int(np.prod(s)) * ELEM

    placed = []
    offsets = {}
    for name in sorted(order, key=lambda t: -size(t)):
        lo, hi = order[name]
        nbytes = (size(name) + 15) // 16 * 16
        off = 0
        for o, nb, l2, h2 in sorted(placed):
            if h2 < lo or l2 > hi:
                continue
            if off + nbytes <= o:
                break
            off = max(off, o + nb)
        offsets[name] = off
        placed.append((off, nbytes, lo, hi))
    arena = max(o + nb for o, nb, _, _ in placed)

    # C text.
    c = ["/* Generated by bench/cmsis_nn/cmsis_net.py: CMSIS-NN calls for one model. */\n",
         "#include <stdint.h>\n#include <string.h>\n#include \"arm_nnfunctions.h\"\n",
         "#include \"arm_nnsupportfunctions.h\"\n#include \"harness.h\"\n\n",
         f"static int8_t arena[{arena}] __attribute__((aligned(16)));\n"]
    scratch_bound = 64
    for i, L in enumerate(layers):
        p = f"l{i}_"
        if L["kind"] in ("conv", "dw", "fc"):
            c.append(c_array("int8_t", p + "w", L["w"]))
            c.append(c_array("int64_t" if S16 else "int32_t", p + "b", L["bias"], 8 if S16 else 4))
            c.append(c_array("int32_t", p + "mult", L["mult"]).replace("static const", "static"))
            c.append(c_array("int32_t", p + "shift", L["shift"]).replace("static const", "static"))
        if L["kind"] == "fc" and not S16:
            c.append(f"static int32_t {p}sums[{L['m']}];\n")
        if L["kind"] in ("conv", "dw"):
            cin = tensors[L["x"]]["shape"][3]
            scratch_bound = max(scratch_bound, 8 * cin * L["kh"] * L["kw"] + 256)
        if L["kind"] == "fc" and S16:
            scratch_bound = max(scratch_bound, 8 * L["k"] + 256)
        if L["kind"] == "avgpool":
            scratch_bound = max(scratch_bound, 4 * tensors[L["x"]]["shape"][3] + 64)
    c.append(f"static int8_t scratch[{scratch_bound}] __attribute__((aligned(16)));\n")
    c.append("static int32_t scratch_used;\nstatic int32_t fc_sum_bytes;\n\n")

    def dims(sh):
        return "{%d, %d, %d, %d}" % tuple(sh)

    def ptr(name):
        return f"(({ACT} *)(arena + {offsets[name]}))"

    init = ["int net_init(void) {\n  int32_t n;\n"]
    run = ["int net_run(const int8_t *input, int8_t *output) {\n",
           "  cmsis_nn_context ctx = {scratch, sizeof(scratch)};\n  (void)ctx;\n"]
    run.append(f"  memcpy({ptr(input_name)}, input, {size(input_name)});\n")
    for i, L in enumerate(layers):
        p = f"l{i}_"
        run.append(f"  /* {L['kind']} {L['name']} */\n  {{\n")
        if L["kind"] in ("conv", "dw"):
            xs, ys = tensors[L["x"]]["shape"], tensors[L["y"]]["shape"]
            m = ys[3]
            fdims = (dims([m, L["kh"], L["kw"], xs[3]]) if L["kind"] == "conv"
                     else dims([1, L["kh"], L["kw"], m]))
            params_t = "cmsis_nn_conv_params" if L["kind"] == "conv" else "cmsis_nn_dw_conv_params"
            mult = "" if L["kind"] == "conv" else f"{L['mult_ch']}, "
            decl = (f"    const {params_t} p = {{{L['in_off']}, {L['out_off']}, {mult}"
                    f"{{{L['stride'][1]}, {L['stride'][0]}}}, {{{L['pad'][1]}, {L['pad'][0]}}}, "
                    f"{{{L['dil'][1]}, {L['dil'][0]}}}, {{{L['act_min']}, {L['act_max']}}}}};\n"
                    f"    const cmsis_nn_dims in = {dims(xs)}, f = {fdims}, "
                    f"bd = {{1, 1, 1, {m}}}, out = {dims(ys)};\n")
            fn = "arm_convolve_wrapper_s" if L["kind"] == "conv" else "arm_depthwise_conv_wrapper_s"
            fn += "16" if S16 else "8"
            init.append("  {\n" + decl + f"    n = {fn}_get_buffer_size(&p, &in, &f, &out);\n"
                        "    if (n > (int32_t)sizeof(scratch)) return -1;\n"
                        "    if (n > scratch_used) scratch_used = n;\n  }\n")
            bias = (f"&{p}bias" if L["kind"] == "conv" else f"{p}b") if S16 else f"{p}b"
            if S16 and L["kind"] == "conv":
                run.append(f"    const cmsis_nn_bias_data {p}bias = {{{p}b, false}};\n")
            run.append(decl + f"    const cmsis_nn_per_channel_quant_params q = {{{p}mult, {p}shift}};\n"
                       f"    if ({fn}(&ctx, &p, &q, &in, {ptr(L['x'])}, &f, {p}w, &bd, {bias}, &out, "
                       f"{ptr(L['y'])}) != ARM_CMSIS_NN_SUCCESS) return {i + 1};\n")
        elif L["kind"] == "fc" and S16:
            # A 1 x 1 convolution: per-channel multipliers, int64 biases.
            decl = (f"    const cmsis_nn_conv_params p = {{0, 0, {{1, 1}}, {{0, 0}}, {{1, 1}}, "
                    f"{{{L['act_min']}, {L['act_max']}}}}};\n"
                    f"    const cmsis_nn_dims in = {{1, 1, 1, {L['k']}}}, "
                    f"f = {{{L['m']}, 1, 1, {L['k']}}}, bd = {{1, 1, 1, {L['m']}}}, "
                    f"out = {{1, 1, 1, {L['m']}}};\n")
            init.append("  {\n" + decl +
                        "    n = arm_convolve_wrapper_s16_get_buffer_size(&p, &in, &f, &out);\n"
                        "    if (n > (int32_t)sizeof(scratch)) return -1;\n"
                        "    if (n > scratch_used) scratch_used = n;\n  }\n")
            run.append(decl + f"    const cmsis_nn_bias_data {p}bias = {{{p}b, false}};\n"
                       f"    const cmsis_nn_per_channel_quant_params q = {{{p}mult, {p}shift}};\n"
                       f"    if (arm_convolve_wrapper_s16(&ctx, &p, &q, &in, {ptr(L['x'])}, &f, "
                       f"{p}w, &bd, &{p}bias, &out, {ptr(L['y'])}) != ARM_CMSIS_NN_SUCCESS) "
                       f"return {i + 1};\n")
        elif L["kind"] == "fc":
            decl = (f"    const cmsis_nn_fc_params p = {{{L['in_off']}, 0, {L['out_off']}, "
                    f"{{{L['act_min']}, {L['act_max']}}}}};\n"
                    f"    const cmsis_nn_dims in = {{1, 1, 1, {L['k']}}}, f = {{{L['k']}, 1, 1, {L['m']}}}, "
                    f"bd = {{1, 1, 1, {L['m']}}}, out = {{1, 1, 1, {L['m']}}};\n")
            init.append("  {\n" + decl +
                        "    n = arm_fully_connected_s8_get_buffer_size(&f);\n"
                        f"    if (n > (int32_t)sizeof({p}sums)) return -1;\n"
                        f"    if (n > 0) {{\n      arm_vector_sum_s8({p}sums, {L['k']}, {L['m']}, {p}w, "
                        f"{L['in_off']}, 0, {p}b);\n      fc_sum_bytes += n;\n    }}\n  }}\n")
            run.append(decl + f"    const cmsis_nn_quant_params q = {{{p}mult, {p}shift, "
                       f"{1 if L['per_channel'] else 0}}};\n"
                       f"    const cmsis_nn_context fctx = {{{p}sums, sizeof({p}sums)}};\n"
                       f"    if (arm_fully_connected_wrapper_s8(&fctx, &p, &q, &in, {ptr(L['x'])}, &f, "
                       f"{p}w, &bd, {p}b, &out, {ptr(L['y'])}) != ARM_CMSIS_NN_SUCCESS) return {i + 1};\n")
        elif L["kind"] in ("maxpool", "avgpool"):
            xs, ys = tensors[L["x"]]["shape"], tensors[L["y"]]["shape"]
            requant = L["kind"] == "avgpool" and (L["in_scale"] != L["out_scale"] or L["in_zp"] != L["out_zp"])
            lo, hi = (LO, HI) if requant else (L["act_min"], L["act_max"])
            decl = (f"    const cmsis_nn_pool_params p = {{{{{L['stride'][1]}, {L['stride'][0]}}}, "
                    f"{{{L['pad'][1]}, {L['pad'][0]}}}, {{{lo}, {hi}}}}};\n"
                    f"    const cmsis_nn_dims in = {dims(xs)}, f = {{1, {L['kh']}, {L['kw']}, 1}}, "
                    f"out = {dims(ys)};\n")
            if L["kind"] == "maxpool" and S16:
                raise SystemExit(f"cmsis_net: node '{L['name']}': MaxPool is not in the s16 harness")
            bits = "16" if S16 else "8"
            if L["kind"] == "maxpool":
                run.append(decl + f"    if (arm_max_pool_s8(&ctx, &p, &in, {ptr(L['x'])}, &f, &out, "
                           f"{ptr(L['y'])}) != ARM_CMSIS_NN_SUCCESS) return {i + 1};\n")
            else:
                init.append(f"  n = arm_avgpool_s{bits}_get_buffer_size({ys[2]}, {ys[3]});\n"
                            "  if (n > (int32_t)sizeof(scratch)) return -1;\n"
                            "  if (n > scratch_used) scratch_used = n;\n")
                run.append(decl + f"    if (arm_avgpool_s{bits}(&ctx, &p, &in, {ptr(L['x'])}, &f, &out, "
                           f"{ptr(L['y'])}) != ARM_CMSIS_NN_SUCCESS) return {i + 1};\n")
                if requant:
                    # TFLM's QUANTIZE (int8 -> int8): y = zp_y + requantize(x - zp_x).
                    rm, rs = quantize_multiplier(L["in_scale"] / L["out_scale"])
                    run.append(f"    {ACT} *y = {ptr(L['y'])};\n"
                               f"    for (int i = 0; i < {int(np.prod(ys))}; ++i) {{\n"
                               f"      int32_t v = arm_nn_requantize(y[i] - ({L['in_zp']}), {rm}, {rs}) + ({L['out_zp']});\n"
                               f"      y[i] = ({ACT})(v < {L['act_min']} ? {L['act_min']} : v > {L['act_max']} ? {L['act_max']} : v);\n"
                               "    }\n")
        elif L["kind"] == "add":
            n_el = int(np.prod(tensors[L["y"]]["shape"]))
            run.append(f"    if (arm_elementwise_add_s8({ptr(L['a'])}, {ptr(L['b'])}, {L['a_off']}, "
                       f"{L['a_mult']}, {L['a_shift']}, {L['b_off']}, {L['b_mult']}, {L['b_shift']}, 20, "
                       f"{ptr(L['y'])}, {L['out_off']}, {L['out_mult']}, {L['out_shift']}, "
                       f"{L['act_min']}, {L['act_max']}, {n_el}) != ARM_CMSIS_NN_SUCCESS) return {i + 1};\n")
        run.append("  }\n")
    run.append(f"  memcpy(output, {ptr(out_name)}, {size(out_name)});\n  return 0;\n}}\n")
    init.append("  return 0;\n}\n")
    c += init + ["\n"] + run
    weight_bytes = sum(L["w"].size + (8 if S16 else 4) * L["bias"].size + 8 * len(L["mult"])
                       for L in layers if "w" in L)
    c.append(f"\nint32_t net_scratch_bytes(void) {{ return scratch_used + fc_sum_bytes; }}\n"
             f"const int32_t net_arena_bytes = {arena};\n"
             f"const int32_t net_in_size = {size(input_name)};\n"
             f"const int32_t net_out_size = {size(out_name)};\n")
    with open(a.out, "w") as f:
        f.write("".join(c))
    if a.meta:
        with open(a.meta, "w") as f:
            json.dump(dict(arena=arena, weights=int(weight_bytes), in_size=size(input_name),
                           out_size=size(out_name), layers=[L["kind"] for L in layers],
                           output_scale=tensors[out_name]["scale"],
                           output_zp=tensors[out_name]["zp"]), f)


if __name__ == "__main__":
    main()
