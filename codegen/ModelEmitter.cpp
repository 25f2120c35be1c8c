//===- ModelEmitter.cpp - header, source and weights of a model ------------===//
#include "onnxc/Codegen/ModelEmitter.h"

#include "onnxc/Codegen/BoundedDims.h"

#include "onnxc/Lowering/KernelCall.h"
#include "onnxc/Lowering/CppText.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <cstdio>
#include <set>

using namespace mlir;

namespace onnxc {

/// A float as a C literal that reads back as the same float.
static std::string floatLiteral(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9gf", double(v));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s.insert(s.size() - 1, ".0");
  return s;
}

static std::string cIdentifier(const std::string &name, std::set<std::string> &used) {
  std::string id;
  for (char c : name)
    id.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id = "t_" + id;
  if (isCppReservedWord(id) || id == "arena_" || id.rfind("__", 0) == 0)
    id += "_";
  std::string unique = id;
  for (int i = 2; used.count(unique); ++i)
    unique = id + "_" + std::to_string(i);
  used.insert(unique);
  return unique;
}

std::vector<int64_t> TensorInterface::shapeAt(const std::vector<int64_t> &dims) const {
  std::vector<int64_t> s = shape;
  for (size_t d = 0; d < s.size() && d < dimPolys.size(); ++d)
    if (!dimPolys[d].empty())
      s[d] = evalDimPoly(DimPoly(dimPolys[d].begin(), dimPolys[d].end()), dims);
  return s;
}

ModelInterface describeModel(func::FuncOp func) {
  ModelInterface m;
  m.name = func.getSymName().str();
  std::set<std::string> used = {"arena", "threads", "dims"};
  // Bounded dims: their range over every regime's function.
  if (auto dims = func->getAttrOfType<ArrayAttr>(kBoundedDimsAttr)) {
    for (auto d : dims.getAsRange<DictionaryAttr>()) {
      DimBound b;
      b.name = d.getAs<StringAttr>("name").str();
      b.cname = cIdentifier(b.name, used);
      b.lo = d.getAs<IntegerAttr>("min").getInt();
      b.hi = d.getAs<IntegerAttr>("max").getInt();
      m.boundedDims.push_back(b);
    }
    if (auto module = func->getParentOfType<ModuleOp>())
      for (auto f : module.getOps<func::FuncOp>())
        if (auto fd = f->getAttrOfType<ArrayAttr>(kBoundedDimsAttr))
          for (auto [i, d] : llvm::enumerate(fd.getAsRange<DictionaryAttr>())) {
            m.boundedDims[i].lo = std::min(m.boundedDims[i].lo, d.getAs<IntegerAttr>("min").getInt());
            m.boundedDims[i].hi = std::max(m.boundedDims[i].hi, d.getAs<IntegerAttr>("max").getInt());
          }
  }
  std::vector<BoundedDim> cdims;
  for (const DimBound &d : m.boundedDims)
    cdims.push_back({d.cname, d.lo, d.hi});
  auto sizes = [&](TensorInterface &t, ArrayAttr polys) {
    if (!polys)
      return;
    for (Attribute p : polys) {
      auto a = cast<DenseI64ArrayAttr>(p);
      t.dimPolys.emplace_back(a.asArrayRef().begin(), a.asArrayRef().end());
      t.dimTexts.push_back(a.empty() ? "" : dimPolyText(DimPoly(a.asArrayRef().begin(),
                                                                a.asArrayRef().end()), cdims));
    }
  };
  auto describe = [&](Type t, Attribute nameAttr, const std::string &dflt) {
    auto st = cast<ShapedType>(t);
    TensorInterface ti;
    auto n = dyn_cast_or_null<StringAttr>(nameAttr);
    ti.name = n ? n.str() : dflt;
    ti.cname = cIdentifier(ti.name, used);
    ti.elementType = st.getElementType();
    ti.shape.assign(st.getShape().begin(), st.getShape().end());
    ti.bytes = st.getNumElements() * elementByteSize(st.getElementType());
    return ti;
  };
  // onnx.scale / onnx.zero_point: onnxc-fold-qdq's record of a quantized
  // input's or output's parameters.
  auto quantization = [](TensorInterface &t, Attribute scale, Attribute zeroPoint) {
    auto s = dyn_cast_or_null<FloatAttr>(scale);
    auto z = dyn_cast_or_null<IntegerAttr>(zeroPoint);
    if (!s || !z)
      return;
    t.quantized = true;
    t.scale = float(s.getValueAsDouble());
    t.zeroPoint = z.getInt();
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    m.inputs.push_back(describe(func.getArgumentTypes()[i],
                                func.getArgAttr(i, "onnx.name"),
                                "input_" + std::to_string(i)));
    sizes(m.inputs.back(), func.getArgAttrOfType<ArrayAttr>(i, kDimPolysAttr));
    quantization(m.inputs.back(), func.getArgAttr(i, "onnx.scale"),
                 func.getArgAttr(i, "onnx.zero_point"));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    m.outputs.push_back(describe(func.getResultTypes()[i],
                                 func.getResultAttr(i, "onnx.name"),
                                 "output_" + std::to_string(i)));
    sizes(m.outputs.back(), func.getResultAttrOfType<ArrayAttr>(i, kDimPolysAttr));
    quantization(m.outputs.back(), func.getResultAttr(i, "onnx.scale"),
                 func.getResultAttr(i, "onnx.zero_point"));
  }
  if (auto a = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr))
    m.arenaBytes = a.getInt();
  int64_t next = 0;
  if (auto ins = func->getAttrOfType<ArrayAttr>("onnx.composite_inputs"))
    for (auto d : ins.getAsRange<DictionaryAttr>())
      m.compositeInputs.push_back({d.getAs<StringAttr>("name").str(),
                                   d.getAs<StringAttr>("kind").str(), 0,
                                   d.getAs<IntegerAttr>("count").getInt(),
                                   d.getAs<BoolAttr>("present").getValue()});
  if (auto outs = func->getAttrOfType<ArrayAttr>("onnx.outputs")) {
    for (auto d : outs.getAsRange<DictionaryAttr>()) {
      GraphOutput g;
      g.name = d.getAs<StringAttr>("name").str();
      g.kind = d.getAs<StringAttr>("kind").str();
      g.count = d.getAs<IntegerAttr>("count").getInt();
      g.present = d.getAs<BoolAttr>("present").getValue();
      g.firstResult = next;
      next += g.count;
      m.graphOutputs.push_back(g);
      if (auto e = d.getAs<IntegerAttr>("extent")) {
        TensorInterface &t = m.outputs[g.firstResult];
        t.extentOutput = e.getInt();
        t.dynamicDim = d.getAs<IntegerAttr>("extent_dim").getInt();
      }
    }
  } else {
    for (const TensorInterface &t : m.outputs)
      m.graphOutputs.push_back({t.name, "tensor", next++, 1, true});
  }
  return m;
}

