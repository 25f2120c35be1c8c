//===- QdqRewrite.cpp - float ModelProto -> calibration / QDQ ModelProto ---===//
//
// See Quantize.h. The layout is ONNX Runtime's static QDQ layout, which is
// what onnxc-fold-qdq folds into integer ops: every quantized activation
// gets QuantizeLinear -> DequantizeLinear right after its producer; a Relu
// or Clip right after a Conv/Gemm/MatMul/Add shares that op's Q/DQ (the
// clamp is folded); ops that only move elements keep their input's
// parameters; weights are int8 per output channel, biases int32 at
// x_scale * w_scale[c].
//
//===----------------------------------------------------------------------===//
#include "onnxc/Quantize/Quantize.h"

#include "onnx/onnx_pb.h"
#include "onnxc_rt/kernels/reference/norm.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace onnxc {
namespace {

using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

/// Ops with an integer form (QuantOps.td) or that only move elements.
const std::set<std::string> kWeighted = {"Conv", "Gemm", "MatMul"};
const std::set<std::string> kMoving = {"MaxPool",   "Flatten", "Reshape",  "Transpose",
                                       "Squeeze",   "Unsqueeze", "Identity", "GlobalMaxPool",
                                       "Slice"};
const std::set<std::string> kInteger = {
    "Conv",    "Gemm",    "MatMul",   "Add",     "Mul",       "AveragePool", "GlobalAveragePool",
    "Concat",  "Relu",    "Clip",     "Sigmoid", "Tanh",      "HardSigmoid", "HardSwish",
    "LeakyRelu", "Elu",   "Softplus", "Gelu",    "Erf"};
/// Ops whose float output follows from a float input (where the rewrite
/// can tell activations from shape arithmetic without types).
const std::set<std::string> kFloatPreserving = {
    "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "AveragePool", "GlobalAveragePool",
    "MaxPool", "GlobalMaxPool", "Concat", "Relu", "Clip", "Sigmoid", "Tanh", "HardSigmoid",
    "HardSwish", "LeakyRelu", "Elu", "Softplus", "Gelu", "Erf", "Flatten", "Reshape",
    "Transpose", "Squeeze", "Unsqueeze", "Identity", "Slice", "Softmax", "LogSoftmax",
    "BatchNormalization", "LayerNormalization", "Pad", "Resize", "ReduceMean", "Sqrt", "Pow",
    "Exp", "Log", "Neg", "Abs", "Dropout"};

bool loadModel(const std::string &path, ModelProto &model, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "'";
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  google::protobuf::io::ArrayInputStream raw(bytes.data(), (int)bytes.size());
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (bytes.empty() || !model.ParseFromCodedStream(&coded) || !model.has_graph()) {
    error = "'" + path + "' is not a valid ONNX model";
    return false;
  }
  return true;
}

bool saveModel(const ModelProto &model, const std::string &path, std::string &error) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !model.SerializeToOstream(&out)) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

/// The float32 data of an initializer (raw_data or float_data), or false.
bool floatData(const TensorProto &t, std::vector<float> &out) {
  if (t.data_type() != TensorProto::FLOAT || t.data_location() == TensorProto::EXTERNAL)
    return false;
  if (t.has_raw_data()) {
    out.resize(t.raw_data().size() / sizeof(float));
    std::memcpy(out.data(), t.raw_data().data(), out.size() * sizeof(float));
  } else {
    out.assign(t.float_data().begin(), t.float_data().end());
  }
  return true;
}

/// Makes each of `tensors` (float32) a graph output, unless it is one.
void addFloatOutputs(GraphProto &g, const std::vector<std::string> &tensors) {
  std::set<std::string> present;
  for (const auto &o : g.output())
    present.insert(o.name());
  for (const std::string &t : tensors)
    if (present.insert(t).second) {
      auto *o = g.add_output();
      o->set_name(t);
      o->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
    }
}

/// The bytes of an initializer's elements.
int64_t tensorBytes(const TensorProto &t) {
  int64_t n = 1;
  for (int64_t d : t.dims())
    n *= d;
  switch (t.data_type()) {
  case TensorProto::INT8:
  case TensorProto::UINT8:
  case TensorProto::BOOL:
    return n;
  case TensorProto::INT16:
  case TensorProto::UINT16:
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    return 2 * n;
  case TensorProto::DOUBLE:
  case TensorProto::INT64:
  case TensorProto::UINT64:
    return 8 * n;
  default:
    return 4 * n;
  }
}

/// How reports name a node: 'NAME' (Op), or Op -> 'OUTPUT' for a nameless one.
std::string nodeLabel(const NodeProto &n) {
  if (!n.name().empty())
    return "'" + n.name() + "' (" + n.op_type() + ")";
  return n.op_type() + " -> '" + (n.output_size() ? n.output(0) : std::string()) + "'";
}

/// What the rewrite knows of the graph: producers, consumers, initializers
/// and which tensors are float activations.
struct GraphFacts {
  std::map<std::string, const NodeProto *> producer;
  std::map<std::string, std::vector<const NodeProto *>> consumers;
  std::map<std::string, const TensorProto *> inits;
  std::set<std::string> outputs, floats;
  std::vector<std::string> quantized; // in graph order

  std::string problem; // why the model cannot be quantized, or ""

