// Definitions for exec_test_util.h (test-only kernels and a source operator).
#include "unit/exec/exec_test_util.h"

#include <gtest/gtest.h>

#include "exec/kernel_util.h"

namespace silt::exec {

namespace testing {

ExprPtr CompareInt(std::string op, ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Boolean();
  e->name = op;
  e->children = {a, b};
  bool wide_a = a->type->id() == TypeId::kInt64, wide_b = b->type->id() == TypeId::kInt64;
  e->kernel = [op, wide_a, wide_b](std::span<const Arg> args, size_t rows, const EvalContext&,
                                   Vector* out) {
    out->ResizeUninitialized(rows);
    uint8_t* dst = out->data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) {
      size_t ia = args[0].index(i), ib = args[1].index(i);
      int64_t x =
          wide_a ? args[0].vector->data<int64_t>()[ia] : args[0].vector->data<int32_t>()[ia];
      int64_t y =
          wide_b ? args[1].vector->data<int64_t>()[ib] : args[1].vector->data<int32_t>()[ib];
      bool r = op == "<"    ? x < y
               : op == "<=" ? x <= y
               : op == ">"  ? x > y
               : op == ">=" ? x >= y
               : op == "="  ? x == y
                            : x != y;
      dst[i] = r;
    }
    PropagateNulls(args, rows, out);
    return Status::OK();
  };
  return e;
}

ExprPtr AddInt64(ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Int64();
  e->name = "+";
  e->children = {a, b};
  e->kernel = [](std::span<const Arg> args, size_t rows, const EvalContext&, Vector* out) {
    MapBinary<int64_t, int64_t, int64_t>(args[0], args[1], rows, out,
                                         [](int64_t x, int64_t y) { return x + y; });
    return Status::OK();
  };
  return e;
}

}  // namespace testing

}  // namespace silt::exec