std::string headerOpening(const ModelInterface &m, const std::string &version) {
  std::string s;
  llvm::raw_string_ostream os(s);
  std::string guard = "ONNXC_MODEL_" + m.name + "_H";
  for (char &c : guard)
    c = std::toupper(static_cast<unsigned char>(c));
  const Provenance &p = m.provenance;
  os << "// Generated by onnxc " << version << ". Do not edit.\n"
     << "// Model '" << m.name << "': " << m.inputs.size() << " input(s), "
     << m.outputs.size() << " output(s), arena " << m.arenaBytes << " bytes.\n"
     << "// Model file sha256 " << p.modelSha256 << "; producer "
     << cCommentLiteral(p.producer) << "; opsets " << cCommentLiteral(p.opsetImports) << ".\n"
     << "// Compiled with " << cCommentLiteral(p.options) << ".\n"
     << "// Check: onnxc MODEL.onnx --verify-header " << m.name << ".h\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n"
     << "#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n";
  bool halves = false;
  for (const auto *list : {&m.inputs, &m.outputs})
    for (const auto &t : *list)
      halves |= t.elementType.isF16() || t.elementType.isBF16();
  if (halves) // 16-bit floats: runtime-lite's types in C++, their bits in C
    os << "#ifdef __cplusplus\n#include \"onnxc_rt/types.h\"\n#endif\n";
  bool strings = false;
  for (const auto *list : {&m.inputs, &m.outputs})
    for (const auto &t : *list)
      strings |= isa<onnx::StringType>(t.elementType);
  if (strings) // onnxc_string, for C and C++
    os << "#include \"onnxc_rt/string.h\"\n";
  return s;
}

