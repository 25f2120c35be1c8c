//===- BoundedDims.cpp - one plan for every size of the bounded dims -------===//
#include "onnxc/Codegen/BoundedDims.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Lowering/KernelProvider.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <numeric>
#include <set>

using namespace mlir;

namespace onnxc {

//===-- Probes -------------------------------------------------------------===//

std::vector<std::vector<BoundedDim>> boundedRegimes(const std::vector<BoundedDim> &dims) {
  std::vector<std::vector<BoundedDim>> regimes = {{}};
  for (const BoundedDim &d : dims) {
    std::vector<BoundedDim> parts = {d};
    if (d.lo == 1 && d.hi > 1)
      parts = {{d.name, 2, d.hi}, {d.name, 1, 1}};
    std::vector<std::vector<BoundedDim>> next;
    for (const auto &r : regimes)
      for (const BoundedDim &p : parts) {
        next.push_back(r);
        next.back().push_back(p);
      }
    regimes = std::move(next);
  }
  return regimes;
}

std::vector<std::vector<int64_t>> boundedProbes(const std::vector<BoundedDim> &dims) {
  // Per dim: the values that fix its polynomial (upper bound first), and
  // the checkpoints that confirm it.
  std::vector<std::vector<int64_t>> fit, check;
  for (const BoundedDim &d : dims) {
    std::vector<int64_t> f = {d.hi};
    for (int64_t v : {d.lo, d.lo + (d.hi - d.lo) / 2})
      if (std::find(f.begin(), f.end(), v) == f.end())
        f.push_back(v);
    std::set<int64_t> c;
    for (int64_t v : {d.lo + 1, d.hi - 1})
      c.insert(v);
    for (int64_t p = 2; p < d.hi; p *= 2)
      c.insert(p);
    c.insert(d.lo + (d.hi - d.lo) / 4);
    c.insert(d.lo + 3 * (d.hi - d.lo) / 4);
    std::vector<int64_t> cs;
    for (int64_t v : c)
      if (v > d.lo && v < d.hi && std::find(f.begin(), f.end(), v) == f.end())
        cs.push_back(v);
    fit.push_back(f);
    check.push_back(cs);
  }
  std::vector<std::vector<int64_t>> probes = {{}};
  for (const auto &values : fit) { // the grid, all upper bounds first
    std::vector<std::vector<int64_t>> next;
    for (const auto &p : probes)
      for (int64_t v : values) {
        next.push_back(p);
        next.back().push_back(v);
      }
    probes = std::move(next);
  }
  size_t rounds = 0;
  for (const auto &c : check)
    rounds = std::max(rounds, c.size());
  for (size_t r = 0; r < rounds; ++r) { // checkpoints, the dims stepping together
    std::vector<int64_t> p;
    for (size_t i = 0; i < dims.size(); ++i)
      p.push_back(check[i].empty() ? dims[i].hi : check[i][r % check[i].size()]);
    if (std::find(probes.begin(), probes.end(), p) == probes.end())
      probes.push_back(p);
  }
  return probes;
}

//===-- Polynomials --------------------------------------------------------===//

namespace {

/// An exact fraction (the fit's intermediate values).
struct Fraction {
  __int128 num = 0, den = 1;
  static __int128 gcd(__int128 a, __int128 b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
      __int128 t = a % b;
      a = b;
      b = t;
    }
    return a ? a : 1;
  }
  static Fraction make(__int128 n, __int128 d) {
    if (d < 0)
      n = -n, d = -d;
    __int128 g = gcd(n, d);
    return {n / g, d / g};
  }
  Fraction operator+(Fraction o) const { return make(num * o.den + o.num * den, den * o.den); }
  Fraction operator-(Fraction o) const { return make(num * o.den - o.num * den, den * o.den); }
  Fraction operator*(Fraction o) const { return make(num * o.num, den * o.den); }
  Fraction operator/(Fraction o) const { return make(num * o.den, den * o.num); }
};

/// Coefficients (a0, a1, a2) of the polynomial through (xs[i], ys[i]).
std::vector<Fraction> interpolate(llvm::ArrayRef<int64_t> xs, llvm::ArrayRef<Fraction> ys) {
  auto x = [&](size_t i) { return Fraction{xs[i], 1}; };
  if (xs.size() == 1)
    return {ys[0]};
  Fraction d1 = (ys[1] - ys[0]) / (x(1) - x(0));
  if (xs.size() == 2)
    return {ys[0] - d1 * x(0), d1};
  Fraction d2 = ((ys[2] - ys[1]) / (x(2) - x(1)) - d1) / (x(2) - x(0));
  return {ys[0] - d1 * x(0) + d2 * x(0) * x(1), d1 - d2 * (x(0) + x(1)), d2};
}

int64_t pow3(size_t k) {
  int64_t n = 1;
  for (size_t i = 0; i < k; ++i)
    n *= 3;
  return n;
}

} // namespace

