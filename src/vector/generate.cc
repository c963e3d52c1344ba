#include "vector/generate.h"

#include <functional>

namespace silt {
namespace {

struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

const char* kWords[] = {"alpha", "beta",       "gamma",   "delta",    "epsilon",  "zeta",
                        "eta",   "theta",      "iota",    "kappa",    "lambda",   "mu",
                        "nu",    "xi",         "omicron", "pi",       "rho",      "sigma",
                        "tau",   "upsilon",    "phi",     "chi",      "psi",      "omega",
                        "",      "naïve café", "日本語",  "a\"quote", "tab\tsep", "x"};

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

void Fill(Vector* v, const TypePtr& t, bool nullable, size_t rows, Rng& rng,
          const GenerateOptions& o, size_t* serial);

void AppendOne(Vector* v, const TypePtr& t, Rng& rng, const GenerateOptions& o, size_t* serial) {
  switch (t->id()) {
    case TypeId::kNull:
      v->AppendNull();
      break;
    case TypeId::kBoolean:
      v->Append<uint8_t>(rng.Next() & 1);
      break;
    case TypeId::kInt8:
      v->Append<int8_t>(static_cast<int8_t>(rng.Next()));
      break;
    case TypeId::kInt16:
      v->Append<int16_t>(static_cast<int16_t>(rng.Next()));
      break;
    case TypeId::kInt32:
      v->Append<int32_t>(static_cast<int32_t>(rng.Range(-1000000, 1000000)));
      break;
    case TypeId::kInt64:
      v->Append<int64_t>(static_cast<int64_t>(rng.Next()));
      break;
    case TypeId::kFloat:
      v->Append<float>(static_cast<float>((rng.Unit() - 0.5) * 2000.0));
      break;
    case TypeId::kDouble:
      v->Append<double>((rng.Unit() - 0.5) * 1e6);
      break;
    case TypeId::kDecimal: {
      int128_t lim = Pow10(t->precision()) - 1;
      int128_t x = (static_cast<int128_t>(rng.Next()) << 64) | rng.Next();
      x %= (lim + 1);
      v->Append<int128_t>(x);
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      if (o.string_cardinality > 0) {
        uint64_t k = rng.Next() % static_cast<uint64_t>(o.string_cardinality);
        v->AppendString(std::string(kWords[k % 30]) + "-" + std::to_string(k));
      } else {
        size_t len = static_cast<size_t>(rng.Range(0, 24));
        std::string s = "v" + std::to_string((*serial)++) + "-";
        for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>('a' + rng.Next() % 26));
        if (rng.Next() % 16 == 0) s += kWords[rng.Next() % 30];
        if (t->id() == TypeId::kBinary) s.push_back(static_cast<char>(rng.Next() & 0xFF));
        v->AppendString(s);
      }
      break;
    }
    case TypeId::kDate:
      v->Append<int32_t>(static_cast<int32_t>(rng.Range(-25567, 47482)));
      break;  // 1900..2100
    case TypeId::kYearMonthInterval:
      v->Append<int32_t>(static_cast<int32_t>(rng.Range(-1200000, 1200000)));
      break;
    case TypeId::kDayTimeInterval:
      v->Append<int64_t>(rng.Range(-864000000000000LL, 864000000000000LL));
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      v->Append<int64_t>(rng.Range(-2208988800LL, 4102444800LL) * 1000000LL + rng.Range(0, 999999));
      break;
    case TypeId::kTimestampNanos:
    case TypeId::kTimestampNtzNanos:  // 1900..2100 fits int64 nanoseconds
      v->Append<int64_t>(rng.Range(-2208988800LL, 4102444800LL) * 1000000000LL +
                         rng.Range(0, 999999999));
      break;
    case TypeId::kTime:
      v->Append<int64_t>(rng.Range(0, 86399999999999LL));
      break;
    case TypeId::kCalendarInterval:
      v->Append<int128_t>(PackCalendarInterval({static_cast<int32_t>(rng.Range(-1200, 1200)),
                                                static_cast<int32_t>(rng.Range(-400, 400)),
                                                rng.Range(-86400000000LL, 86400000000LL)}));
      break;
    case TypeId::kStruct: {
      for (size_t c = 0; c < t->fields().size(); ++c)
        Fill(&v->child(c), t->fields()[c].type, t->fields()[c].nullable, 1, rng, o, serial);
      // Count the struct row: children already have it.
      v->Resize(v->size() + 1);
      break;
    }
    case TypeId::kList: {
      size_t n = static_cast<size_t>(rng.Range(0, o.max_list_length));
      Fill(&v->child(0), t->element_type(), t->contains_null(), n, rng, o, serial);
      v->FinishListRow();
      break;
    }
    case TypeId::kMap: {
      size_t n = static_cast<size_t>(rng.Range(0, o.max_list_length));
      for (size_t i = 0; i < n; ++i) {
        // Distinct keys within a map.
        if (t->key_type()->is_binary_like())
          v->child(0).AppendString("k" + std::to_string(i) + "_" +
                                   std::to_string(rng.Next() % 100));
        else
          Fill(&v->child(0), t->key_type(), false, 1, rng, o, serial);
      }
      Fill(&v->child(1), t->value_type(), t->value_contains_null(), n, rng, o, serial);
      v->FinishListRow();
      break;
    }
  }
}

void Fill(Vector* v, const TypePtr& t, bool nullable, size_t rows, Rng& rng,
          const GenerateOptions& o, size_t* serial) {
  for (size_t i = 0; i < rows; ++i) {
    if (nullable && rng.Unit() < o.null_fraction) {
      v->AppendNull();
    } else {
      AppendOne(v, t, rng, o, serial);
    }
  }
}

}  // namespace