std::string interfaceDefines(const ModelInterface &m, const std::string &version) {
  std::string s;
  llvm::raw_string_ostream os(s);
  const Provenance &p = m.provenance;
  os << "#define " << m.name << "_NUM_INPUTS " << m.inputs.size() << "\n"
     << "#define " << m.name << "_NUM_OUTPUTS " << m.outputs.size() << "\n";
  // Element counts by position, for C callers (C++: NAME::Input0::size).
  for (bool output : {false, true})
    for (auto [i, t] : llvm::enumerate(output ? m.outputs : m.inputs)) {
      int64_t n = 1;
      for (int64_t d : t.shape)
        n *= d;
      os << "#define " << m.name << (output ? "_OUTPUT" : "_INPUT") << i << "_SIZE " << n
         << "\n";
    }
  os << "/* Provenance: the model file's sha256, the compiler and its options. */\n"
     << "#define " << m.name << "_MODEL_SHA256 " << cStringLiteral(p.modelSha256) << "\n"
     << "#define " << m.name << "_ONNXC_VERSION " << cStringLiteral(version) << "\n"
     << "#define " << m.name << "_ONNXC_OPTIONS " << cStringLiteral(p.options) << "\n";
  // Quantized inputs and outputs: real value = (q - ZERO_POINT) x SCALE.
  for (const auto *list : {&m.inputs, &m.outputs})
    for (const auto &t : *list)
      if (t.quantized)
        os << "#define " << m.name << "_" << t.cname << "_SCALE " << floatLiteral(t.scale) << "\n"
           << "#define " << m.name << "_" << t.cname << "_ZERO_POINT " << t.zeroPoint << "\n";
  return s;
}

std::string tensorDescriptions(const ModelInterface &m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto describe = [&](bool output, size_t i, const TensorInterface &t) {
    os << "struct " << (output ? "Output" : "Input") << i << " {\n"
       << "  using type = " << cppTypeName(t.elementType) << ";\n"
       << "  static constexpr const char* name = " << cStringLiteral(t.name) << ";\n"
       << "  static constexpr int onnx_type = " << onnxFromElementType(t.elementType)
       << ";\n"
       << "  static constexpr int rank = " << t.shape.size() << ";\n"
       << "  static constexpr int64_t shape[" << std::max<size_t>(1, t.shape.size())
       << "] = {";
    for (size_t d = 0; d < t.shape.size(); ++d)
      os << (d ? ", " : "") << t.shape[d];
    if (t.shape.empty())
      os << "1";
    int64_t n = 1;
    for (int64_t d : t.shape)
      n *= d;
    os << "};\n  static constexpr size_t size = " << n << ";\n";
    if (t.sized()) { // bounded dims: shape and size hold the bounds
      os << "  /// Elements at the given sizes of the bounded dims (shape: at most).\n"
         << "  static constexpr size_t size_for(";
      for (size_t i = 0; i < m.boundedDims.size(); ++i)
        os << (i ? ", " : "") << "int64_t " << m.boundedDims[i].cname;
      os << ") {\n";
      for (const DimBound &d : m.boundedDims)
        os << "    (void)" << d.cname << ";\n";
      os << "    return size_t(1)";
      for (size_t d = 0; d < t.shape.size(); ++d)
        os << " * size_t(" << (t.dimTexts[d].empty() ? std::to_string(t.shape[d]) : t.dimTexts[d])
           << ")";
      os << ";\n  }\n";
    }
    if (t.quantized)
      os << "  /// Quantized: real value = (q - zero_point) x scale.\n"
         << "  static constexpr float scale = " << floatLiteral(t.scale) << ";\n"
         << "  static constexpr int zero_point = " << t.zeroPoint << ";\n";
    if (output)
      os << "  /// The dim whose size the run decides (-1: none; shape holds its bound)\n"
         << "  /// and the output that receives that size.\n"
         << "  static constexpr int dynamic_dim = " << t.dynamicDim << ";\n"
         << "  static constexpr int extent_output = " << t.extentOutput << ";\n";
    os << "};\n";
  };
  for (size_t i = 0; i < m.inputs.size(); ++i)
    describe(false, i, m.inputs[i]);
  for (size_t i = 0; i < m.outputs.size(); ++i)
    describe(true, i, m.outputs[i]);
  return s;
}

