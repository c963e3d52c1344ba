// Helpers for the aggregate / set-operator tests: an operator over fixed chunks, column builders
// and result collection as sorted row strings.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exec/operator.h"
#include "support/collect.h"
#include "vector/value.h"
#include "vector/vector.h"

namespace silt::exec::aggtest {

// Yields the given chunks in order.
class ChunkSource : public Operator {
 public:
  ChunkSource(Schema schema, std::vector<DataChunk> chunks) : chunks_(std::move(chunks)) {
    schema_ = std::move(schema);
  }
  Result<bool> Next(ExecContext&, DataChunk* out) override {
    while (next_ < chunks_.size() && chunks_[next_].size() == 0) ++next_;
    if (next_ >= chunks_.size()) return false;
    *out = chunks_[next_++];
    return true;
  }
  std::string name() const override { return "ChunkSource"; }

 private:
  std::vector<DataChunk> chunks_;
  size_t next_ = 0;
};

inline Vector Col(TypePtr type, const std::vector<Value>& values) {
  Vector v(std::move(type));
  for (const Value& x : values) {
    Status s = v.AppendValue(x);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return v;
}

inline Value I32(int32_t v) { return Value::Int32(v); }
inline Value I64(int64_t v) { return Value::Int64(v); }
inline Value Dbl(double v) { return Value::Double(v); }
inline Value Str(std::string s) { return Value::String(std::move(s)); }
inline Value Dec(int p, int s, int128_t u) { return Value::Decimal(p, s, u); }
inline Value Bool(bool b) { return Value::Boolean(b); }
inline Value Null(TypePtr t) { return Value::Null(std::move(t)); }

inline DataChunk Chunk(std::vector<Vector> cols) {
  DataChunk c;
  c.columns = std::move(cols);
  return c;
}

inline Schema SchemaOf(const DataChunk& c) {
  Schema s;
  for (size_t i = 0; i < c.columns.size(); ++i) {
    s.push_back(Field{"c" + std::to_string(i), c.columns[i].type(), true, ""});
  }
  return s;
}

// Splits a chunk into pieces of at most `rows` rows.
inline std::vector<DataChunk> Split(const DataChunk& c, size_t rows) {
  std::vector<DataChunk> out;
  for (size_t off = 0; off < c.size(); off += rows) {
    DataChunk part;
    size_t n = std::min(rows, c.size() - off);
    for (const Vector& v : c.columns) {
      part.columns.emplace_back(v.type());
      part.columns.back().AppendRange(v, off, n);
    }
    out.push_back(std::move(part));
  }
  return out;
}

inline std::string RowString(const DataChunk& c, size_t i) {
  std::string s;
  for (size_t k = 0; k < c.columns.size(); ++k) {
    if (k) s += "|";
    s += c.columns[k].GetValue(i).ToJson();
  }
  return s;
}

// Every output row as "v1|v2|..." (JSON values), sorted.
inline std::vector<std::string> SortedRows(Operator& op, ExecContext& ctx,
                                           Status* status = nullptr) {
  std::vector<std::string> rows;
  auto chunks = CollectAll(op, ctx);
  if (status) *status = chunks.ok() ? Status::OK() : chunks.status();
  if (!chunks.ok()) {
    if (!status) ADD_FAILURE() << chunks.status().ToString();
    return rows;
  }
  for (const DataChunk& c : *chunks) {
    for (size_t i = 0; i < c.size(); ++i) rows.push_back(RowString(c, i));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace silt::exec::aggtest