int64_t evalDimPoly(const DimPoly &poly, llvm::ArrayRef<int64_t> dims) {
  __int128 sum = 0;
  for (size_t m = 0; m < poly.size(); ++m) {
    if (!poly[m])
      continue;
    __int128 term = poly[m];
    size_t digits = m;
    for (int64_t d : dims) {
      for (size_t e = 0; e < digits % 3; ++e)
        term *= d;
      digits /= 3;
    }
    sum += term;
  }
  return static_cast<int64_t>(sum);
}

FailureOr<DimPoly> fitDimPoly(llvm::ArrayRef<std::vector<int64_t>> points,
                              llvm::ArrayRef<int64_t> values) {
  if (points.empty())
    return failure();
  const size_t k = points[0].size();
  // The grid: per dim, the first (up to three) distinct values in order.
  std::vector<std::vector<int64_t>> axis(k);
  for (const auto &p : points)
    for (size_t i = 0; i < k; ++i)
      if (axis[i].size() < 3 && std::find(axis[i].begin(), axis[i].end(), p[i]) == axis[i].end())
        axis[i].push_back(p[i]);
  // Grid values, indexed by the base-3 digits of each dim's position.
  const int64_t cells = pow3(k);
  std::vector<Fraction> grid(cells);
  std::vector<bool> have(cells, false);
  for (size_t j = 0; j < points.size(); ++j) {
    int64_t cell = 0, scale = 1;
    bool onGrid = true;
    for (size_t i = 0; i < k; ++i) {
      auto it = std::find(axis[i].begin(), axis[i].end(), points[j][i]);
      onGrid &= it != axis[i].end();
      cell += scale * (onGrid ? it - axis[i].begin() : 0);
      scale *= 3;
    }
    if (onGrid) {
      grid[cell] = {values[j], 1};
      have[cell] = true;
    }
  }
  // Cells beyond a dim's distinct values hold nothing (coefficient 0); the
  // others must all have been probed.
  auto inRange = [&](int64_t m) {
    for (size_t i = 0; i < k; ++i, m /= 3)
      if (m % 3 >= (int64_t)axis[i].size())
        return false;
    return true;
  };
  for (int64_t m = 0; m < cells; ++m)
    if (inRange(m) && !have[m])
      return failure();
  // Interpolate along each dim in turn: positions become exponents.
  for (size_t i = 0; i < k; ++i) {
    const int64_t stride = pow3(i);
    const size_t n = axis[i].size();
    for (int64_t base = 0; base < cells; ++base) {
      if ((base / stride) % 3 != 0)
        continue;
      if (!inRange(base))
        continue;
      std::vector<Fraction> ys;
      for (size_t j = 0; j < n; ++j)
        ys.push_back(grid[base + j * stride]);
      std::vector<Fraction> a = interpolate(axis[i], ys);
      for (size_t j = 0; j < n; ++j)
        grid[base + j * stride] = a[j];
    }
  }
  DimPoly poly(cells, 0);
  for (int64_t m = 0; m < cells; ++m) {
    if (!inRange(m))
      continue;
    if (grid[m].den != 1 || grid[m].num > INT64_MAX || grid[m].num < INT64_MIN)
      return failure();
    poly[m] = static_cast<int64_t>(grid[m].num);
  }
  for (size_t j = 0; j < points.size(); ++j) // every probe, checkpoints included
    if (evalDimPoly(poly, points[j]) != values[j])
      return failure();
  return poly;
}