std::string dataSizedNote(const ModelInterface &m, const TensorInterface &t) {
  if (t.dynamicDim < 0)
    return "";
  return " *       dim " + std::to_string(t.dynamicDim) + " depends on the data: at most " +
         std::to_string(t.shape[t.dynamicDim]) + "; the run writes its size to *" +
         m.outputs[t.extentOutput].cname +
         "\n *       and the tensor densely at the start of the buffer (the rest cleared)\n";
}

std::string compositesNote(const ModelInterface &m) {
  std::string s;
  auto note = [&](const char *side, const GraphOutput &g) {
    if (g.kind == "tensor")
      return;
    const bool sequence = g.kind != "optional";
    std::string what = g.kind == "sequence" ? "sequence" : g.kind == "optional" ? "optional"
                                                                              : "optional sequence";
    if (!g.present)
      what += ", absent (no parameter)";
    else if (sequence && g.count == 0)
      what += ", empty (no parameter)";
    else if (sequence)
      what += " of " + std::to_string(g.count) + (g.count == 1 ? " tensor" : " tensors");
    else
      what += ", present";
    s += std::string(" *   ONNX ") + side + " " + cCommentLiteral(g.name) + ": " + what + "\n";
  };
  for (const GraphOutput &g : m.compositeInputs)
    note("input", g);
  for (const GraphOutput &g : m.graphOutputs)
    note("output", g);
  return s;
}

std::string boundedDimsDefines(const ModelInterface &m, const std::string &runName) {
  if (m.boundedDims.empty())
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Bounded dims (onnxc --dim NAME=LO..HI): " << runName << "\n"
     << "   takes their sizes first, in this order; a size outside its bounds returns\n"
     << "   ONNXC_STATUS_DIM_RANGE and writes nothing. The arena and the *_SIZE counts\n"
     << "   are for the upper bounds. */\n";
  for (const DimBound &d : m.boundedDims)
    os << "#define " << m.name << "_DIM_" << d.cname << "_MIN " << d.lo << "\n"
       << "#define " << m.name << "_DIM_" << d.cname << "_MAX " << d.hi << "  /* ONNX dim "
       << cCommentLiteral(d.name) << " */\n";
  os << "#ifndef ONNXC_STATUS_DIM_RANGE\n#define ONNXC_STATUS_DIM_RANGE 2\n#endif\n\n";
  return s;
}

std::string shapeText(const TensorInterface &t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(t.shape[i]);
  s += "]";
  if (!t.sized())
    return s;
  std::string d = "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    d += (i ? " x " : "") + (t.dimTexts[i].empty() ? std::to_string(t.shape[i]) : t.dimTexts[i]);
  return d + "] (at most " + s + ")";
}

