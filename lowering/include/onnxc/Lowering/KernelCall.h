//===- KernelCall.h - the kernel-call IR: how each op runs -----------------===//
//
// Lowering an onnx op yields either a list of calls into runtime-lite (a
// kernel name, template arguments and plain C arguments), an alias (the
// result is a view of an operand's bytes: Reshape, Squeeze, ...), or
// nothing (constants). This one description drives the C++ emitter, the
// memory planner (scratch sizes) and the compiler's constant folder, which
// runs the same calls on the host, so each op's semantics is defined once:
// by its runtime-lite kernel. Which kernels an op gets is decided by the
// target's kernel providers (KernelProvider.h), once, in
// onnxc-select-kernels, which records the calls on the op.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_KERNELCALL_H
#define ONNXC_LOWERING_KERNELCALL_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace onnxc {

/// A size the run decides within bounds (--dim NAME=LO..HI, docs/design.md
/// "Bounded dimensions"): an integer polynomial in the model's bounded
/// dims, each to degree 2 at most. coeffs[m] multiplies the monomial whose
/// base-3 digits are the exponents (digit i: dim i), so a model with k
/// bounded dims has 3^k coefficients. Empty: no polynomial.
using DimPoly = llvm::SmallVector<int64_t>;

struct KernelArg {
  enum class Kind {
    Tensor, Int, Float, IntArray, FloatArray, StringArray, Null, Scratch, Constant, Runner,
    Status
  };
  Kind kind = Kind::Null;
  mlir::Value tensor;        // Tensor: an operand or a result of the op
  bool isOutput = false;     // Tensor: written by the call
  int64_t intValue = 0;      // Int; Scratch: size in bytes
  double floatValue = 0;     // Float
  llvm::SmallVector<int64_t> ints; // IntArray
  std::vector<double> floats;      // FloatArray (C `const double*`)
  std::vector<std::string> strings; // StringArray (C `const onnxc_string*`)
  bool persistent = false;   // Scratch: results point into it (text); kept to the end
  int64_t scratchOffset = 0; // Scratch: where in the op's scratch it starts (bytes)
  std::string scratchType;   // Scratch: C++ element type
  mlir::ElementsAttr constant; // Constant: data the compiler made (packed weights)
  /// A model with bounded dims: Int's value as a polynomial in them
  /// (intValue holds it at the upper bounds), or IntArray's per element
  /// (an empty entry is fixed). Empty when the value is fixed.
  DimPoly poly;
  std::vector<DimPoly> polys;

  static KernelArg input(mlir::Value v);
  static KernelArg output(mlir::Value v);
  static KernelArg i(int64_t v);
  static KernelArg f(double v);
  static KernelArg array(llvm::ArrayRef<int64_t> v);
  static KernelArg floatArray(llvm::ArrayRef<double> v);
  static KernelArg stringArray(std::vector<std::string> v);
  static KernelArg null();
  /// The op's scratch space (planned in the arena); every Scratch argument
  /// of an op's calls points to the same bytes, so calls can pass data on.
  static KernelArg scratch(int64_t bytes, std::string cppType);
  /// `bytes` of the op's scratch from byte `offset` (64-aligned): a part
  /// that other parts do not overlap.
  static KernelArg scratchAt(int64_t offset, int64_t bytes, std::string cppType);
  /// Characters for the strings an op makes (`char*`): scratch that stays
  /// valid to the end of the run and after it, as results point into it.
  static KernelArg text(int64_t bytes);
  /// Read-only data computed at compile time (weights packed into a
  /// kernel's layout), placed in the weights blob like a constant.
  static KernelArg constantData(mlir::ElementsAttr data);
  /// The model's task runner (`onnxc_rt::TaskRunner*`, parallel.h): the
  /// threads the caller passed to NAME_run_on, or null.
  static KernelArg runner();
  /// `int*` to the run's status, which the kernel sets when it cannot
  /// produce valid results (ONNXC_STATUS_*); NAME_run returns it.
  static KernelArg status();
};

struct KernelCall {
  std::string callee;  // fully qualified, e.g. "onnxc_rt::ref::conv"
  llvm::SmallVector<std::string> templateArgs;
  std::vector<KernelArg> args;
  std::string header;  // what the generated code must include

  /// "callee<targs>", the name the host registry knows the kernel by.
  std::string key() const;
  /// The scratch its arguments reach (offset + bytes at most).
  int64_t scratchBytes() const;
  /// Whether its scratch must outlive the call (KernelArg::text).
  bool persistentScratch() const;
};

/// Calls: the calls compute every result. Alias: result 0 is operand 0's
/// bytes; `calls` (if any) compute the other results.
struct OpLowering {
  enum class Kind { Calls, Alias, None };
  Kind kind = Kind::None;
  std::vector<KernelCall> calls;
};

/// The C++ spelling of an element type ("float", "int64_t", "bool",
/// "onnxc_string").
std::string cppTypeName(mlir::Type elementType);

} // namespace onnxc

#endif