int exactDim(const DimPoly &poly) {
  int found = -1;
  for (size_t m = 0; m < poly.size(); ++m) {
    if (!poly[m])
      continue;
    if (poly[m] != 1 || found >= 0)
      return -1;
    // m must be 3^i: dim i to the first power, no other.
    int i = 0;
    size_t v = m;
    while (v % 3 == 0 && v > 1)
      v /= 3, ++i;
    if (v != 1)
      return -1;
    found = i;
  }
  return found;
}

std::string dimPolyText(const DimPoly &poly, const std::vector<BoundedDim> &dims) {
  std::string s;
  for (size_t m = 0; m < poly.size(); ++m) {
    int64_t c = poly[m];
    if (!c)
      continue;
    std::string factors;
    for (size_t i = 0, digits = m; i < dims.size(); ++i, digits /= 3)
      for (size_t e = 0; e < digits % 3; ++e)
        factors += (factors.empty() ? "" : "*") + dims[i].name;
    std::string term;
    int64_t a = c < 0 ? -c : c;
    if (factors.empty())
      term = std::to_string(a);
    else
      term = a == 1 ? factors : std::to_string(a) + "*" + factors;
    if (s.empty())
      s = (c < 0 ? "-" : "") + term;
    else
      s += (c < 0 ? " - " : " + ") + term;
  }
  return s.empty() ? "0" : s;
}

//===-- Merging the plans --------------------------------------------------===//

namespace {

class PlanMerger {
public:
  PlanMerger(const std::vector<BoundedDim> &dims, const std::vector<std::vector<int64_t>> &probes,
             ArrayRef<ModuleOp> plans)
      : dims(dims), probes(probes), plans(plans), b(ModuleOp(plans[0]).getContext()) {}
  LogicalResult run();

private:
  std::string at(size_t probe) const {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i)
      s += (i ? ", " : "") + dims[i].name + "=" + std::to_string(probes[probe][i]);
    return s;
  }
  /// The polynomial through `values` (one per probe), or an error at `op`.
  FailureOr<DimPoly> fit(Operation *op, ArrayRef<int64_t> values, StringRef what);
  FailureOr<Attribute> merge(Operation *op, ArrayRef<Attribute> attrs, StringRef what);
  LogicalResult mergeOp(ArrayRef<Operation *> ops);
  LogicalResult mergeSignature(ArrayRef<func::FuncOp> funcs);
  Attribute dimPolys(ArrayRef<Type> types, Operation *at, StringRef what, bool &ok);

  const std::vector<BoundedDim> &dims;
  const std::vector<std::vector<int64_t>> &probes;
  ArrayRef<ModuleOp> plans;
  Builder b;
};

FailureOr<DimPoly> PlanMerger::fit(Operation *op, ArrayRef<int64_t> values, StringRef what) {
  FailureOr<DimPoly> p = fitDimPoly(probes, values);
  if (succeeded(p))
    return p;
  std::string seen;
  for (size_t i = 0; i < values.size() && i < 6; ++i)
    seen += (i ? "; " : "") + std::to_string(values[i]) + " at " + at(i);
  return op->emitError() << "with bounded dims: " << what
                         << " is not one polynomial in the dims (" << seen
                         << "); bounded dims hold ops that carry a dim through (a batch, a "
                            "sequence), not ones that divide it (a strided window)";
}

