//===- HostKernels.cpp - runtime-lite kernels callable by the compiler -----===//
//
// The constant folder evaluates ops by running their kernel calls here, on
// the same runtime-lite code the generated C++ calls. Each kernel
// instantiation is registered under the name the kernel-call IR gives it;
// an adapter generated from the kernel's own signature turns the call's
// plain arguments (buffers, integers, floats, int arrays) into a C++ call.
// A kernel missing here only means that op is not folded.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Lowering/KernelCall.h"
#include "onnxc/Lowering/HostKernels.h"

#include "onnxc_rt/kernels.h"
#include "onnxc_rt/kernels/reference/qs8.h"

#include "llvm/ADT/StringMap.h"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace onnxc {
namespace {

struct RawArg {
  void *p = nullptr;
  int64_t i = 0;
  double f = 0;
};

template <typename T> T fromRaw(const RawArg &a) {
  if constexpr (std::is_pointer_v<T>)
    return static_cast<T>(a.p);
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(a.f);
  else
    return static_cast<T>(a.i);
}

template <typename F, F Fn> struct Adapter;
template <typename... P, void (*Fn)(P...)> struct Adapter<void (*)(P...), Fn> {
  static constexpr size_t arity = sizeof...(P);
  template <size_t... I>
  static void invoke(const RawArg *args, std::index_sequence<I...>) {
    Fn(fromRaw<P>(args[I])...);
  }
  static void call(const RawArg *args) {
    invoke(args, std::index_sequence_for<P...>{});
  }
};

struct Entry {
  void (*fn)(const RawArg *);
  size_t arity;
};

std::string normalize(llvm::StringRef key) {
  std::string out;
  for (char c : key)
    if (c != ' ')
      out.push_back(c);
  return out;
}

class Registry {
public:
  static const Registry &get() {
    static const Registry r;
    return r;
  }
  const Entry *lookup(const std::string &key) const {
    auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
  }

private:
  llvm::StringMap<Entry> map;
  template <typename F, F Fn> void add(const char *name) {
    map[normalize(name)] = Entry{&Adapter<F, Fn>::call, Adapter<F, Fn>::arity};
  }
  /// unary<F, float> for every reference functor F defined on floats
  /// (reference/elementwise.h numbers them): a new one needs no line here.
  template <int... I> void addFloatUnaries(std::integer_sequence<int, I...>) {
    (addFloatUnary<I>(), ...);
  }
  template <int I> void addFloatUnary() {
    using F = onnxc_rt::ref::UnaryFunctorAt<I>;
    if constexpr (F::on_floats) {
      using Fn = decltype(&onnxc_rt::ref::unary<typename F::type, float>);
      const std::string name =
          std::string("onnxc_rt::ref::unary<onnxc_rt::ref::") + F::name + ", float>";
      add<Fn, &onnxc_rt::ref::unary<typename F::type, float>>(name.c_str());
    }
  }
  Registry();
};

#define K(...) add<decltype(&onnxc_rt::ref::__VA_ARGS__), &onnxc_rt::ref::__VA_ARGS__>("onnxc_rt::ref::" #__VA_ARGS__)
#define UNARY(OP, T) K(unary<onnxc_rt::ref::OP, T>)
#define BINARY(OP, T, TO) K(binary<onnxc_rt::ref::OP, T, T, TO>)

Registry::Registry() {
  // Shape arithmetic (int64), index math (int32) and float constants are
  // what exporters leave for folding.
#define FOR_NUMERIC(X) X(float) X(double) X(int32_t) X(int64_t)
#define ARITH(T)                                                               \
  BINARY(Add, T, T); BINARY(Sub, T, T); BINARY(Mul, T, T); BINARY(Div, T, T);  \
  BINARY(Pow, T, T); BINARY(Max, T, T); BINARY(Min, T, T); BINARY(FMod, T, T); \
  BINARY(Equal, T, bool); BINARY(Less, T, bool); BINARY(Greater, T, bool);     \
  BINARY(LessOrEqual, T, bool); BINARY(GreaterOrEqual, T, bool);               \
  UNARY(Abs, T); UNARY(Neg, T); UNARY(Identity, T); UNARY(Relu, T);            \
  UNARY(Sign, T); UNARY(Scale, T);                                             \
  K(where<T>); K(broadcast_copy<T>); K(clip<T>); K(fill<T>); K(range<T>);      \
  K(transpose<T>); K(concat_part<T>); K(split_part<T>); K(slice<T>);           \
  K(gather<T, int64_t>); K(gather<T, int32_t>); K(tile<T>); K(pad<T>);         \
  K(reduce<onnxc_rt::ref::ReduceSum, T>); K(reduce<onnxc_rt::ref::ReduceProd, T>); \
  K(reduce<onnxc_rt::ref::ReduceMax, T>); K(reduce<onnxc_rt::ref::ReduceMin, T>); \
  K(reduce<onnxc_rt::ref::ReduceMean, T>); K(matmul<T>); K(gemm<T>);           \
  K(arg_reduce<T>); K(scatter_nd<T, int64_t>); K(scatter_elements<T, int64_t>);   \
  K(gather_nd<T, int64_t>); K(gather_elements<T, int64_t>); K(trilu<T>);       \
  K(cumsum<T>); K(eye_like<T>); K(topk<T>); K(one_hot<int64_t, T>); K(nonzero<T>);
  FOR_NUMERIC(ARITH)
  // Mod's integer form (window padding: (w - size % w) % w).
  BINARY(Mod, int32_t, int32_t); BINARY(Mod, int64_t, int64_t);
#define FLOATING(T)                                                            \
  UNARY(Sqrt, T); UNARY(Exp, T); UNARY(Log, T); UNARY(Reciprocal, T);          \
  UNARY(Sigmoid, T); UNARY(Tanh, T); UNARY(Erf, T); UNARY(Ceil, T);            \
  UNARY(Floor, T); UNARY(Round, T); K(softmax<T>); K(batch_norm<T>);           \
  K(conv<T>); K(layer_norm<T>); K(einsum<T>);
  FLOATING(float)
  FLOATING(double)
  // Every float function of one value: onnxc-fold-qdq's lookup tables are
  // Q(f(DQ(all 256 values))), folded here.
  addFloatUnaries(std::make_integer_sequence<int, onnxc_rt::ref::kUnaryFunctors>());
  K(quantize_linear<float, int8_t>); K(quantize_linear<float, uint8_t>);
  K(dequantize_linear<int8_t, float>); K(dequantize_linear<uint8_t, float>);
  // A table built on another (SiLU's x * sigmoid(x) reads the sigmoid's).
  K(qs8::lookup<int8_t>); K(qs8::lookup<uint8_t>);
#define CASTS_FROM(T)                                                          \
  K(cast<T, float>); K(cast<T, double>); K(cast<T, int32_t>);                  \
  K(cast<T, int64_t>); K(cast<T, bool>);
  FOR_NUMERIC(CASTS_FROM)
  CASTS_FROM(bool)
  // Exporters round shape values through small integer types too.
#define SMALL_INT_CASTS(T) K(cast<T, int64_t>); K(cast<int64_t, T>); K(cast<float, T>);
  SMALL_INT_CASTS(int8_t) SMALL_INT_CASTS(uint8_t) SMALL_INT_CASTS(int16_t)
  SMALL_INT_CASTS(uint16_t) SMALL_INT_CASTS(uint32_t) SMALL_INT_CASTS(uint64_t)
#undef SMALL_INT_CASTS
  BINARY(And, bool, bool); BINARY(Or, bool, bool); BINARY(Xor, bool, bool);
  BINARY(Equal, bool, bool); UNARY(Not, bool); K(where<bool>); K(nonzero<bool>);
  K(broadcast_copy<bool>); K(concat_part<bool>); K(fill<bool>); K(slice<bool>);
#undef FOR_NUMERIC
#undef ARITH
#undef FLOATING
#undef CASTS_FROM
}

#undef K
#undef UNARY
#undef BINARY

} // namespace