std::string emitHeader(const ModelInterface &m, const std::string &version) {
  std::string s = headerOpening(m, version);
  llvm::raw_string_ostream os(s);
  bool halves = false, strings = false;
  for (const auto *list : {&m.inputs, &m.outputs})
    for (const auto &t : *list) {
      halves |= t.elementType.isF16() || t.elementType.isBF16();
      strings |= isa<onnx::StringType>(t.elementType);
    }
  os << "\n"
     << "/* Bytes of scratch memory " << m.name << "_run needs; the caller owns it\n"
     << "   (64-byte aligned). The call uses no other memory but the stack. */\n"
     << "#define " << m.name << "_ARENA_SIZE " << m.arenaBytes << "\n"
     << "#define " << m.name << "_ARENA_ALIGNMENT 64\n"
     << interfaceDefines(m, version) << "\n";
  // Bounded dims: the sizes each call takes first, and their bounds.
  os << boundedDimsDefines(m, m.name + "_run");
  std::string dimParams, dimArgs;
  for (const DimBound &d : m.boundedDims) {
    dimParams += "int64_t " + d.cname + ", ";
    dimArgs += d.cname + ", ";
  }
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  // In C, float16/bfloat16 buffers are their uint16_t bits.
  auto cType = [](mlir::Type t) {
    std::string n = cppTypeName(t);
    return n.rfind("onnxc_rt::", 0) == 0 ? "ONNXC_HALF(" + n + ")" : n;
  };
  if (halves)
    os << "#ifdef __cplusplus\n#define ONNXC_HALF(T) T\n#else\n#define ONNXC_HALF(T) uint16_t\n"
       << "#endif\n\n";
  os << "/* Runs the model. Inputs and outputs are dense row-major tensors:\n";
  for (const auto &t : m.inputs) {
    os << " *   in  " << t.cname << ": " << cppTypeName(t.elementType) << shapeText(t)
       << "  (ONNX " << cCommentLiteral(t.name) << ")\n";
    if (t.quantized)
      os << " *       quantized: real = (q - " << m.name << "_" << t.cname << "_ZERO_POINT) x "
         << m.name << "_" << t.cname << "_SCALE\n";
  }
  for (const auto &t : m.outputs) {
    os << " *   out " << t.cname << ": " << cppTypeName(t.elementType) << shapeText(t)
       << "  (ONNX " << cCommentLiteral(t.name) << ")\n";
    if (t.quantized)
      os << " *       quantized: real = (q - " << m.name << "_" << t.cname << "_ZERO_POINT) x "
         << m.name << "_" << t.cname << "_SCALE\n";
    os << dataSizedNote(m, t);
  }
  os << compositesNote(m);
  if (strings)
    os << " * Output strings point into the inputs' strings, the arena (valid until its\n"
       << " * next use) or read-only data.\n"
       << " * Reentrant: all state lives in `arena`. Returns 0, or ONNXC_STATUS_STRING_SPACE\n"
       << " * when the strings it makes need more than the arena holds for them. */\n";
  else if (!m.boundedDims.empty())
    os << " * Reentrant: all state lives in `arena`. Returns 0, or ONNXC_STATUS_DIM_RANGE. */\n";
  else
    os << " * Reentrant: all state lives in `arena`. Returns 0. */\n";
  os << "int " << m.name << "_run(" << dimParams;
  for (const auto &t : m.inputs)
    os << "const " << cType(t.elementType) << "* " << t.cname << ", ";
  for (const auto &t : m.outputs)
    os << cType(t.elementType) << "* " << t.cname << ", ";
  os << "void* arena);\n\n"
     << "/* The same on several threads: `threads` is an onnxc_rt::TaskRunner*\n"
     << "   (onnxc_rt/threads.h: onnxc_rt::ThreadPool, created once by the caller;\n"
     << "   one per concurrent caller, like the arena) or null for the calling\n"
     << "   thread alone. The parallel kernels split their work into "
     << m.name << "_THREADS\n"
     << "   tasks (onnxc --threads); the results do not depend on the pool. */\n"
     << "#define " << m.name << "_THREADS " << m.threads << "\n"
     << "int " << m.name << "_run_on(" << dimParams;
  for (const auto &t : m.inputs)
    os << "const " << cType(t.elementType) << "* " << t.cname << ", ";
  for (const auto &t : m.outputs)
    os << cType(t.elementType) << "* " << t.cname << ", ";
  os << "void* arena, void* threads);\n\n"
     << "/* The same, with inputs and outputs as arrays of pointers in graph order"
     << (m.boundedDims.empty() ? "" : "\n   (and the bounded dims' sizes as an array, in their order)")
     << ". */\n"
     << "int " << m.name << "_run_v(" << (m.boundedDims.empty() ? "" : "const int64_t* dims, ")
     << "const void* const* inputs, void* const* outputs, void* arena);\n"
     << "int " << m.name << "_run_v_on(" << (m.boundedDims.empty() ? "" : "const int64_t* dims, ")
     << "const void* const* inputs, void* const* outputs, void* arena,\n"
     << "    void* threads);\n\n";
  if (m.profileNodes >= 0)
    os << "/* Built with onnxc --profile: the run calls " << m.name << "_profile_mark(K) as\n"
       << "   node K begins (" << m.name << "_profile_nodes[K]: \"Conv 'conv1'\", in the\n"
       << "   order they run) and " << m.name << "_profile_mark(" << m.name
       << "_PROFILE_NODES) after\n   the last. The program defines it, e.g. reading a cycle "
       << "counter. */\n"
       << "#define " << m.name << "_PROFILE_NODES " << m.profileNodes << "\n"
       << "extern const char* const " << m.name << "_profile_nodes[];\n"
       << "void " << m.name << "_profile_mark(int node);\n\n";
  os << "#ifdef __cplusplus\n} /* extern \"C\" */\n\n"
     << "namespace onnxc_rt { class TaskRunner; }\n\n";

  // C++: compile-time descriptions and a thin wrapper owning its arena.
  os << "namespace " << m.name << " {\n\n"
     << "constexpr size_t kArenaSize = " << m.arenaBytes << ";\n\n"
     << tensorDescriptions(m);
  os << "\n/// Holds the arena; one object per concurrent caller.\n"
     << "class Model {\n public:\n  int run(" << dimParams;
  bool first = true;
  for (const auto &t : m.inputs) {
    os << (first ? "" : ", ") << "const " << cppTypeName(t.elementType) << "* " << t.cname;
    first = false;
  }
  for (const auto &t : m.outputs) {
    os << (first ? "" : ", ") << cppTypeName(t.elementType) << "* " << t.cname;
    first = false;
  }
  os << (first ? "" : ", ") << "onnxc_rt::TaskRunner* threads = nullptr) {\n    return "
     << m.name << "_run_on(" << dimArgs;
  for (const auto &t : m.inputs)
    os << t.cname << ", ";
  for (const auto &t : m.outputs)
    os << t.cname << ", ";
  os << "arena_, threads);\n  }\n\n private:\n"
     << "  alignas(64) unsigned char arena_[kArenaSize > 0 ? kArenaSize : 1];\n"
     << "};\n\n} // namespace " << m.name << "\n#endif /* __cplusplus */\n\n"
     << "#endif\n";
  return s;
}