  /// The initializer tensor `name` is, directly or through Identity nodes
  /// (exporters share equal initializers that way), or null.
  const TensorProto *initializerOf(const std::string &name) const {
    std::string n = name;
    for (int hops = 0; hops < 64; ++hops) {
      if (auto i = inits.find(n); i != inits.end())
        return i->second;
      auto p = producer.find(n);
      if (p == producer.end() || p->second->op_type() != "Identity" || p->second->input_size() != 1)
        return nullptr;
      n = p->second->input(0);
    }
    return nullptr;
  }

  /// The one node of `op` reading `t` (with `other` as its other input
  /// when given), or null.
  const NodeProto *soleConsumer(const std::string &t, const std::string &op,
                                const std::string &other = "") const {
    auto cs = consumers.find(t);
    if (cs == consumers.end())
      return nullptr;
    for (const NodeProto *c : cs->second)
      if (c->op_type() == op && c->output_size() == 1 &&
          (other.empty() || (c->input_size() == 2 && c->input(1) == other)))
        return c;
    return nullptr;
  }

  /// The Add that gives MatMul `mm` its bias, or null: mm's weights a 2-D
  /// float initializer (K, N), its output read only by an Add whose other
  /// input is a float initializer of N values along the last axis (dims
  /// 1, ..., 1, N). Exporters write a Linear of a 3-D input so. The pair
  /// is one layer: its bias int32, its output the Add's, and the MatMul's
  /// own output never rounded to int8.
  const NodeProto *biasAddOf(const NodeProto &mm) const {
    if (mm.op_type() != "MatMul" || mm.input_size() != 2 || mm.output_size() != 1 ||
        outputs.count(mm.output(0)))
      return nullptr;
    const TensorProto *w = initializerOf(mm.input(1));
    auto cs = consumers.find(mm.output(0));
    if (!w || w->dims_size() != 2 || w->data_type() != TensorProto::FLOAT ||
        cs == consumers.end() || cs->second.size() != 1)
      return nullptr;
    const NodeProto *add = cs->second[0];
    if (add->op_type() != "Add" || add->input_size() != 2 || add->output_size() != 1)
      return nullptr;
    const std::string &other = add->input(0) == mm.output(0) ? add->input(1) : add->input(0);
    const TensorProto *b = initializerOf(other);
    if (!b || b->data_type() != TensorProto::FLOAT || b->dims_size() < 1 ||
        b->dims(b->dims_size() - 1) != w->dims(1))
      return nullptr;
    for (int d = 0; d + 1 < b->dims_size(); ++d)
      if (b->dims(d) != 1)
        return nullptr;
    return add;
  }

  /// The tensors inside layer normalizations written out as ONNX ops (as
  /// exporters write LayerNorm before opset 17): mean, x - mean, its
  /// square, variance, + eps, sqrt, the quotient and its scaled form, up to
  /// the final + beta. They stay float: their ranges differ by orders of
  /// magnitude, int8 there costs accuracy, and the compiler fuses the float
  /// pattern into one layer-norm kernel.
  std::set<std::string> normalizationInterior() const {
    std::set<std::string> interior;
    for (const auto &[name, node] : producer) {
      if (node->op_type() != "ReduceMean" || node->input_size() < 1)
        continue;
      const std::string &x = node->input(0), &mean = name;
      const NodeProto *sub = nullptr;
      if (auto cs = consumers.find(mean); cs != consumers.end())
        for (const NodeProto *c : cs->second)
          if (c->op_type() == "Sub" && c->input_size() == 2 && c->input(0) == x &&
              c->input(1) == mean)
            sub = c;
      if (!sub)
        continue;
      const std::string &d = sub->output(0);
      const NodeProto *pow = soleConsumer(d, "Pow");
      const NodeProto *var = pow ? soleConsumer(pow->output(0), "ReduceMean") : nullptr;
      const NodeProto *eps = var ? soleConsumer(var->output(0), "Add") : nullptr;
      const NodeProto *sqrt = eps ? soleConsumer(eps->output(0), "Sqrt") : nullptr;
      const NodeProto *div = nullptr;
      if (sqrt)
        if (auto cs = consumers.find(d); cs != consumers.end())
          for (const NodeProto *c : cs->second)
            if (c->op_type() == "Div" && c->input_size() == 2 && c->input(0) == d &&
                c->input(1) == sqrt->output(0))
              div = c;
      if (!div)
        continue;
      for (const NodeProto *n : {node, sub, pow, var, eps, sqrt})
        interior.insert(n->output(0));
      // Its input too, when only the normalization reads it and an Add
      // makes it (a transformer's residual add): quantizing it would only
      // round the value the normalization divides by its deviation, which
      // magnifies that rounding.
      if (auto cs = consumers.find(x); cs != consumers.end() && !outputs.count(x)) {
        auto p = producer.find(x);
        const bool onlyNormalization = std::all_of(
            cs->second.begin(), cs->second.end(),
            [&](const NodeProto *c) { return c == node || c == sub; });
        if (onlyNormalization && p != producer.end() && p->second->op_type() == "Add")
          interior.insert(x);
      }
      // x / std, then * gamma and + beta (constants), the last one's output
      // the normalization's.
      const NodeProto *last = div;
      for (const char *op : {"Mul", "Add"}) {
        auto cs = consumers.find(last->output(0));
        if (cs == consumers.end() || cs->second.size() != 1 || cs->second[0]->op_type() != op ||
            cs->second[0]->input_size() != 2 || !initializerOf(cs->second[0]->input(1)))
          break;
        interior.insert(last->output(0));
        last = cs->second[0];
      }
    }
    return interior;
  }

