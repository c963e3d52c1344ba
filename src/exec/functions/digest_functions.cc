// Spark's digest functions md5, sha1, sha2 (OpenSSL's EVP digests) and crc32 (zlib).
#include <openssl/evp.h>
#include <zlib.h>

#include "exec/functions/string_util.h"

namespace silt::exec {

namespace {

using fn::CheckArity;
using fn::CoerceArg;
using fn::FixedRows;
using fn::HexEncode;
using fn::MakeCall;
using fn::NullAt;
using fn::StrAt;
using fn::StringWriter;
using fn::StrRows;
using fn::ValAt;

using Args = std::vector<ExprPtr>;

TypePtr Str() { return DataType::String(); }
TypePtr Int() { return DataType::Int32(); }

// ---------------------------------------------------------------------------------------------
// Digests

ScalarKernel DigestKernel(const EVP_MD* md) {
  return [md](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) -> Status {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    if (!ctx) return Status::OutOfMemory("EVP_MD_CTX_new failed");
    Status st = StrRows(a, rows, out, [&](size_t i, std::string& b, Status* err) {
      std::string_view s = StrAt(a[0], i);
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned int len = 0;
      if (EVP_DigestInit_ex(ctx, md, nullptr) != 1 ||
          EVP_DigestUpdate(ctx, s.data(), s.size()) != 1 ||
          EVP_DigestFinal_ex(ctx, digest, &len) != 1) {
        *err = Status::Internal("digest failed");
        return false;
      }
      HexEncode(std::string_view(reinterpret_cast<char*>(digest), len), &b, false);
      return true;
    });
    EVP_MD_CTX_free(ctx);
    return st;
  };
}

}  // namespace

void RegisterDigestFunctions(FunctionRegistry& r) {
  Reg(r, {"md5"}, [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
    SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
    SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Binary(), ctx));
    return MakeCall(std::string(name), Str(), std::move(args), DigestKernel(EVP_md5()));
  });
  Reg(r, {"sha1", "sha"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Binary(), ctx));
        return MakeCall(std::string(name), Str(), std::move(args), DigestKernel(EVP_sha1()));
      });
  Reg(r, {"sha2"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 2, 2));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Binary(), ctx));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 1, Int(), ctx));
        return MakeCall(
            std::string(name), Str(), std::move(args),
            [](std::span<const Arg> a, size_t rows, const EvalContext& ec, Vector* out) -> Status {
              // One digest kernel per bit length; unsupported lengths give NULL.
              StringWriter w(out, rows);
              for (size_t i = 0; i < rows; ++i) {
                const EVP_MD* md = nullptr;
                if (!AnyNull(a, i)) {
                  switch (ValAt<int32_t>(a[1], i)) {
                    case 0:
                    case 256:
                      md = EVP_sha256();
                      break;
                    case 224:
                      md = EVP_sha224();
                      break;
                    case 384:
                      md = EVP_sha384();
                      break;
                    case 512:
                      md = EVP_sha512();
                      break;
                    default:
                      break;
                  }
                }
                if (!md) {
                  w.CommitNull();
                  continue;
                }
                Vector one(DataType::String());
                Arg arg{a[0].vector, true};
                Vector src(a[0].vector->type());
                src.AppendString(StrAt(a[0], i));
                arg.vector = &src;
                SILT_RETURN_NOT_OK(DigestKernel(md)(std::span<const Arg>(&arg, 1), 1, ec, &one));
                w.Append(one.GetString(0));
              }
              w.Finish();
              return Status::OK();
            });
      });
  Reg(r, {"crc32"},
      [](std::string_view name, Args& args, const BindContext& ctx) -> Result<ExprPtr> {
        SILT_RETURN_NOT_OK(CheckArity(name, args, 1, 1));
        SILT_RETURN_NOT_OK(CoerceArg(name, args, 0, DataType::Binary(), ctx));
        return MakeCall(
            std::string(name), DataType::Int64(), std::move(args),
            [](std::span<const Arg> a, size_t rows, const EvalContext&, Vector* out) {
              return FixedRows<int64_t>(a, rows, out, [&](size_t i, int64_t* v, Status*) {
                std::string_view s = StrAt(a[0], i);
                *v = static_cast<int64_t>(crc32(0L, reinterpret_cast<const Bytef*>(s.data()),
                                                static_cast<uInt>(s.size())));
                return true;
              });
            });
      });
}

}  // namespace silt::exec