FailureOr<Attribute> PlanMerger::merge(Operation *op, ArrayRef<Attribute> attrs, StringRef what) {
  Attribute ref = attrs[0];
  if (llvm::all_of(attrs, [&](Attribute a) { return a == ref; }))
    return ref;
  auto differ = [&](StringRef why) -> FailureOr<Attribute> {
    size_t j = 1;
    while (j < attrs.size() && attrs[j] == ref)
      ++j;
    return op->emitError() << "with bounded dims: " << why << " at " << at(j)
                           << " differs from the one at " << at(0) << " (" << what << ")";
  };
  if (isa<IntegerAttr>(ref)) {
    SmallVector<int64_t> values;
    for (Attribute a : attrs) {
      auto i = dyn_cast<IntegerAttr>(a);
      if (!i)
        return differ("a kernel argument");
      values.push_back(i.getInt());
    }
    auto p = fit(op, values, (what + " (a kernel's integer argument)").str());
    if (failed(p))
      return failure();
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("dim")),
         b.getNamedAttr("value", ref), b.getNamedAttr("poly", b.getDenseI64ArrayAttr(*p))}));
  }
  if (auto arr = dyn_cast<DenseI64ArrayAttr>(ref)) {
    SmallVector<Attribute> polys;
    for (int64_t e = 0; e < arr.size(); ++e) {
      SmallVector<int64_t> values;
      for (Attribute a : attrs) {
        auto ai = dyn_cast<DenseI64ArrayAttr>(a);
        if (!ai || ai.size() != arr.size())
          return differ("a kernel's int array (its length)");
        values.push_back(ai[e]);
      }
      if (llvm::all_equal(values)) {
        polys.push_back(b.getDenseI64ArrayAttr({}));
        continue;
      }
      auto p = fit(op, values, (what + " (entry " + llvm::Twine(e) + " of an int array)").str());
      if (failed(p))
        return failure();
      polys.push_back(b.getDenseI64ArrayAttr(*p));
    }
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("dim_array")), b.getNamedAttr("values", ref),
         b.getNamedAttr("polys", b.getArrayAttr(polys))}));
  }
  if (auto arr = dyn_cast<ArrayAttr>(ref)) {
    SmallVector<Attribute> out;
    for (size_t e = 0; e < arr.size(); ++e) {
      SmallVector<Attribute> items;
      for (Attribute a : attrs) {
        auto ai = dyn_cast<ArrayAttr>(a);
        if (!ai || ai.size() != arr.size())
          return differ("the op's kernel calls");
        items.push_back(ai[e]);
      }
      auto m = merge(op, items, what);
      if (failed(m))
        return failure();
      out.push_back(*m);
    }
    return Attribute(b.getArrayAttr(out));
  }
  if (auto dict = dyn_cast<DictionaryAttr>(ref)) {
    auto kind = dict.getAs<StringAttr>("kind");
    SmallVector<NamedAttribute> out;
    for (NamedAttribute na : dict) {
      SmallVector<Attribute> items;
      for (Attribute a : attrs) {
        auto d = dyn_cast<DictionaryAttr>(a);
        Attribute v = d ? d.get(na.getName()) : Attribute();
        if (!v)
          return differ("a kernel call");
        items.push_back(v);
      }
      // Scratch space is planned at the upper bounds, where it is largest.
      if (kind && kind.getValue() == "scratch" && na.getName() == "bytes") {
        for (Attribute a : items)
          if (cast<IntegerAttr>(a).getInt() > cast<IntegerAttr>(na.getValue()).getInt())
            return differ("its kernel's scratch space (larger than at the upper bounds)");
        out.push_back(na);
        continue;
      }
      std::string sub = what.str();
      if (auto callee = dict.getAs<StringAttr>("callee"))
        sub = (na.getName() == "template"
                   ? "the template arguments of its call to " + callee.getValue() +
                         ": sizes fixed at compile time"
                   : "its call to " + callee.getValue())
                  .str();
      auto m = merge(op, items, sub);
      if (failed(m))
        return failure();
      out.push_back(b.getNamedAttr(na.getName(), *m));
    }
    if (out.size() != dict.size())
      return differ("a kernel call");
    return Attribute(b.getDictionaryAttr(out));
  }
  if (isa<FloatAttr>(ref))
    return differ("a float argument of its kernel (a scale computed from a size, such as "
                  "1/n of a mean over a bounded dim, is not supported)");
  if (isa<ElementsAttr>(ref))
    return differ("the weights its kernel packed");
  if (auto s = dyn_cast<StringAttr>(ref))
    return differ(("the kernel chosen, or its parameters ('" + s.getValue() + "')").str());
  return differ("a kernel argument");
}