  explicit GraphFacts(const GraphProto &g) {
    for (const TensorProto &t : g.initializer()) {
      inits[t.name()] = &t;
      if (t.data_location() == TensorProto::EXTERNAL && problem.empty())
        problem = "initializer '" + t.name() + "' has external data (not supported with "
                  "--quantize yet)";
    }
    for (const auto &o : g.output())
      outputs.insert(o.name());
    for (const auto &in : g.input())
      if (!inits.count(in.name()) && in.type().has_tensor_type() &&
          in.type().tensor_type().elem_type() == TensorProto::FLOAT)
        floats.insert(in.name());
    for (const NodeProto &n : g.node()) {
      for (const auto &a : n.attribute())
        if (a.has_g() || a.graphs_size())
          if (problem.empty())
            problem = "node '" + n.name() + "' (" + n.op_type() +
                      ") has a subgraph (control flow is not supported with --quantize yet)";
      for (const std::string &i : n.input())
        if (!i.empty())
          consumers[i].push_back(&n);
      for (const std::string &o : n.output())
        if (!o.empty())
          producer[o] = &n;
      // Any input: Add(bias, x) reads its activation second.
      if (kFloatPreserving.count(n.op_type()) && n.output_size() > 0 &&
          std::any_of(n.input().begin(), n.input().end(),
                      [&](const std::string &i) { return floats.count(i) > 0; }))
        floats.insert(n.output(0));
    }
    if (floats.empty() && problem.empty())
      problem = "the model has no float32 input to quantize";
    // Quantized: float tensors read or made by an op with an integer form,
    // but not an op's output that only a fused Relu/Clip reads. A MatMul
    // or Gemm of two activations (attention's scores and mix) has none:
    // the int8 kernels take constant weights, and rounding its operands
    // to int8 would only add error.
    auto integerOp = [&](const NodeProto *n) {
      if (kWeighted.count(n->op_type()) && n->op_type() != "Conv" &&
          (n->input_size() < 2 || !initializerOf(n->input(1))))
        return false;
      return kInteger.count(n->op_type()) > 0 || kMoving.count(n->op_type()) > 0;
    };
    std::vector<std::string> order;
    for (const auto &in : g.input())
      if (floats.count(in.name()))
        order.push_back(in.name());
    for (const NodeProto &n : g.node())
      if (n.output_size() > 0 && floats.count(n.output(0)))
        order.push_back(n.output(0));
    const std::set<std::string> interior = normalizationInterior();
    for (const std::string &t : order) {
      if (interior.count(t))
        continue;
      auto p = producer.find(t);
      bool touches = p != producer.end() && integerOp(p->second);
      for (const NodeProto *c : consumers[t])
        touches = touches || integerOp(c);
      if (!touches)
        continue;
      const auto &cs = consumers[t];
      bool fused = p != producer.end() &&
                   (kWeighted.count(p->second->op_type()) || p->second->op_type() == "Add") &&
                   cs.size() == 1 && (cs[0]->op_type() == "Relu" || cs[0]->op_type() == "Clip") &&
                   !outputs.count(t);
      fused = fused || (p != producer.end() && biasAddOf(*p->second));
      if (!fused)
        quantized.push_back(t);
    }
  }
};

/// An activation's quantization: int8 or int16 (the 16x8 scheme).
struct ActivationParams {
  float scale = 1;
  int32_t zeroPoint = 0;
  int bits = 8;
};

/// Asymmetric int8 parameters covering [lo, hi] and 0 (ONNX Runtime's
/// MinMax); int16 ones symmetric (zero point 0: TFLite's 16x8 scheme and
/// ONNX Runtime's int16 QDQ) covering max(|lo|, |hi|).
ActivationParams activationParams(TensorRange r, int bits) {
  const double lo = std::min<double>(r.lo, 0.0), hi = std::max<double>(r.hi, 0.0);
  if (bits == 16) {
    const double m = std::max(-lo, hi);
    return {m > 0 ? float(m / 32767.0) : 1.0f, 0, 16};
  }
  float scale = hi > lo ? float((hi - lo) / 255.0) : 1.0f;
  double zp = std::nearbyint(-128.0 - lo / double(scale));
  return {scale, int32_t(std::clamp(zp, -128.0, 127.0)), 8};
}

TensorProto scalarTensor(const std::string &name, float v) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(TensorProto::FLOAT);
  t.add_float_data(v);
  return t;
}

/// A tensor of `type` holding `v`'s bytes (raw_data).
template <typename T>
TensorProto rawTensor(const std::string &name, int type, const std::vector<int64_t> &dims,
                      const std::vector<T> &v) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims)
    t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T)));
  return t;
}

TensorProto int8Tensor(const std::string &name, const std::vector<int64_t> &dims,
                       const std::vector<int8_t> &v) {
  return rawTensor(name, TensorProto::INT8, dims, v);
}

/// Appends `op_type`(x, scale, zero_point) -> out (a QuantizeLinear or a
/// DequantizeLinear), with `axis` where the scale is per channel.
void addQdqNode(GraphProto &g, const std::string &opType, const std::string &name,
                const std::string &x, const std::string &scale, const std::string &zp,
                const std::string &out, int axis = -1, const std::string &domain = "") {
  NodeProto *n = g.add_node();
  n->set_op_type(opType);
  n->set_name(name);
  if (!domain.empty())
    n->set_domain(domain);
  n->add_input(x);
  n->add_input(scale);
  n->add_input(zp);
  n->add_output(out);
  if (axis >= 0) {
    auto *a = n->add_attribute();
    a->set_name("axis");
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(axis);
  }
}

