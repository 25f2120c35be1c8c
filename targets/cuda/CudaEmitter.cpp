//===- CudaEmitter.cpp - NAME.cu, NAME.h and the weights of a CUDA model ---===//
//
// The schedule is the C++ emitter's EmitC lowering in its device form
// (onnxc-lower-to-emitc device-runtime=onnxc_rt::cuda): one static function
// enqueueing the kernels on a stream, with the device copy of the weights
// and the device arena as parameters. Around it this emitter writes the
// entry points of a session (kernels/cuda/session.cuh): create (allocate,
// upload the weights, capture the schedule as a CUDA Graph), run (copy in,
// replay, copy out; host or device pointers), enqueue (the caller's device
// buffers and stream), destroy, and the error message.
//
//===----------------------------------------------------------------------===//
#include "CudaTarget.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Lowering/KernelCall.h"
#include "onnxc/Lowering/CppText.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace onnxc::cuda {
namespace {

/// Status codes of kernels/cuda/session.cuh, as the header names them.
constexpr int kStatusNoDevice = 20, kStatusCudaError = 21, kStatusNotCreated = 22;
/// Bounded dims a session holds the sizes of (session.cuh's kMaxBoundedDims).
constexpr size_t kMaxBoundedDims = 8;

std::string cType(Type t) { return cppTypeName(t); }

/// "int64_t batch, " (the bounded dims' sizes, in their order; "" for none).
std::string dimParams(const ModelInterface &m) {
  std::string s;
  for (const DimBound &d : m.boundedDims)
    s += "int64_t " + d.cname + ", ";
  return s;
}

/// "batch, " (the bounded dims' names, as dimParams declares them).
std::string dimNames(const ModelInterface &m) {
  std::string s;
  for (const DimBound &d : m.boundedDims)
    s += d.cname + ", ";
  return s;
}

/// "const float* input, float* output_0" (the tensors, in graph order).
std::string tensorParams(const ModelInterface &m) {
  std::string s;
  for (const TensorInterface &t : m.inputs)
    s += "const " + cType(t.elementType) + "* " + t.cname + ", ";
  for (const TensorInterface &t : m.outputs)
    s += cType(t.elementType) + "* " + t.cname + ", ";
  return s;
}

/// `hostSteps`: whether the schedule has host steps (ops on strings).
std::string header(const ModelInterface &m, const std::string &version, bool hostSteps) {
  const std::string &n = m.name;
  std::string s = headerOpening(m, version);
  llvm::raw_string_ostream os(s);
  os << "\n/* Device memory a session allocates for the planned intermediate\n"
     << "   tensors (besides the weights and the inputs and outputs). */\n"
     << "#define " << n << "_DEVICE_ARENA_SIZE " << m.arenaBytes << "\n"
     << interfaceDefines(m, version)
     << "/* Status codes (0: success); " << n << "_error() says more. */\n"
     << "#define " << n << "_STATUS_NO_DEVICE " << kStatusNoDevice
     << " /* no usable GPU or driver */\n"
     << "#define " << n << "_STATUS_CUDA_ERROR " << kStatusCudaError << "\n"
     << "#define " << n << "_STATUS_NOT_CREATED " << kStatusNotCreated << "\n\n"
     << boundedDimsDefines(m, n + "_run (after the session)")
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* One model instance on one GPU: its device memory, stream and CUDA\n"
     << "   Graph. The caller owns the storage; one per concurrent caller. */\n"
     << "typedef struct " << n << "_session { void* opaque_[64]; } " << n << "_session;\n\n"
     << "/* Allocates the device memory on GPU `device`, uploads the weights and\n"
     << "   captures the model's kernels as a CUDA Graph. Returns 0 or a status;\n"
     << "   on failure nothing stays allocated. */\n"
     << "int " << n << "_create(" << n << "_session* session, int device);\n\n"
     << "/* Runs the model and waits for it. Inputs and outputs are dense row-major\n"
     << "   tensors in host or device memory:\n";
  for (const auto *list : {&m.inputs, &m.outputs})
    for (const TensorInterface &t : *list) {
      os << " *   " << (list == &m.inputs ? "in  " : "out ") << t.cname << ": "
         << cType(t.elementType) << shapeText(t) << "  (ONNX " << cCommentLiteral(t.name)
         << ")\n";
      if (list == &m.outputs)
        os << dataSizedNote(m, t);
    }
  os << compositesNote(m);
  auto isString = [](const TensorInterface &t) { return isa<onnx::StringType>(t.elementType); };
  if (hostSteps || llvm::any_of(m.inputs, isString) || llvm::any_of(m.outputs, isString))
    os << " * Strings are host data, their ops steps of the run on the host: an input's\n"
       << " * characters stay in host memory (with _enqueue too), and output strings\n"
       << " * point into the session's host memory or read-only data, valid until its\n"
       << " * next run. Returns ONNXC_STATUS_STRING_SPACE when the strings the model\n"
       << " * makes need more than the session holds for them.\n";
  if (!m.boundedDims.empty())
    os << " * A run at other sizes than the last run's captures the graph again.\n";
  os << " */\n"
     << "int " << n << "_run(" << n << "_session* session, " << dimParams(m) << tensorParams(m);
  s.resize(s.size() - 2);
  const std::string dimsArray = m.boundedDims.empty() ? "" : "const int64_t* dims, ";
  os << ");\n\n"
     << "/* The same, with inputs and outputs as arrays of pointers in graph order"
     << (m.boundedDims.empty() ? "" : "\n   (and the bounded dims' sizes as an array, in their order)")
     << ". */\n"
     << "int " << n << "_run_v(" << n << "_session* session, " << dimsArray
     << "const void* const* inputs," << (dimsArray.empty() ? " " : "\n    ")
     << "void* const* outputs);\n\n"
     << "/* Enqueues the model on `stream` (a cudaStream_t; null: the default\n"
     << "   stream) with inputs and outputs in device memory, without waiting and\n"
     << "   without the graph. */\n"
     << "int " << n << "_enqueue(" << n << "_session* session, " << dimParams(m)
     << tensorParams(m) << "void* stream);\n\n"
     << "/* Frees the session's device memory, stream and graph. */\n"
     << "void " << n << "_destroy(" << n << "_session* session);\n\n"
     << "/* What the last failure of a call on `session` was. */\n"
     << "const char* " << n << "_error(const " << n << "_session* session);\n\n"
     << "#ifdef __cplusplus\n} /* extern \"C\" */\n\n"
     << "namespace " << n << " {\n\n"
     << "/// Device memory a session holds for the planned tensors.\n"
     << "constexpr size_t kArenaSize = " << m.arenaBytes << ";\n\n"
     << tensorDescriptions(m)
     << "\n/// A session on one GPU, created by the constructor; check status().\n"
     << "class Model {\n public:\n"
     << "  explicit Model(int device = 0) : status_(" << n << "_create(&session_, device)) {}\n"
     << "  ~Model() { " << n << "_destroy(&session_); }\n"
     << "  Model(const Model&) = delete;\n  Model& operator=(const Model&) = delete;\n"
     << "  int status() const { return status_; }\n"
     << "  const char* error() const { return " << n << "_error(&session_); }\n"
     << "  int run(" << dimParams(m) << tensorParams(m);
  s.resize(s.size() - 2);
  os << ") {\n    return " << n << "_run(&session_, " << dimNames(m);
  for (const auto *list : {&m.inputs, &m.outputs})
    for (const TensorInterface &t : *list)
      os << t.cname << ", ";
  s.resize(s.size() - 2);
  os << ");\n  }\n\n private:\n  " << n << "_session session_;\n  int status_;\n};\n\n"
     << "} // namespace " << n << "\n#endif /* __cplusplus */\n\n#endif\n";
  return s;
}

/// The entry points, after the schedule in NAME.cu.
/// `regimes`: bounded dims' schedules (one a regime: NAME_schedule, NAME_schedule1...).
std::string sessionCode(const ModelInterface &m, int64_t weightBytes, int64_t hostBytes,
                        int64_t regimes) {
  const std::string &n = m.name;
  const size_t nIn = m.inputs.size(), nOut = m.outputs.size(), nIo = nIn + nOut;
  const bool bounded = !m.boundedDims.empty();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "\nextern \"C\" const uint8_t " << n << "_weights[];\n\n"
     << "namespace {\n"
     << "using onnxc_rt::cuda::Session;\n\n"
     << "int " << n << "_schedule_io(const int64_t* dims, void* const* io, void* host,\n"
     << "    const void* weights, void* arena, onnxc_rt::cuda::Stream* stream) {\n";
  // The schedule's arguments after the sizes; bounded dims: one schedule a
  // regime (NAME_scheduleK, K = NAME_regime(dims)), each taking the sizes.
  std::string args, sizes;
  for (size_t i = 0; i < nIo; ++i) {
    const TensorInterface &t = i < nIn ? m.inputs[i] : m.outputs[i - nIn];
    args += "static_cast<" + std::string(i < nIn ? "const " : "") + cType(t.elementType) +
            "*>(io[" + std::to_string(i) + "]), ";
  }
  args += "host, weights, arena, stream);\n";
  for (size_t i = 0; i < m.boundedDims.size(); ++i)
    sizes += "dims[" + std::to_string(i) + "], ";
  if (m.boundedDims.empty()) {
    os << "  (void)dims;\n  return " << n << "_schedule(" << args << "}\n\n";
  } else {
    os << "  switch (" << n << "_regime(dims)) {\n";
    for (int64_t k = 1; k < regimes; ++k)
      os << "  case " << k << ":\n    return " << n << "_schedule" << k << "(" << sizes << args;
    os << "  default:\n    return " << n << "_schedule(" << sizes << args << "  }\n}\n\n";
    // Each input's and output's bytes at the sizes `dims`.
    os << "void " << n << "_io_bytes_at(const int64_t* dims, size_t* bytes) {\n";
    for (size_t i = 0; i < m.boundedDims.size(); ++i)
      os << "  const int64_t " << m.boundedDims[i].cname << " = dims[" << i << "];\n";
    for (const DimBound &d : m.boundedDims)
      os << "  (void)" << d.cname << ";\n";
    for (size_t i = 0; i < nIo; ++i) {
      const TensorInterface &t = i < nIn ? m.inputs[i] : m.outputs[i - nIn];
      os << "  bytes[" << i << "] = ";
      if (!t.sized()) {
        os << t.bytes;
      } else {
        os << "size_t(" << elementByteSize(t.elementType) << ")";
        for (size_t d = 0; d < t.shape.size(); ++d)
          os << " * size_t(" << (t.dimTexts[d].empty() ? std::to_string(t.shape[d]) : t.dimTexts[d])
             << ")";
      }
      os << ";\n";
    }
    os << "}\n\nconst char* const " << n << "_dim_names[] = {";
    for (size_t i = 0; i < m.boundedDims.size(); ++i)
      os << (i ? ", " : "") << cStringLiteral(m.boundedDims[i].name);
    os << "};\nconst int64_t " << n << "_dim_min[] = {";
    for (size_t i = 0; i < m.boundedDims.size(); ++i)
      os << (i ? ", " : "") << m.boundedDims[i].lo;
    os << "};\nconst int64_t " << n << "_dim_max[] = {";
    for (size_t i = 0; i < m.boundedDims.size(); ++i)
      os << (i ? ", " : "") << m.boundedDims[i].hi;
    os << "};\n\n";
  }
  os << "const size_t " << n << "_io_bytes[] = {";
  for (size_t i = 0; i < nIo; ++i)
    os << (i ? ", " : "") << (i < nIn ? m.inputs[i] : m.outputs[i - nIn]).bytes;
  if (nIo == 0)
    os << "0";
  os << "};\n\n"
     << "const onnxc_rt::cuda::ModelInfo " << n << "_info = {" << n << "_weights, "
     << weightBytes << ", " << m.arenaBytes << ", " << nIn << ", " << nOut << ", " << n
     << "_io_bytes, " << n << "_schedule_io, " << hostBytes << ", " << m.boundedDims.size();
  if (m.boundedDims.empty())
    os << ", nullptr, nullptr, nullptr, nullptr};\n\n";
  else
    os << ", " << n << "_dim_names, " << n << "_dim_min, " << n << "_dim_max, " << n
       << "_io_bytes_at};\n\n";
  os
     << "Session* session_of(" << n << "_session* s) { return reinterpret_cast<Session*>(s); }\n"
     << "} // namespace\n\n"
     << "static_assert(sizeof(Session) <= sizeof(" << n << "_session) &&\n"
     << "              alignof(Session) <= alignof(" << n << "_session),\n"
     << "              \"" << n << "_session cannot hold an onnxc_rt::cuda::Session\");\n\n"
     << "extern \"C\" int " << n << "_create(" << n << "_session* session, int device) {\n"
     << "  void* io[" << std::max<size_t>(nIo, 1) << "];\n"
     << "  return onnxc_rt::cuda::session_create(session_of(session), " << n
     << "_info, device, io);\n}\n\n"
     << "extern \"C\" int " << n << "_run_v(" << n << "_session* session, "
     << (bounded ? "const int64_t* dims, " : "")
     << "const void* const* inputs,\n    void* const* outputs) {\n"
     << "  void* io[" << std::max<size_t>(nIo, 1) << "];\n"
     << "  size_t bytes[" << std::max<size_t>(nIo, 1) << "];\n"
     << "  return onnxc_rt::cuda::session_run(session_of(session), " << n << "_info, "
     << (bounded ? "dims" : "nullptr") << ", inputs, outputs, io,\n      bytes);\n}\n\n"
     << "extern \"C\" int " << n << "_run(" << n << "_session* session, " << dimParams(m)
     << tensorParams(m);
  s.resize(s.size() - 2);
  os << ") {\n";
  if (bounded)
    os << "  const int64_t dims[] = {" << dimNames(m) << "};\n";
  os << "  const void* const inputs[] = {";
  for (const TensorInterface &t : m.inputs)
    os << t.cname << ", ";
  os << "nullptr};\n  void* const outputs[] = {";
  for (const TensorInterface &t : m.outputs)
    os << t.cname << ", ";
  os << "nullptr};\n  return " << n << "_run_v(session, " << (bounded ? "dims, " : "")
     << "inputs, outputs);\n}\n\n"
     << "extern \"C\" int " << n << "_enqueue(" << n << "_session* session, " << dimParams(m)
     << tensorParams(m) << "void* stream) {\n";
  if (bounded)
    os << "  const int64_t dims[] = {" << dimNames(m) << "};\n";
  os << "  void* const io[] = {";
  for (const TensorInterface &t : m.inputs)
    os << "const_cast<" << cType(t.elementType) << "*>(" << t.cname << "), ";
  for (const TensorInterface &t : m.outputs)
    os << t.cname << ", ";
  os << "nullptr};\n  return onnxc_rt::cuda::session_enqueue(session_of(session), " << n
     << "_info, " << (bounded ? "dims" : "nullptr") << ", io,\n      static_cast<onnxc_rt::cuda::Stream*>(stream));\n}\n\n"
     << "extern \"C\" void " << n << "_destroy(" << n << "_session* session) {\n"
     << "  onnxc_rt::cuda::session_destroy(session_of(session));\n}\n\n"
     << "extern \"C\" const char* " << n << "_error(const " << n << "_session* session) {\n"
     << "  return reinterpret_cast<const Session*>(session)->message;\n}\n";
  return s;
}

/// Every op's calls are CUDA launchers, but for ops on strings (host steps,
/// runsOnHost): the provider guarantees it for the ops it lowers; this
/// catches any other path (an alias op's own calls).
LogicalResult checkAllOnDevice(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!isa<onnx::ONNXDialect>(op->getDialect()) || runsOnHost(op))
      return;
    auto lowering = lowerToKernelCalls(op);
    if (failed(lowering)) {
      ok = false;
      return;
    }
    for (const KernelCall &c : lowering->calls)
      if (!StringRef(c.callee).starts_with("onnxc_rt::cuda::")) {
        op->emitError() << op->getName().stripDialect() << ": its kernel '" << c.callee
                        << "' runs on the host: not supported on target cuda";
        ok = false;
        break;
      }
  });
  return success(ok);
}