/// The bytes of `c` are a prefix of `ref`'s (a constant the folder cut to a
/// size: the positions 0..seq-1 of a table).
bool isPrefixOf(ElementsAttr c, ElementsAttr ref) {
  if (c.getElementType() != ref.getElementType())
    return false;
  std::vector<char> a = rawBytesOf(c), r = rawBytesOf(ref);
  return a.size() <= r.size() && std::equal(a.begin(), a.end(), r.begin());
}

/// Whether generated code reads `c`'s bytes: a kernel call takes it, or a
/// view of it does (a Reshape's target shape is read by no kernel).
bool readByKernels(onnx::ConstantOp c) {
  for (OpOperand &use : c->getUses()) {
    Operation *user = use.getOwner();
    if (isa<func::ReturnOp>(user))
      return true;
    if (onnx::isAliasOp(user) && use.getOperandNumber() == 0)
      return true;
    FailureOr<OpLowering> l = lowerToKernelCalls(user);
    if (failed(l))
      return true;
    for (const KernelCall &call : l->calls)
      for (const KernelArg &a : call.args)
        if (a.kind == KernelArg::Kind::Tensor && a.tensor == c.getResult())
          return true;
  }
  return false;
}

int64_t bytesOfType(Type t) {
  auto s = cast<ShapedType>(t);
  return s.getNumElements() * elementByteSize(s.getElementType());
}

LogicalResult PlanMerger::mergeOp(ArrayRef<Operation *> ops) {
  Operation *ref = ops[0];
  for (size_t j = 1; j < ops.size(); ++j)
    if (ops[j]->getName() != ref->getName() ||
        ops[j]->getNumResults() != ref->getNumResults() ||
        ops[j]->getNumOperands() != ref->getNumOperands())
      return ref->emitError() << "with bounded dims: the graph at " << at(j)
                              << " has " << ops[j]->getName() << " where the one at " << at(0)
                              << " has " << ref->getName()
                              << " (the passes folded it differently)";
  if (auto c = dyn_cast<onnx::ConstantOp>(ref)) {
    for (size_t j = 1; j < ops.size(); ++j) {
      auto other = cast<onnx::ConstantOp>(ops[j]).getValue();
      if (other != c.getValue() && !isPrefixOf(other, c.getValue()) && readByKernels(c))
        return ref->emitError() << "with bounded dims: this constant at " << at(j)
                                << " is not the start of the one at " << at(0)
                                << " (a weight computed from a bounded dim)";
    }
    return success();
  }
  // Every result fits where the plan at the upper bounds put it.
  for (size_t j = 1; j < ops.size(); ++j)
    for (auto [r, o] : llvm::zip(ref->getResults(), ops[j]->getResults())) {
      auto rt = dyn_cast<ShapedType>(r.getType());
      auto ot = dyn_cast<ShapedType>(o.getType());
      if (rt && ot && rt.hasStaticShape() && ot.hasStaticShape() &&
          bytesOfType(ot) > bytesOfType(rt))
        return ref->emitError() << "with bounded dims: a result at " << at(j) << " ("
                                << ot << ") is larger than at the upper bounds (" << rt << ")";
    }
  if (Attribute record = ref->getAttr(kKernelRecordAttr)) {
    SmallVector<Attribute> records;
    for (Operation *op : ops) {
      Attribute r = op->getAttr(kKernelRecordAttr);
      if (!r)
        return ref->emitError("with bounded dims: a probe has no kernel record");
      records.push_back(r);
    }
    auto merged = merge(ref, records, "its kernels");
    if (failed(merged))
      return failure();
    ref->setAttr(kKernelRecordAttr, *merged);
  }
  return success();
}

Attribute PlanMerger::dimPolys(ArrayRef<Type> types, Operation *at, StringRef what, bool &ok) {
  auto ref = cast<ShapedType>(types[0]);
  SmallVector<Attribute> polys;
  for (int64_t d = 0; d < ref.getRank(); ++d) {
    SmallVector<int64_t> values;
    for (Type t : types)
      values.push_back(cast<ShapedType>(t).getDimSize(d));
    if (llvm::all_equal(values)) {
      polys.push_back(b.getDenseI64ArrayAttr({}));
      continue;
    }
    auto p = fit(at, values, (what + " dim " + llvm::Twine(d)).str());
    ok &= succeeded(p);
    polys.push_back(b.getDenseI64ArrayAttr(succeeded(p) ? *p : DimPoly()));
  }
  return b.getArrayAttr(polys);
}