TensorProto floatTensor(const std::string &name, const std::vector<int64_t> &dims,
                        const std::vector<float> &v) {
  return rawTensor(name, TensorProto::FLOAT, dims, v);
}

/// Folds each inference BatchNormalization that follows a Conv or a Gemm
/// with float initializer weights (its only reader) into it, with
/// runtime-lite's batch_norm_fold as onnxc-fold-batchnorm does: the
/// per-channel scale must be in the weights before they are quantized per
/// channel. A Gemm's channels are op(B)'s columns; its C must be absent or
/// one value per column (or one for all) with beta = 1.
void foldBatchNorms(ModelProto &model) {
  GraphProto *g = model.mutable_graph();
  std::map<std::string, int> initIndex, readers;
  for (int i = 0; i < g->initializer_size(); ++i)
    initIndex[g->initializer(i).name()] = i;
  for (const NodeProto &n : g->node())
    for (const std::string &in : n.input())
      ++readers[in];
  std::map<std::string, NodeProto *> producer;
  for (NodeProto &n : *g->mutable_node())
    if (n.output_size())
      producer[n.output(0)] = &n;
  auto floats = [&](const std::string &name, std::vector<float> &out) {
    auto it = initIndex.find(name);
    return it != initIndex.end() && floatData(g->initializer(it->second), out);
  };
  auto attrOr = [](const NodeProto &n, const char *name, float dflt) {
    for (const auto &a : n.attribute())
      if (a.name() == name)
        return a.type() == onnx::AttributeProto::INT ? float(a.i()) : a.f();
    return dflt;
  };
  std::set<const NodeProto *> folded;
  for (NodeProto &bn : *g->mutable_node()) {
    if (bn.op_type() != "BatchNormalization" || bn.input_size() != 5 || bn.output_size() != 1)
      continue;
    auto p = producer.find(bn.input(0));
    if (p == producer.end() || readers[bn.input(0)] != 1)
      continue;
    NodeProto &layer = *p->second;
    const bool gemm = layer.op_type() == "Gemm";
    if (layer.op_type() != "Conv" && !gemm)
      continue;
    std::vector<float> w, b, scale, beta, mean, var;
    if (layer.input_size() < 2 || !floats(layer.input(1), w) || !floats(bn.input(1), scale) ||
        !floats(bn.input(2), beta) || !floats(bn.input(3), mean) || !floats(bn.input(4), var))
      continue;
    const int64_t m = int64_t(scale.size());
    if (m == 0 || int64_t(w.size()) % m || beta.size() != scale.size() ||
        mean.size() != scale.size() || var.size() != scale.size())
      continue;
    const TensorProto &wt = g->initializer(initIndex[layer.input(1)]);
    std::vector<int64_t> dims(wt.dims().begin(), wt.dims().end());
    // The weights as outer x m x rest: a Conv's (and a transB Gemm's) rows
    // are its channels, a plain Gemm's K x M B holds them in its columns.
    int64_t outer = 1;
    if (gemm) {
      if (dims.size() != 2 || dims[attrOr(layer, "transB", 0) != 0 ? 0 : 1] != m)
        continue;
      if (attrOr(layer, "transB", 0) == 0)
        outer = dims[0];
    } else if (dims.empty() || dims[0] != m) {
      continue;
    }
    const bool hasBias = layer.input_size() > 2 && !layer.input(2).empty();
    if (hasBias && !floats(layer.input(2), b))
      continue;
    if (hasBias && gemm) {
      const TensorProto &ct = g->initializer(initIndex[layer.input(2)]);
      if (attrOr(layer, "beta", 1.0f) != 1.0f || (ct.dims_size() == 2 && ct.dims(0) != 1))
        continue;
      if (b.size() == 1)
        b.assign(m, b[0]);
    }
    if (!hasBias)
      b.assign(m, 0.0f);
    if (int64_t(b.size()) != m)
      continue;
    float eps = 1e-5f;
    for (const auto &a : bn.attribute())
      if (a.name() == "epsilon")
        eps = a.f();
    onnxc_rt::ref::batch_norm_fold<float>(w.data(), b.data(), outer, m,
                                          int64_t(w.size()) / (outer * m), scale.data(),
                                          beta.data(), mean.data(), var.data(), eps);
    const std::string wName = bn.name() + "__folded_w", bName = bn.name() + "__folded_b";
    *g->add_initializer() = floatTensor(wName, dims, w);
    *g->add_initializer() = floatTensor(bName, {m}, b);
    initIndex[wName] = g->initializer_size() - 2;
    initIndex[bName] = g->initializer_size() - 1;
    layer.set_input(1, wName);
    if (layer.input_size() > 2)
      layer.set_input(2, bName);
    else
      layer.add_input(bName);
    if (gemm) // the new C counts once (a beta given without C had no effect)
      for (auto &a : *layer.mutable_attribute())
        if (a.name() == "beta")
          a.set_f(1.0f);
    layer.set_output(0, bn.output(0));
    folded.insert(&bn);
  }
  if (folded.empty())
    return;
  google::protobuf::RepeatedPtrField<NodeProto> kept;
  for (const NodeProto &n : g->node())
    if (!folded.count(&n))
      *kept.Add() = n;
  g->mutable_node()->Swap(&kept);
}