FailureOr<std::string> emitSource(ModuleOp module, const std::string &banner) {
  std::string s = banner;
  llvm::raw_string_ostream os(s);
  if (failed(emitc::translateToCpp(module, os, /*declareVariablesAtTop=*/false)))
    return failure();
  return s;
}

std::vector<char> weightsBlob(ModuleOp module) {
  std::vector<char> blob;
  auto weights = module->getAttrOfType<ArrayAttr>("onnxc.weights");
  auto offsets = module->getAttrOfType<DenseI64ArrayAttr>("onnxc.weight_offsets");
  auto total = module->getAttrOfType<IntegerAttr>("onnxc.weight_bytes");
  if (!weights || !offsets || !total)
    return blob;
  blob.assign(total.getInt(), 0);
  for (auto [w, off] : llvm::zip(weights, offsets.asArrayRef())) {
    std::vector<char> bytes = rawBytesOf(cast<ElementsAttr>(w));
    std::memcpy(blob.data() + off, bytes.data(), bytes.size());
  }
  return blob;
}

std::string weightsAssembly(const std::string &name, const std::string &blobFile) {
  return "/* Generated by onnxc: the weights of '" + name + "' in read-only data. */\n"
         "  .section .rodata." + name + "_weights,\"a\"\n"
         "  .balign 64\n"
         "  .global " + name + "_weights\n" +
         name + "_weights:\n"
         "  .incbin \"" + blobFile + "\"\n"
         "#if defined(__linux__) && defined(__ELF__)\n"
         "  .section .note.GNU-stack,\"\",%progbits\n"
         "#endif\n";
}

//===-- The C++ emitter ----------------------------------------------------===//

ModelEmitter::~ModelEmitter() = default;

RunProgramCalls ModelEmitter::runProgramCalls(const ModelInterface &m) const {
  RunProgramCalls calls;
  // (With bounded dims the program holds the sizes in `dims`.)
  calls.run = m.name + "_run_v(" + (m.boundedDims.empty() ? "" : "dims, ") +
              "inputs, outputs, arena)";
  return calls;
}

namespace {

class CppModelEmitter final : public ModelEmitter {
public:
  llvm::StringRef name() const override { return "c++ (EmitC)"; }

  FailureOr<EmittedModel> emit(ModuleOp planned, const ModelInterface &iface,
                               const std::string &name, const std::string &banner,
                               const std::string &version) const override {
    PassManager lower(planned->getContext(), ModuleOp::getOperationName());
    if (failed(applyPassManagerCLOptions(lower)))
      return failure();
    lower.addPass(createLowerToEmitCPass());
    if (failed(lower.run(planned)))
      return failure();
    auto source = emitSource(planned, banner);
    if (failed(source))
      return failure();
    EmittedModel m;
    m.source = std::move(*source);
    m.sourceExtension = ".cpp";
    ModelInterface described = iface;
    if (auto n = planned->getAttrOfType<IntegerAttr>(kProfileNodesAttr))
      described.profileNodes = n.getInt();
    m.header = emitHeader(described, version);
    m.weights = weightsBlob(planned);
    m.weightsAsm = weightsAssembly(name, name + ".weights.bin");
    return m;
  }
};

} // namespace

const ModelEmitter &cppModelEmitter() {
  static const CppModelEmitter emitter;
  return emitter;
}

} // namespace onnxc