DataChunk GenerateData(const Schema& schema, size_t rows, const GenerateOptions& options) {
  DataChunk chunk = DataChunk::FromSchema(schema);
  size_t serial = 0;
  for (size_t c = 0; c < schema.size(); ++c) {
    Rng rng{options.seed * 1000003 + c};
    Vector& v = chunk.columns[c];
    v.Reserve(rows);
    if (schema[c].name == "id" && schema[c].type->id() == TypeId::kInt64) {
      for (size_t i = 0; i < rows; ++i) v.Append<int64_t>(static_cast<int64_t>(i));
      continue;
    }
    Fill(&v, schema[c].type, schema[c].nullable, rows, rng, options, &serial);
  }
  chunk.num_rows_without_columns = rows;
  return chunk;
}

Result<Schema> NamedTestSchema(const std::string& name) {
  auto f = [](std::string n, TypePtr t, bool nullable = true) {
    return Field{std::move(n), std::move(t), nullable, ""};
  };
  Schema flat = {
      f("id", DataType::Int64(), false),
      f("b", DataType::Boolean()),
      f("i8", DataType::Int8()),
      f("i16", DataType::Int16()),
      f("i32", DataType::Int32()),
      f("i64", DataType::Int64()),
      f("f32", DataType::Float()),
      f("f64", DataType::Double()),
      f("dec9", DataType::Decimal(9, 2)),
      f("dec18", DataType::Decimal(18, 4)),
      f("dec38", DataType::Decimal(38, 10)),
      f("s", DataType::String()),
      f("bin", DataType::Binary()),
      f("dt", DataType::Date()),
      f("ts", DataType::Timestamp()),
      f("tsn", DataType::TimestampNtz()),
      f("req_i32", DataType::Int32(), false),
      f("req_s", DataType::String(), false),
  };
  Schema nested = {
      f("id", DataType::Int64(), false),
      f("st", DataType::Struct({f("a", DataType::Int32()), f("b", DataType::String()),
                                f("inner", DataType::Struct({f("x", DataType::Double())}))})),
      f("arr", DataType::List(DataType::Int32())),
      f("arr_req", DataType::List(DataType::String(), false), false),
      f("arr2", DataType::List(DataType::List(DataType::String()))),
      f("m", DataType::Map(DataType::String(), DataType::Int64())),
      f("aos",
        DataType::List(DataType::Struct({f("x", DataType::Int64()), f("y", DataType::String())}))),
      f("moa", DataType::Map(DataType::String(), DataType::List(DataType::Double()))),
      f("st_list", DataType::Struct(
                       {f("tags", DataType::List(DataType::String())), f("n", DataType::Int32())})),
  };
  if (name == "flat") return flat;
  if (name == "nested") return nested;
  if (name == "all") {
    Schema all = flat;
    all.insert(all.end(), nested.begin() + 1, nested.end());
    return all;
  }
  if (name == "int64") return Schema{f("v", DataType::Int64())};
  if (name == "double") return Schema{f("v", DataType::Double())};
  if (name == "dict_string" || name == "plain_string") return Schema{f("v", DataType::String())};
  return Status::NotFound("unknown test schema '" + name +
                          "' (all, flat, nested, int64, double, dict_string, plain_string)");
}

}  // namespace silt