/// Each node's and activation's width, 8 or 16 bits (QdqOptions).
struct Widths {
  std::map<std::string, int> tensorBits;
  std::map<const NodeProto *, int> nodeBits;
};

/// Each node computes in int8 or int16 (all with --quantize
/// int16x8, the layers --quantize-int16 names, a Relu/Clip folded into
/// its layer as that layer, an element-moving op as its input), and its
/// outputs have its width. A node that reads an activation of the other
/// width reads it requantized (a DequantizeLinear -> QuantizeLinear pair:
/// onnxc-fold-qdq's QRescale).
std::optional<Widths> planWidths(const GraphProto &src, const GraphFacts &facts,
                                 const std::set<std::string> &quantized,
                                 const QdqOptions &options, std::string &error) {
  Widths w;
  const int defaultBits = options.int16All ? 16 : 8;
  std::map<std::string, int> &tensorBits = w.tensorBits;
  std::map<const NodeProto *, int> &nodeBits = w.nodeBits;
  // A listed node computes in int16, and so does what makes its input
  // (back through element-moving ops and a folded Relu/Clip to the layer
  // or op that rounds it): else the input would carry int8's rounding into
  // the int16 layer.
  std::set<const NodeProto *> wide;
  for (const std::string &name : options.int16Layers) {
    const NodeProto *found = nullptr;
    for (const NodeProto &n : src.node())
      if (n.name() == name || (n.output_size() && n.output(0) == name))
        found = &n;
    if (!found) {
      error = "--quantize-int16: the model has no node named '" + name +
              "' (nor one whose first output is)";
      return std::nullopt;
    }
    wide.insert(found);
    for (const std::string &in : found->input()) {
      std::string t = in;
      for (int hop = 0; hop < 16; ++hop) {
        auto p = facts.producer.find(t);
        if (p == facts.producer.end() || !p->second->input_size())
          break;
        const NodeProto *producer = p->second;
        if (!quantized.count(t) && hop == 0 && !facts.floats.count(t) &&
            !kFloatPreserving.count(producer->op_type()))
          break; // not an activation (a weight's DequantizeLinear, shape arithmetic)
        wide.insert(producer);
        const std::string &next = producer->input(0);
        if (!kMoving.count(producer->op_type()) && quantized.count(next))
          break; // the op that rounds it
        t = next;
      }
    }
  }
  for (const auto &in : src.input()) { // int16 where an int16 node reads it
    tensorBits[in.name()] = defaultBits;
    if (auto cs = facts.consumers.find(in.name()); cs != facts.consumers.end())
      for (const NodeProto *c : cs->second)
        if (wide.count(c))
          tensorBits[in.name()] = 16;
  }
  for (const NodeProto &n : src.node()) {
    int bits = defaultBits;
    const std::string in0 = n.input_size() ? n.input(0) : "";
    if (wide.count(&n))
      bits = 16;
    else if (tensorBits.count(in0) &&
             (kMoving.count(n.op_type()) || (!quantized.count(in0) && facts.producer.count(in0))))
      bits = tensorBits[in0];
    nodeBits[&n] = bits;
    for (const std::string &o : n.output())
      tensorBits[o] = bits;
  }
  return w;
}

} // namespace

bool planCalibration(const std::string &modelPath, CalibrationPlan &plan, std::string &error) {
  ModelProto model;
  if (!loadModel(modelPath, model, error))
    return false;
  foldBatchNorms(model);
  GraphFacts facts(model.graph());
  if (!facts.problem.empty()) {
    error = facts.problem;
    return false;
  }
  plan.tensors = facts.quantized;
  for (const auto &in : model.graph().input()) {
    if (facts.inits.count(in.name()))
      continue;
    InputSpec spec;
    spec.name = in.name();
    const auto &tt = in.type().tensor_type();
    spec.isFloat = in.type().has_tensor_type() && tt.elem_type() == TensorProto::FLOAT;
    for (const auto &d : tt.shape().dim())
      spec.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    plan.inputs.push_back(std::move(spec));
  }
  addFloatOutputs(*model.mutable_graph(), plan.tensors);
  plan.model = model.SerializeAsString();
  return true;
}

