// Data types: the Spark type grammar (ARRAY/MAP/STRUCT, DECIMAL, CHAR/VARCHAR, intervals).
#include "common/error_classes.h"
#include "sql/parser_internal.h"

namespace silt::sql::internal {

// ---------------------------------------------------------------------------------------------
// Types

Result<TypePtr> Parser::DataTypeRule() {
  DepthGuard g(&depth_);
  SILT_RETURN_NOT_OK(CheckDepth());
  const Token& t = Peek();
  if (t.kind != TokenKind::kWord) return ErrorHere();
  std::string name = AsciiUpper(t.text);
  SourcePos pos = t.pos;
  Next();
  auto close_angle = [&]() -> Status { return ExpectOp(">"); };
  if (name == "ARRAY") {
    SILT_RETURN_NOT_OK(ExpectOp("<"));
    SILT_ASSIGN_OR_RETURN(auto elem, DataTypeRule());
    SILT_RETURN_NOT_OK(close_angle());
    return DataType::List(std::move(elem));
  }
  if (name == "MAP") {
    SILT_RETURN_NOT_OK(ExpectOp("<"));
    SILT_ASSIGN_OR_RETURN(auto k, DataTypeRule());
    SILT_RETURN_NOT_OK(ExpectOp(","));
    SILT_ASSIGN_OR_RETURN(auto v, DataTypeRule());
    SILT_RETURN_NOT_OK(close_angle());
    return DataType::Map(std::move(k), std::move(v));
  }
  if (name == "STRUCT") {
    std::vector<Field> fields;
    if (AcceptOp("<>")) return DataType::Struct({});
    SILT_RETURN_NOT_OK(ExpectOp("<"));
    if (!AtOp(">")) {
      do {
        Field f;
        SILT_ASSIGN_OR_RETURN(f.name, Identifier());
        AcceptOp(":");
        SILT_ASSIGN_OR_RETURN(f.type, DataTypeRule());
        f.nullable = true;
        if (AtKw("NOT") && AtKw("NULL", 1)) {
          Next();
          Next();
          f.nullable = false;
        }
        if (AcceptKw("COMMENT")) {
          SILT_ASSIGN_OR_RETURN(auto c, StringLit());
          std::string js;
          AppendJsonString(&js, c);
          f.metadata_json = "{\"comment\":" + js + "}";
        } else {
          f.metadata_json = "{}";
        }
        fields.push_back(std::move(f));
      } while (AcceptOp(","));
    }
    SILT_RETURN_NOT_OK(close_angle());
    return DataType::Struct(std::move(fields));
  }
  // Primitive, with optional (n[, m]).
  std::vector<int64_t> params;
  if (AtOp("(")) {
    Next();
    do {
      if (Peek().kind != TokenKind::kNumber) return ErrorHere();
      const Token& nt = Next();
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(nt.text.data(), nt.text.data() + nt.text.size(), v);
      if (ec != std::errc() || ptr != nt.text.data() + nt.text.size()) return ErrorAt(nt);
      params.push_back(v);
    } while (AcceptOp(","));
    SILT_RETURN_NOT_OK(ExpectOp(")"));
  }
  auto no_params = [&](TypePtr ty) -> Result<TypePtr> {
    if (!params.empty()) {
      return ClassError(errc::kUnsupportedDatatype,
                        "Unsupported data type \"" + name + "(" + std::to_string(params[0]) + ")\"",
                        pos);
    }
    return ty;
  };
  if (name == "BOOLEAN") return no_params(DataType::Boolean());
  if (name == "TINYINT" || name == "BYTE") return no_params(DataType::Int8());
  if (name == "SMALLINT" || name == "SHORT") return no_params(DataType::Int16());
  if (name == "INT" || name == "INTEGER") return no_params(DataType::Int32());
  if (name == "BIGINT" || name == "LONG") return no_params(DataType::Int64());
  if (name == "FLOAT" || name == "REAL") return no_params(DataType::Float());
  if (name == "DOUBLE") return no_params(DataType::Double());
  if (name == "STRING") return no_params(DataType::String());
  if (name == "BINARY") return no_params(DataType::Binary());
  if (name == "DATE") return no_params(DataType::Date());
  if (name == "TIMESTAMP_LTZ" || name == "TIMESTAMP_NTZ" || name == "TIMESTAMP") {
    // TIMESTAMP_LTZ(6) is TIMESTAMP and TIMESTAMP_NTZ(6) is TIMESTAMP_NTZ; 7 to 9 are the
    // nanosecond timestamps (TIMESTAMP(p) is TIMESTAMP_LTZ(p), spark.sql.timestampType's default).
    const bool ntz = name == "TIMESTAMP_NTZ";
    TypePtr micro = ntz ? DataType::TimestampNtz() : DataType::Timestamp();
    if (params.empty()) return micro;
    if (params.size() == 1 && params[0] == 6) return micro;
    if (params.size() == 1 && params[0] >= 7 && params[0] <= 9) {
      int p = static_cast<int>(params[0]);
      return ntz ? DataType::TimestampNtzNanos(p) : DataType::TimestampNanos(p);
    }
    if (params.size() == 1) {
      return ClassError(errc::kInvalidTimestampPrecision,
                        "The precision " + std::to_string(params[0]) + " of the " +
                            (ntz ? std::string("TIMESTAMP_NTZ") : std::string("TIMESTAMP_LTZ")) +
                            " data type is out of the supported range [6, 9].",
                        pos);
    }
    return no_params(micro);
  }
  if (name == "TIME") {
    // TIME(p): p fractional-second digits, 0 to 9 (TIME alone is TIME(6)).
    if (params.empty()) return DataType::Time(6);
    if (params.size() == 1 && params[0] >= 0 && params[0] <= 9) {
      return DataType::Time(static_cast<int>(params[0]));
    }
    if (params.size() == 1) {
      return ClassError(errc::kUnsupportedTimePrecision,
                        "The seconds precision " + std::to_string(params[0]) +
                            " of the TIME data type is out of the supported range [0, 9].",
                        pos);
    }
    return ErrorAt(t_[p_ - 1]);
  }
  if (name == "VOID") return no_params(DataType::Null());
  if (name == "CHAR" || name == "CHARACTER" || name == "VARCHAR") {
    if (params.size() != 1) {
      return ClassError(errc::kDatatypeMissingSize,
                        "DataType \"" + name + "\" requires a length parameter, for example \"" +
                            name + "(10)\". Please specify the length.",
                        pos);
    }
    return DataType::String();
  }
  if (name == "DECIMAL" || name == "DEC" || name == "NUMERIC") {
    int64_t p = params.empty() ? 10 : params[0];
    int64_t s = params.size() > 1 ? params[1] : 0;
    if (params.size() > 2) return ErrorAt(t_[p_ - 1]);
    if (p < 1 || p > 38) {
      return ClassError(errc::kDecimalPrecisionExceedsMaxPrecision,
                        "Decimal precision " + std::to_string(p) + " exceeds max precision 38",
                        pos);
    }
    if (s < 0 || s > p) {
      return ClassError(errc::kInvalidParameterValue,
                        "Decimal scale (" + std::to_string(s) +
                            ") cannot be greater than precision (" + std::to_string(p) + ")",
                        pos);
    }
    return DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
  }
  if (name == "INTERVAL") {
    // INTERVAL YEAR [TO MONTH] | INTERVAL MONTH | INTERVAL {DAY|HOUR|MINUTE|SECOND} [TO ...].
    auto field = [&](int* out, bool* ym) -> bool {
      if (Peek().kind != TokenKind::kWord) return false;
      static const char* const kNames[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
      std::string w = AsciiUpper(Peek().text);
      for (int k = 0; k < 6; ++k) {
        if (w == kNames[k]) {
          *ym = k < 2;
          *out = k < 2 ? k : k - 2;
          Next();
          return true;
        }
      }
      return false;
    };
    int start, end;
    bool ym, ym_end;
    // A bare INTERVAL is Spark's legacy CalendarIntervalType.
    if (!field(&start, &ym)) return DataType::CalendarInterval();
    end = start;
    ym_end = ym;
    if (AcceptKw("TO")) {
      if (!field(&end, &ym_end)) return ErrorHere();
      if (ym_end != ym || end <= start) {
        return ClassError(errc::kParseSyntaxError,
                          "Syntax error: INTERVAL " + std::string(ym ? "year-month" : "day-time") +
                              " fields out of order",
                          pos);
      }
    }
    return ym ? DataType::YearMonthInterval(start, end) : DataType::DayTimeInterval(start, end);
  }
  if (name == "VARIANT") {
    return Status::NotImplemented("data type " + name + " is not supported by silt");
  }
  return ClassError(errc::kUnsupportedDatatype, "Unsupported data type \"" + name + "\"", pos);
}

}  // namespace silt::sql::internal