bool hostKernelAvailable(const KernelCall &call) {
  return Registry::get().lookup(normalize(call.key())) != nullptr;
}

bool runKernelCallsOnHost(llvm::ArrayRef<KernelCall> calls,
                          llvm::ArrayRef<void *> tensors) {
  for (const KernelCall &c : calls)
    if (!hostKernelAvailable(c))
      return false;
  size_t nextTensor = 0;
  int64_t scratchBytes = 0;
  for (const KernelCall &c : calls)
    scratchBytes = std::max(scratchBytes, c.scratchBytes());
  std::vector<double> scratch((scratchBytes + 7) / 8); // shared by the op's calls
  for (const KernelCall &c : calls) {
    const Entry *e = Registry::get().lookup(normalize(c.key()));
    std::vector<RawArg> raw(c.args.size());
    for (size_t i = 0; i < c.args.size(); ++i) {
      const KernelArg &a = c.args[i];
      switch (a.kind) {
      case KernelArg::Kind::Tensor:
        raw[i].p = tensors[nextTensor++];
        break;
      case KernelArg::Kind::Int:
        raw[i].i = a.intValue;
        raw[i].f = static_cast<double>(a.intValue);
        break;
      case KernelArg::Kind::Float:
        raw[i].f = a.floatValue;
        raw[i].i = static_cast<int64_t>(a.floatValue);
        break;
      case KernelArg::Kind::IntArray:
        raw[i].p = const_cast<int64_t *>(a.ints.data());
        break;
      case KernelArg::Kind::Null:
      case KernelArg::Kind::Runner: // the folder runs every kernel on its own thread
        break;
      case KernelArg::Kind::FloatArray:
        raw[i].p = const_cast<double *>(a.floats.data());
        break;
      case KernelArg::Kind::Scratch:
        raw[i].p = reinterpret_cast<char *>(scratch.data()) + a.scratchOffset;
        break;
      case KernelArg::Kind::Constant: // only target kernels take compile-time data
      case KernelArg::Kind::StringArray: // string kernels are not folded
      case KernelArg::Kind::Status:
        return false;
      }
    }
    if (e->arity != raw.size())
      return false;
    e->fn(raw.data());
  }
  return true;
}

} // namespace onnxc