bool writeQdqModel(const std::string &modelPath, const std::map<std::string, TensorRange> &ranges,
                   const QdqOptions &options, const std::string &outPath,
                   QuantizeSummary &summary, std::string &error) {
  ModelProto model;
  if (!loadModel(modelPath, model, error))
    return false;
  for (const TensorProto &t : model.graph().initializer())
    summary.weightBytesBefore += tensorBytes(t);
  foldBatchNorms(model);
  const GraphProto src = model.graph();
  GraphFacts facts(src);
  if (!facts.problem.empty()) {
    error = facts.problem;
    return false;
  }
  std::set<std::string> quantized(facts.quantized.begin(), facts.quantized.end());
  std::optional<Widths> widths = planWidths(src, facts, quantized, options, error);
  if (!widths)
    return false;
  std::map<std::string, int> &tensorBits = widths->tensorBits;
  std::map<const NodeProto *, int> &nodeBits = widths->nodeBits;
  bool int16Used = false;
  for (const std::string &t : facts.quantized)
    int16Used = int16Used || tensorBits[t] == 16;
  // --io int8 / int16: each quantized graph input and output must be of
  // that width.
  for (const auto *list : {&src.input(), &src.output()})
    for (const auto &v : *list)
      if (options.ioInteger && quantized.count(v.name()) &&
          tensorBits[v.name()] != options.ioBits) {
        error = "--io int" + std::to_string(options.ioBits) + ": '" + v.name() + "' is int" +
                std::to_string(tensorBits[v.name()]) + " in this quantization (--io int" +
                std::to_string(tensorBits[v.name()]) + " for it)";
        return false;
      }
  // Parameters: calibrated, except that element-moving ops keep their
  // input's (so their Q/DQ fold away).
  std::map<std::string, ActivationParams> params;
  for (const std::string &t : facts.quantized) {
    auto p = facts.producer.find(t);
    if (p != facts.producer.end() && kMoving.count(p->second->op_type()) &&
        params.count(p->second->input(0)) &&
        params[p->second->input(0)].bits == tensorBits[t]) {
      params[t] = params[p->second->input(0)];
      continue;
    }
    auto r = ranges.find(t);
    if (r == ranges.end()) {
      error = "no calibration range for tensor '" + t + "'";
      return false;
    }
    params[t] = activationParams(r->second, tensorBits[t]);
  }
  // A model before opset 21 has no int16 QuantizeLinear: its int16 pairs
  // are ONNX Runtime's com.microsoft ones (as its own quantizer writes).
  int64_t opset = 0;
  for (const auto &op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      opset = op.version();
  const std::string int16Domain = opset >= 21 ? "" : "com.microsoft";

  GraphProto g;
  g.set_name(src.name());
  for (const auto &in : src.input())
    *g.add_input() = in;
  for (const auto &out : src.output())
    *g.add_output() = out;
  for (const auto &vi : src.value_info())
    *g.add_value_info() = vi;
  std::map<std::string, std::string> read; // tensor -> the name its consumers read
  std::set<std::string> replacedInits;

  // Q (float `from` -> int8 `q`) and DQ (`q` -> float `to`) for the
  // activation `key`; an empty `from` (an int8 graph input) or `to` (an
  // int8 graph output no node reads) leaves that half out.
  auto qdqWith = [&](const ActivationParams &p, const std::string &from, const std::string &key,
                     const std::string &q, const std::string &to, const std::string &producer) {
    *g.add_initializer() = scalarTensor(key + "__scale", p.scale);
    const std::string domain = p.bits == 16 ? int16Domain : "";
    if (p.bits == 16)
      *g.add_initializer() = rawTensor(key + "__zp", TensorProto::INT16, {},
                                       std::vector<int16_t>{int16_t(p.zeroPoint)});
    else
      *g.add_initializer() = int8Tensor(key + "__zp", {}, {int8_t(p.zeroPoint)});
    if (!from.empty())
      addQdqNode(g, "QuantizeLinear", key + "__Q", from, key + "__scale", key + "__zp", q, -1,
                 domain);
    if (!to.empty())
      addQdqNode(g, "DequantizeLinear", key + "__DQ", q, key + "__scale", key + "__zp", to, -1,
                 domain);
    ++summary.quantizedTensors;
    summary.tensors.push_back({key, producer, to.empty() ? q : to, p.scale, p.zeroPoint, p.bits});
  };
  auto qdq = [&](const std::string &from, const std::string &key, const std::string &q,
                 const std::string &to, const std::string &producer) {
    qdqWith(params[key], from, key, q, to, producer);
  };
  // An activation as a node of the other width reads it: requantized once
  // per width, from its range.
  std::map<std::pair<std::string, int>, std::string> requantized;
  auto paramsAt = [&](const std::string &t, int bits) {
    if (params[t].bits == bits)
      return params[t];
    return activationParams(ranges.at(t), bits);
  };
  auto readAt = [&](const std::string &t, const std::string &floatName, int bits) {
    if (params[t].bits == bits)
      return floatName;
    auto [it, fresh] = requantized.try_emplace({t, bits}, "");
    if (fresh) {
      const std::string key = t + "__int" + std::to_string(bits);
      qdqWith(paramsAt(t, bits), floatName, key, key + "__q", key + "__dq", "(requantized)");
      it->second = key + "__dq";
    }
    return it->second;
  };
  // An integer graph input or output (--io int8, int16): its declared type.
  auto makeInteger = [&](google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> &list,
                         const std::string &name) {
    for (auto &v : list)
      if (v.name() == name)
        v.mutable_type()->mutable_tensor_type()->set_elem_type(
            params[name].bits == 16 ? TensorProto::INT16 : TensorProto::INT8);
    const ActivationParams &p = params[name];
    summary.integerIo.push_back({name, "", name, p.scale, p.zeroPoint, p.bits});
  };
  for (const auto &in : src.input())
    if (quantized.count(in.name())) {
      if (options.ioInteger) {
        qdq("", in.name(), in.name(), in.name() + "__dq", "graph input");
        makeInteger(*g.mutable_input(), in.name());
      } else {
        qdq(in.name(), in.name(), in.name() + "__q", in.name() + "__dq", "graph input");
      }
      read[in.name()] = in.name() + "__dq";
    }

  // A bias (float, one value per output channel) as int32 at x_scale *
  // w_scale[c] and its DequantizeLinear; the name the layer reads.
  auto int32Bias = [&](const std::string &bn, const std::vector<float> &bdata, float xs,
                       const std::vector<float> &scales) {
    const int64_t channels = int64_t(bdata.size());
    TensorProto bq, bs, bz;
    bq.set_name(bn + "__q");
    bq.set_data_type(TensorProto::INT32);
    bq.add_dims(channels);
    bs.set_name(bn + "__bscale");
    bs.set_data_type(TensorProto::FLOAT);
    bs.add_dims(channels);
    bz.set_name(bn + "__bzp");
    bz.set_data_type(TensorProto::INT32);
    bz.add_dims(channels);
    for (int64_t c = 0; c < channels; ++c) {
      const float scale = xs * scales[c];
      double v = std::nearbyint(double(bdata[c]) / double(scale));
      bq.add_int32_data(int32_t(std::clamp(v, -2147483647.0, 2147483647.0)));
      bs.add_float_data(scale);
      bz.add_int32_data(0);
    }
    *g.add_initializer() = bq;
    *g.add_initializer() = bs;
    *g.add_initializer() = bz;
    addQdqNode(g, "DequantizeLinear", bn + "__DQ", bn + "__q", bn + "__bscale", bn + "__bzp",
               bn + "__dq", 0);
    replacedInits.insert(bn);
    return bn + "__dq";
  };
  // Bias Adds to come (their output -> the MatMul's x scale and w scales).
  std::map<std::string, std::pair<float, std::vector<float>>> pendingBias;

  for (const NodeProto &n : src.node()) {
    NodeProto copy = n;
    const int bits = nodeBits[&n];
    const bool integerForm = kInteger.count(n.op_type()) || kMoving.count(n.op_type());
    for (int i = 0; i < copy.input_size(); ++i)
      if (auto r = read.find(copy.input(i)); r != read.end())
        copy.set_input(i, integerForm && quantized.count(copy.input(i))
                              ? readAt(copy.input(i), r->second, bits)
                              : r->second);
    // Weights and bias of Conv, Gemm and MatMul: int8 per output channel,
    // int32 at x_scale * w_scale[c].
    bool transB = false, plainGemm = true;
    for (const auto &a : n.attribute()) {
      if (a.name() == "transB")
        transB = a.i() != 0;
      if ((a.name() == "transA" && a.i() != 0) || ((a.name() == "alpha" || a.name() == "beta") &&
                                                   a.f() != 1.0f))
        plainGemm = false;
    }
    const TensorProto *w = n.input_size() > 1 ? facts.initializerOf(n.input(1)) : nullptr;
    std::vector<float> wdata;
    const std::string out0 = n.output_size() ? n.output(0) : "";
    std::string whyFloat; // a weighted layer kept in float: why
    if (kWeighted.count(n.op_type()) && quantized.count(n.input(0))) {
      if (options.floatLayers.count(out0))
        whyFloat = "its output SQNR fell below --quantize-error-budget";
      else if (!w || !floatData(*w, wdata))
        whyFloat = "its weights are not a float32 initializer";
      else if (n.op_type() == "Gemm" && !plainGemm)
        whyFloat = "Gemm with transA, alpha or beta (no int8 form)";
      else if (n.op_type() != "Conv" && w->dims_size() != 2)
        whyFloat = "MatMul weights that are not 2-D";
      if (!whyFloat.empty())
        summary.floatOps.push_back({nodeLabel(n), whyFloat});
      // The quantized tensor after the layer: its output, or that of the
      // Relu/Clip its Q/DQ is shared with.
      // (Through a bias Add, then a Relu/Clip: two hops at most.)
      std::string after = out0;
      for (int hop = 0; hop < 2 && !quantized.count(after); ++hop) {
        auto cs = facts.consumers.find(after);
        if (cs != facts.consumers.end() && cs->second.size() == 1 &&
            cs->second[0]->output_size())
          after = cs->second[0]->output(0);
      }
      summary.layers.push_back({nodeLabel(n), out0, n.input(0),
                                quantized.count(after) ? after : "", whyFloat.empty()});
    }
    if (kWeighted.count(n.op_type()) && quantized.count(n.input(0)) && whyFloat.empty()) {
      const TensorProto &wt = *w;
      // The output-channel axis: Conv 0; Gemm 0 with transB, else 1; MatMul 1.
      const int axis = n.op_type() == "Conv" || (n.op_type() == "Gemm" && transB) ? 0 : 1;
      const int64_t channels = wt.dims(axis);
      const int64_t inner = axis == 0 ? int64_t(wdata.size()) / channels : 1;
      std::vector<float> scales(channels, 0.0f);
      for (int64_t k = 0; k < int64_t(wdata.size()); ++k) {
        int64_t c = axis == 0 ? k / inner : k % channels;
        scales[c] = std::max(scales[c], std::abs(wdata[k]));
      }
      for (float &s : scales)
        s = s > 0 ? s / 127.0f : 1e-8f;
      std::vector<int8_t> q(wdata.size());
      for (int64_t k = 0; k < int64_t(wdata.size()); ++k) {
        int64_t c = axis == 0 ? k / inner : k % channels;
        q[k] = int8_t(std::clamp(std::nearbyint(wdata[k] / scales[c]), -127.0f, 127.0f));
      }
      const std::string name = wt.name();
      if (!replacedInits.count(name)) {
        std::vector<int64_t> dims(wt.dims().begin(), wt.dims().end());
        *g.add_initializer() = int8Tensor(name + "__q", dims, q);
        TensorProto s;
        s.set_name(name + "__wscale");
        s.set_data_type(TensorProto::FLOAT);
        s.add_dims(channels);
        for (float v : scales)
          s.add_float_data(v);
        *g.add_initializer() = s;
        *g.add_initializer() = int8Tensor(name + "__wzp", {channels}, std::vector<int8_t>(channels, 0));
        addQdqNode(g, "DequantizeLinear", name + "__DQ", name + "__q", name + "__wscale",
                   name + "__wzp", name + "__dq", axis);
        replacedInits.insert(name);
        ++summary.quantizedWeights;
        summary.floatWeightBytes += int64_t(wdata.size()) * 4;
        summary.int8WeightBytes += int64_t(q.size()) + channels * 5;
      }
      copy.set_input(1, name + "__dq");
      // The bias, if a float initializer with one value per channel (named
      // by the tensor this node reads: a shared one is quantized for its
      // first reader only, the others fold their float bias).
      std::vector<float> bdata;
      const TensorProto *b = n.input_size() > 2 ? facts.initializerOf(n.input(2)) : nullptr;
      if (b && floatData(*b, bdata) && int64_t(bdata.size()) == channels &&
          !replacedInits.count(n.input(2)))
        copy.set_input(2, int32Bias(n.input(2), bdata, paramsAt(n.input(0), bits).scale, scales));
      // A MatMul's bias Add (GraphFacts::biasAddOf) gets it when it comes.
      if (const NodeProto *add = facts.biasAddOf(n))
        pendingBias[add->output(0)] = {paramsAt(n.input(0), bits).scale, scales};
    }
    // A bias Add after a quantized MatMul: its bias as the layer's int32.
    if (auto pb = pendingBias.find(out0); pb != pendingBias.end() && n.op_type() == "Add") {
      const int side = facts.initializerOf(n.input(1)) ? 1 : 0;
      std::vector<float> bdata;
      const TensorProto *b = facts.initializerOf(n.input(side));
      if (b && floatData(*b, bdata) && bdata.size() == pb->second.second.size() &&
          !replacedInits.count(n.input(side)))
        copy.set_input(side, int32Bias(n.input(side), bdata, pb->second.first, pb->second.second));
    }
    // (Shape and Size read only the shape: they fold away.)
    if (!kInteger.count(n.op_type()) && !kMoving.count(n.op_type()) && n.op_type() != "Shape" &&
        n.op_type() != "Size")
      for (const std::string &i : n.input())
        if (quantized.count(i)) {
          summary.floatOps.push_back({nodeLabel(n), "no int8 kernel for " + n.op_type()});
          break;
        }
    // Its output: Q/DQ after it (a graph output keeps its name on the DQ).
    const std::string &out = out0;
    const bool q = quantized.count(out) > 0;
    const bool isOutput = facts.outputs.count(out) > 0;
    if (q && isOutput)
      copy.set_output(0, out + "__float");
    *g.add_node() = copy;
    if (q && isOutput && options.ioInteger) {
      // The graph output is the int8 tensor; readers inside the graph get a DQ.
      const bool read_inside = facts.consumers.count(out) > 0;
      qdq(copy.output(0), out, out, read_inside ? out + "__dq" : "", nodeLabel(n));
      makeInteger(*g.mutable_output(), out);
      read[out] = out + "__dq";
    } else if (q) {
      qdq(copy.output(0), out, out + "__q", isOutput ? out : out + "__dq", nodeLabel(n));
      read[out] = isOutput ? out : out + "__dq";
    }
  }
  // Initializers: the float ones that were not replaced.
  std::set<std::string> stillRead;
  for (const NodeProto &n : g.node())
    for (const std::string &i : n.input())
      stillRead.insert(i);
  std::vector<TensorProto> added(g.initializer().begin(), g.initializer().end());
  g.clear_initializer();
  for (const auto &o : g.output())
    stillRead.insert(o.name());
  for (const auto &i : g.input()) // (initializers listed as inputs, as IR 3 had them)
    stillRead.insert(i.name());
  for (const TensorProto &t : src.initializer()) // (those BatchNorm folding replaced go)
    if (stillRead.count(t.name()))
      *g.add_initializer() = t;
  for (TensorProto &t : added)
    *g.add_initializer() = std::move(t);
  for (const TensorProto &t : g.initializer())
    summary.weightBytesAfter += tensorBytes(t);
  *model.mutable_graph() = std::move(g);
  model.set_producer_name(options.int16All ? "onnxc --quantize int16x8" : "onnxc --quantize int8");
  if (int16Used && !int16Domain.empty()) {
    bool listed = false;
    for (const auto &op : model.opset_import())
      listed = listed || op.domain() == int16Domain;
    if (!listed) {
      auto *op = model.add_opset_import();
      op->set_domain(int16Domain);
      op->set_version(1);
    }
  }
  // QuantizeLinear/DequantizeLinear with per-axis scales need opset 13.
  for (auto &op : *model.mutable_opset_import())
    if ((op.domain().empty() || op.domain() == "ai.onnx") && op.version() < 13) {
      error = "--quantize needs a model of opset 13 or later (this one is " +
              std::to_string(op.version()) + ")";
      return false;
    }
  return saveModel(model, outPath, error);
}

bool addGraphOutputs(const std::string &path, const std::vector<std::string> &tensors,
                     const std::string &outPath, std::string &error) {
  ModelProto model;
  if (!loadModel(path, model, error))
    return false;
  addFloatOutputs(*model.mutable_graph(), tensors);
  return saveModel(model, outPath, error);
}

} // namespace onnxc