class CudaModelEmitter final : public ModelEmitter {
public:
  StringRef name() const override { return "cuda (EmitC, device form)"; }

  FailureOr<EmittedModel> emit(ModuleOp planned, const ModelInterface &iface,
                               const std::string &name, const std::string &banner,
                               const std::string &version) const override {
    if (failed(checkAllOnDevice(planned)))
      return failure();
    if (iface.boundedDims.size() > kMaxBoundedDims)
      return planned.emitError() << "--target cuda takes at most "
                                 << kMaxBoundedDims << " bounded dims (--dim "
                                    "NAME=LO..HI), not "
                                 << iface.boundedDims.size();
    PassManager lower(planned->getContext(), ModuleOp::getOperationName());
    if (failed(applyPassManagerCLOptions(lower)))
      return failure();
    LowerToEmitCPassOptions options;
    options.deviceRuntime = "onnxc_rt::cuda";
    lower.addPass(createLowerToEmitCPass(options));
    if (failed(lower.run(planned)))
      return failure();
    OpBuilder b(planned.getContext());
    b.setInsertionPointToStart(planned.getBody());
    b.create<emitc::IncludeOp>(planned.getLoc(), "onnxc_rt/kernels/cuda/session.cuh", false);
    auto source = emitSource(planned, banner);
    if (failed(source))
      return failure();
    int64_t weightBytes = 0, hostBytes = 0, regimes = 1;
    if (auto r = planned->getAttrOfType<IntegerAttr>("onnxc.regimes"))
      regimes = r.getInt();
    if (auto w = planned->getAttrOfType<IntegerAttr>("onnxc.weight_bytes"))
      weightBytes = w.getInt();
    if (auto h = planned->getAttrOfType<IntegerAttr>("onnxc.host_bytes"))
      hostBytes = h.getInt();
    EmittedModel m;
    m.source = *source + sessionCode(iface, weightBytes, hostBytes, regimes);
    m.sourceExtension = ".cu";
    m.header = header(iface, version, hostBytes > 0);
    m.weights = weightsBlob(planned);
    m.weightsAsm = weightsAssembly(name, name + ".weights.bin");
    return m;
  }

  RunProgramCalls runProgramCalls(const ModelInterface &m) const override {
    const std::string &n = m.name;
    RunProgramCalls calls;
    calls.hostArena = false;
    calls.setup = "  static " + n + "_session session;\n"
                  "  if (int rc = " + n + "_create(&session, 0)) {\n"
                  "    std::printf(\"onnxc-run: %s%s\\n\", rc == " + n +
                  "_STATUS_NO_DEVICE ? \"no device: \" : \"\", " + n + "_error(&session));\n"
                  "    return rc == " + n + "_STATUS_NO_DEVICE ? 77 : 3;\n  }\n";
    calls.run = n + "_run_v(&session, " + (m.boundedDims.empty() ? "" : "dims, ") +
                "inputs, outputs)";
    calls.error = n + "_error(&session)";
    calls.teardown = "  " + n + "_destroy(&session);\n";
    return calls;
  }
};

} // namespace

const ModelEmitter &cudaModelEmitter() {
  static const CudaModelEmitter emitter;
  return emitter;
}

} // namespace onnxc::cuda