LogicalResult PlanMerger::mergeSignature(ArrayRef<func::FuncOp> funcs) {
  func::FuncOp ref = funcs[0];
  bool ok = true;
  for (unsigned i = 0; i < ref.getNumArguments(); ++i) {
    SmallVector<Type> types;
    for (func::FuncOp f : funcs)
      types.push_back(f.getArgumentTypes()[i]);
    ref.setArgAttr(i, kDimPolysAttr, dimPolys(types, ref, "input " + std::to_string(i), ok));
  }
  for (unsigned i = 0; i < ref.getNumResults(); ++i) {
    SmallVector<Type> types;
    SmallVector<int64_t> bytes;
    for (func::FuncOp f : funcs) {
      types.push_back(f.getResultTypes()[i]);
      bytes.push_back(bytesOfType(types.back()));
    }
    ref.setResultAttr(i, kDimPolysAttr, dimPolys(types, ref, "output " + std::to_string(i), ok));
    auto p = fit(ref, bytes, "output " + std::to_string(i) + "'s size");
    ok &= succeeded(p);
    if (succeeded(p))
      ref.setResultAttr(i, kBytesPolyAttr, b.getDenseI64ArrayAttr(*p));
  }
  SmallVector<Attribute> list;
  for (const BoundedDim &d : dims)
    list.push_back(b.getDictionaryAttr({b.getNamedAttr("name", b.getStringAttr(d.name)),
                                        b.getNamedAttr("min", b.getI64IntegerAttr(d.lo)),
                                        b.getNamedAttr("max", b.getI64IntegerAttr(d.hi))}));
  ref->setAttr(kBoundedDimsAttr, b.getArrayAttr(list));
  return success(ok);
}

LogicalResult PlanMerger::run() {
  SmallVector<func::FuncOp> funcs;
  for (ModuleOp m : plans) {
    auto fs = m.getOps<func::FuncOp>();
    if (std::distance(fs.begin(), fs.end()) != 1)
      return ModuleOp(plans[0]).emitError("with bounded dims: expected one model function");
    funcs.push_back(*fs.begin());
  }
  std::vector<SmallVector<Operation *>> bodies;
  for (func::FuncOp f : funcs) {
    bodies.emplace_back();
    for (Operation &op : f.getBody().front().without_terminator())
      bodies.back().push_back(&op);
  }
  for (size_t j = 1; j < bodies.size(); ++j)
    if (bodies[j].size() != bodies[0].size()) {
      // Name the first op where the sequences part.
      size_t i = 0;
      while (i < bodies[0].size() && i < bodies[j].size() &&
             bodies[0][i]->getName() == bodies[j][i]->getName())
        ++i;
      Operation *where = i < bodies[0].size() ? bodies[0][i] : funcs[0].getOperation();
      return where->emitError() << "with bounded dims: the graph at " << at(j) << " has "
                                << bodies[j].size() << " ops after the passes, the one at "
                                << at(0) << " " << bodies[0].size()
                                << " (the passes folded them differently from here)";
    }
  bool ok = true;
  for (size_t i = 0; i < bodies[0].size(); ++i) {
    SmallVector<Operation *> ops;
    for (auto &body : bodies)
      ops.push_back(body[i]);
    ok &= succeeded(mergeOp(ops)); // every op's problems at once
  }
  ok &= succeeded(mergeSignature(funcs));
  return success(ok);
}

} // namespace

LogicalResult mergeBoundedPlans(const std::vector<BoundedDim> &dims,
                                const std::vector<std::vector<int64_t>> &probes,
                                ArrayRef<ModuleOp> plans) {
  return PlanMerger(dims, probes, plans).run();
}

} // namespace onnxc
