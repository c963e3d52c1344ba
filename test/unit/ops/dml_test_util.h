// Helpers for the DML tests: small tables in memory (manual clock) or on disk, row builders,
// matchers over the `id` column and read-back through Snapshot + TableScan.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "ops/dml.h"
#include "support/wall_clock.h"

namespace silt::ops::testing {

inline constexpr int64_t kT0 = 1700000000000;

struct Row {
  std::optional<int64_t> id;
  std::optional<std::string> v;
  std::optional<std::string> p;  // partition column (ignored for unpartitioned tables)
};

// (id BIGINT, v STRING[, p STRING]).
inline Schema RowSchema(bool partitioned) {
  Schema s{Field{"id", DataType::Int64(), true, "{}"}, Field{"v", DataType::String(), true, "{}"}};
  if (partitioned) s.push_back(Field{"p", DataType::String(), true, "{}"});
  return s;
}

inline DataChunk MakeRows(const std::vector<Row>& rows, bool partitioned) {
  DataChunk c = DataChunk::FromSchema(RowSchema(partitioned));
  for (const Row& r : rows) {
    r.id ? c.columns[0].Append<int64_t>(*r.id) : c.columns[0].AppendNull();
    r.v ? c.columns[1].AppendString(*r.v) : c.columns[1].AppendNull();
    if (partitioned) r.p ? c.columns[2].AppendString(*r.p) : c.columns[2].AppendNull();
  }
  return c;
}

// Rows of a table as sorted "id|v[|p]" strings (NULL for nulls).
inline std::vector<std::string> ReadRows(std::shared_ptr<ObjectStore> store,
                                         std::optional<int64_t> version = std::nullopt) {
  std::vector<std::string> out;
  auto snap = delta::Snapshot::Load(store, version);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  if (!snap.ok()) return out;
  auto scan = delta::TableScan::Make(*snap);
  EXPECT_TRUE(scan.ok());
  DataChunk c;
  while (true) {
    auto more = (*scan)->Next(&c);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t i = 0; i < c.size(); ++i) {
      std::string s;
      for (size_t k = 0; k < c.columns.size(); ++k) {
        if (k) s += "|";
        s += c.columns[k].GetValue(i).ToString();
      }
      out.push_back(s);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Indexes of rows whose column `col` (BIGINT) is non-NULL and satisfies `pred`: the SQL
// semantics of a predicate (NULL is not TRUE).
inline RowMatcher MatchInt(size_t col, std::function<bool(int64_t)> pred) {
  return [col, pred](const DataChunk& rows) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> out;
    const Vector& v = rows.columns[col];
    for (size_t i = 0; i < rows.size(); ++i) {
      if (v.IsValid(i) && pred(v.Get<int64_t>(i))) out.push_back(static_cast<uint32_t>(i));
    }
    return out;
  };
}

// A file filter on the partition value of `p`: kAll for `value`, kSkip for the rest.
inline FileFilter PartitionIs(std::string value) {
  return [value](const delta::AddFile& f) -> Result<FileVerdict> {
    const auto* pv = f.partition_values.Find("p");
    return pv && *pv && **pv == value ? FileVerdict::kAll : FileVerdict::kSkip;
  };
}
// kMaybe inside partition `value`, kSkip elsewhere.
inline FileFilter InPartition(std::string value) {
  return [value](const delta::AddFile& f) -> Result<FileVerdict> {
    const auto* pv = f.partition_values.Find("p");
    return pv && *pv && **pv == value ? FileVerdict::kMaybe : FileVerdict::kSkip;
  };
}

class DmlTable {
 public:
  explicit DmlTable(std::shared_ptr<ObjectStore> store = nullptr)
      : clock_(std::make_shared<ManualClock>(kT0)) {
    store_ = store ? std::move(store) : std::make_shared<InMemoryObjectStore>(clock_);
  }
  std::shared_ptr<ObjectStore> store() const { return store_; }
  std::shared_ptr<ManualClock> clock() const { return clock_; }

  delta::TransactionOptions TxnOptions() const {
    delta::TransactionOptions o = WallTxn();
    o.clock = clock_;
    o.post_commit_hooks = false;
    return o;
  }
  DmlOptions Options() const {
    DmlOptions o;
    o.clock = clock_;
    o.txn = TxnOptions();
    return o;
  }

  void Create(const std::vector<Row>& rows, bool partitioned, bool dvs,
              delta::StringMap extra_properties = {}) {
    partitioned_ = partitioned;
    delta::CreateTableOptions o = WallCreate();
    if (partitioned) o.partition_columns = {"p"};
    if (dvs) o.properties.Set("delta.enableDeletionVectors", "true");
    for (const auto& [k, v] : extra_properties.entries()) o.properties.Set(k, v);
    o.txn = TxnOptions();
    o.write.clock = clock_;
    std::vector<DataChunk> chunks;
    if (!rows.empty()) chunks.push_back(MakeRows(rows, partitioned));
    auto r = delta::CreateTable(store_, RowSchema(partitioned), chunks, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // One blind append (one file per partition).
  void Append(const std::vector<Row>& rows) {
    delta::DataWriteOptions w = WallWrite();
    w.clock = clock_;
    auto r = delta::AppendRows(store_, {MakeRows(rows, partitioned_)}, w, TxnOptions());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::shared_ptr<const delta::Snapshot> Latest(std::shared_ptr<ObjectStore> via = nullptr) {
    auto s = delta::Snapshot::Load(via ? via : store_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }
  bool partitioned() const { return partitioned_; }

 private:
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<ObjectStore> store_;
  bool partitioned_ = false;
};

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-dml-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace silt::ops::testing
