// Bit functions as Spark: bit_count (BitwiseCount), getbit / bit_get (BitwiseGet), and the
// shift operators `<<`, `>>`, `>>>` as spellings of shiftleft / shiftright / shiftrightunsigned
// (registered with those in math_functions.cc).
#include <bit>

#include "common/error_classes.h"
#include "exec/function_registry.h"
#include "exec/functions/function_util.h"

namespace silt::exec {

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::IsIntegralId;
using fn::MakeCall;
using fn::NullAt;
using fn::UnexpectedType;
using Args = std::vector<ExprPtr>;

// The value of an integral or boolean cell widened to 64 bits (Spark widens with sign).
int64_t IntegralAt(const Arg& a, size_t row) {
  const size_t i = a.index(row);
  switch (a.vector->type()->id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return a.vector->type()->id() == TypeId::kBoolean ? a.vector->data<uint8_t>()[i]
                                                        : a.vector->data<int8_t>()[i];
    case TypeId::kInt16:
      return a.vector->data<int16_t>()[i];
    case TypeId::kInt32:
      return a.vector->data<int32_t>()[i];
    default:
      return a.vector->data<int64_t>()[i];
  }
}

int BitWidth(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 8;
    case TypeId::kInt16:
      return 16;
    case TypeId::kInt32:
      return 32;
    default:
      return 64;
  }
}

}  // namespace

void RegisterBitwiseFunctions(FunctionRegistry& r) {
  // bit_count(x): the number of set bits of the 64-bit (sign-extended) value; 1/0 for booleans.
  Reg(r, {"bit_count"}, [](std::string_view n, Args& a, const BindContext&) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(n, a, 1, 1));
    const TypeId id = a[0]->type->id();
    if (!IsIntegralId(id) && id != TypeId::kBoolean && id != TypeId::kNull) {
      return UnexpectedType(n, 0, "(\"INTEGRAL\" or \"BOOLEAN\")", a[0]->type);
    }
    const bool null_type = id == TypeId::kNull;
    return MakeCall(std::string(n), DataType::Int32(), std::move(a),
                    [null_type](std::span<const Arg> x, size_t rows, const EvalContext&,
                                Vector* out) -> Status {
                      fn::FixedWriter<int32_t> w(out, rows);
                      for (size_t i = 0; i < rows; ++i) {
                        if (null_type || NullAt(x[0], i)) {
                          w.SetNull(i);
                          continue;
                        }
                        w.Set(i, std::popcount(static_cast<uint64_t>(IntegralAt(x[0], i))));
                      }
                      return Status::OK();
                    });
  });
  // getbit(x, pos): bit `pos` (0 = least significant) of integral x as a TINYINT;
  // INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE outside [0, width of x's type).
  Reg(r, {"getbit", "bit_get"},
      [](std::string_view n, Args& a, const BindContext& c) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(n, a, 2, 2));
        const TypeId id = a[0]->type->id();
        if (id == TypeId::kNull) {
          SILT_RETURN_NOT_OK(CoerceArg(n, a, 0, DataType::Int64(), c));
        } else if (!IsIntegralId(id)) {
          return UnexpectedType(n, 0, "\"INTEGRAL\"", a[0]->type);
        }
        if (!IsIntegralId(a[1]->type->id()) && a[1]->type->id() != TypeId::kNull) {
          return UnexpectedType(n, 1, "\"INT\"", a[1]->type);
        }
        SILT_RETURN_NOT_OK(CoerceArg(n, a, 1, DataType::Int32(), c));
        const int width = BitWidth(a[0]->type->id());
        std::string name(n);
        return MakeCall(
            name, DataType::Int8(), std::move(a),
            [width, name](std::span<const Arg> x, size_t rows, const EvalContext&,
                          Vector* out) -> Status {
              fn::FixedWriter<int8_t> w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                if (NullAt(x[0], i) || NullAt(x[1], i)) {
                  w.SetNull(i);
                  continue;
                }
                const int32_t pos = fn::ValAt<int32_t>(x[1], i);
                if (pos < 0 || pos >= width) {
                  return Status::InvalidArgument(
                      "The value of parameter(s) `pos` in `" + name +
                          "` is invalid: expects an integer value in [0, " + std::to_string(width) +
                          "), but got " + std::to_string(pos) + ".",
                      errc::kInvalidParameterValueBitPositionRange);
                }
                w.Set(i,
                      static_cast<int8_t>((static_cast<uint64_t>(IntegralAt(x[0], i)) >> pos) & 1));
              }
              return Status::OK();
            });
      });
}

}  // namespace silt::exec
