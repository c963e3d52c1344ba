// Test helpers for the operator tests: a source operator over prepared chunks, column/constant
// expressions, a comparison kernel (until the function library lands), and result extraction.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exec/expression.h"
#include "exec/operator.h"
#include "vector/value.h"
#include "vector/vector.h"

namespace silt::exec::testing {

// Emits the given chunks in order (empty chunks are skipped, as operators never emit them).
class ChunkSource final : public Operator {
 public:
  ChunkSource(Schema schema, std::vector<DataChunk> chunks) : chunks_(std::move(chunks)) {
    schema_ = std::move(schema);
  }
  Result<bool> Next(ExecContext&, DataChunk* out) override {
    while (pos_ < chunks_.size()) {
      const DataChunk& c = chunks_[pos_++];
      if (c.size() == 0) continue;
      *out = c;
      ++pulls_;
      return true;
    }
    return false;
  }
  std::string name() const override { return "ChunkSource"; }
  int pulls() const { return pulls_; }

 private:
  std::vector<DataChunk> chunks_;
  size_t pos_ = 0;
  int pulls_ = 0;
};

// Builds a source from rows of Values (row-major), split into chunks of chunk_rows.
inline std::unique_ptr<ChunkSource> MakeSource(const Schema& schema,
                                               const std::vector<std::vector<Value>>& rows,
                                               size_t chunk_rows = 2048) {
  std::vector<DataChunk> chunks;
  for (size_t b = 0; b < rows.size(); b += chunk_rows) {
    DataChunk c = DataChunk::FromSchema(schema);
    for (size_t r = b; r < std::min(rows.size(), b + chunk_rows); ++r) {
      for (size_t k = 0; k < schema.size(); ++k) {
        Status st = c.columns[k].AppendValue(rows[r][k]);
        EXPECT_TRUE(st.ok()) << st.ToString();
      }
    }
    chunks.push_back(std::move(c));
  }
  return std::make_unique<ChunkSource>(schema, std::move(chunks));
}

// A source of int64 columns given column-major (nullopt-free; use MakeSource for NULLs).
inline std::unique_ptr<ChunkSource> MakeInt64Source(const std::vector<std::vector<int64_t>>& cols,
                                                    size_t chunk_rows = 2048) {
  Schema schema;
  for (size_t k = 0; k < cols.size(); ++k) {
    schema.push_back(Field{"c" + std::to_string(k), DataType::Int64(), true, "{}"});
  }
  size_t n = cols.empty() ? 0 : cols[0].size();
  std::vector<DataChunk> chunks;
  for (size_t b = 0; b < n; b += chunk_rows) {
    DataChunk c = DataChunk::FromSchema(schema);
    size_t e = std::min(n, b + chunk_rows);
    for (size_t k = 0; k < cols.size(); ++k) {
      for (size_t r = b; r < e; ++r) c.columns[k].Append<int64_t>(cols[k][r]);
    }
    chunks.push_back(std::move(c));
  }
  return std::make_unique<ChunkSource>(schema, std::move(chunks));
}

inline Schema Fields(std::vector<std::pair<std::string, TypePtr>> cols) {
  Schema s;
  for (auto& [name, type] : cols) s.push_back(Field{name, type, true, "{}"});
  return s;
}

inline ExprPtr Col(int index, TypePtr type) {
  return MakeColumn(index, std::move(type), "c" + std::to_string(index));
}

// A comparison of two int64 (or int32) expressions: op is "<", "<=", ">", ">=", "=", "<>".
// NULL in → NULL out. Test-only; the binder uses BindScalarFunction.
ExprPtr CompareInt(std::string op, ExprPtr a, ExprPtr b);
// a + b over int64 (NULL in → NULL out).
ExprPtr AddInt64(ExprPtr a, ExprPtr b);

inline Value I64(int64_t v) { return Value::Int64(v); }
inline Value NullI64() { return Value::Null(DataType::Int64()); }
inline Value Str(std::string s) { return Value::String(std::move(s)); }

// Every row of every chunk as a JSON-ish line "[v0,v1,...]".
inline std::vector<std::string> Rows(const std::vector<DataChunk>& chunks) {
  std::vector<std::string> rows;
  for (const DataChunk& c : chunks) {
    for (size_t r = 0; r < c.size(); ++r) {
      std::string s = "[";
      for (size_t k = 0; k < c.columns.size(); ++k) {
        if (k) s += ",";
        s += c.columns[k].GetValue(r).ToJson();
      }
      rows.push_back(s + "]");
    }
  }
  return rows;
}

inline std::vector<std::string> SortedRows(const std::vector<DataChunk>& chunks) {
  std::vector<std::string> rows = Rows(chunks);
  std::sort(rows.begin(), rows.end());
  return rows;
}

inline std::vector<DataChunk> Collect(Operator& op, ExecContext& ctx) {
  std::vector<DataChunk> out;
  while (true) {
    DataChunk c;
    Result<bool> more = op.Next(ctx, &c);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    EXPECT_GT(c.size(), 0u) << "operators must not emit empty chunks";
    EXPECT_EQ(c.columns.size(), op.output_schema().size());
    out.push_back(std::move(c));
  }
  return out;
}

inline Status CollectStatus(Operator& op, ExecContext& ctx) {
  while (true) {
    DataChunk c;
    Result<bool> more = op.Next(ctx, &c);
    if (!more.ok()) return more.status();
    if (!*more) return Status::OK();
  }
}

// Checks that the string column `key_col` of `chunks` is ascending and that rows with equal keys
// keep their input order (the int64 column `id_col`, the input position, increases): a sort's
// output is ordered and stable. Returns the number of rows.
inline size_t ExpectSortedAndStable(const std::vector<DataChunk>& chunks, size_t key_col,
                                    size_t id_col) {
  std::string prev;
  int64_t prev_id = -1;
  size_t n = 0;
  for (const DataChunk& c : chunks) {
    for (size_t r = 0; r < c.size(); ++r, ++n) {
      std::string key(c.columns[key_col].GetString(r));
      int64_t id = c.columns[id_col].data<int64_t>()[r];
      EXPECT_LE(prev, key) << "row " << n;
      if (key == prev) {
        EXPECT_GT(id, prev_id) << "row " << n;
      }
      if (::testing::Test::HasFailure()) return n;
      prev = std::move(key);
      prev_id = id;
    }
  }
  return n;
}

}  // namespace silt::exec::testing
