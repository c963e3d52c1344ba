// A Delta table for VACUUM tests: files written straight into an ObjectStore (InMemory with a
// ManualClock, or Local in a temp dir with mtimes set by utimensat) and committed as add/remove/
// cdc actions through the kernel's Transaction, as Delta's DeltaVacuumSuite does with its
// "CreateFile / LogicallyDeleteFile / AdvanceClock" steps.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_object_store.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"
#include "io/path.h"
#include "ops/vacuum.h"
#include "support/fault_injecting_object_store.h"
#include "support/wall_clock.h"

namespace silt::ops::testing {

inline constexpr int64_t kT0 = 1700000000000;  // 2023-11-14T22:13:20Z
inline constexpr int64_t kHour = 3600LL * 1000;
inline constexpr int64_t kDay = 24 * kHour;

inline Schema TwoColumnSchema() {
  return {Field{"id", DataType::Int64(), true, "{}"}, Field{"v", DataType::String(), true, "{}"}};
}

class VacuumTable {
 public:
  // In memory (mtimes from the clock).
  VacuumTable() : clock_(std::make_shared<ManualClock>(kT0)) {
    store_ = std::make_shared<InMemoryObjectStore>(clock_);
  }
  // On local disk below `dir` (mtimes set explicitly from the clock).
  explicit VacuumTable(const std::string& dir) : clock_(std::make_shared<ManualClock>(kT0)) {
    local_root_ = dir;
    store_ = std::make_shared<LocalObjectStore>(dir);
  }

  std::shared_ptr<ManualClock> clock() const { return clock_; }
  std::shared_ptr<ObjectStore> store() const { return store_; }
  void set_store(std::shared_ptr<ObjectStore> s) { store_ = std::move(s); }
  const std::string& local_root() const { return local_root_; }

  delta::TransactionOptions TxnOptions() const {
    delta::TransactionOptions o = WallTxn();
    o.clock = clock_;
    o.post_commit_hooks = false;
    return o;
  }

  // CREATE TABLE (id BIGINT, v STRING, + partition columns as STRING).
  void Create(delta::StringMap properties = {}, std::vector<std::string> partition_columns = {},
              delta::Protocol* protocol = nullptr) {
    Schema schema = TwoColumnSchema();
    for (const auto& p : partition_columns)
      schema.push_back(Field{p, DataType::String(), true, "{}"});
    delta::CreateTableOptions o = WallCreate();
    o.partition_columns = partition_columns;
    o.properties = std::move(properties);
    o.txn = TxnOptions();
    o.write.clock = clock_;
    if (protocol == nullptr) {
      auto r = delta::CreateTable(store_, schema, {}, o);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      return;
    }
    // A hand-made protocol (features silt may not support): commit version 0 directly.
    delta::Metadata md;
    md.id = "00000000-0000-4000-8000-00000000000a";
    md.schema_string =
        R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
    md.configuration = o.properties;
    md.created_time = clock_->NowMillis();
    delta::CommitInfo ci;
    ci.timestamp = clock_->NowMillis();
    ci.operation = "CREATE TABLE";
    ASSERT_TRUE(
        store_->PutIfAbsent(delta::CommitKey(0), delta::SerializeCommit({ci, *protocol, md})).ok());
  }

  // Writes a file with the clock's time as modification time (or `mtime`).
  void Write(const std::string& key, std::string_view data = "123456789",
             std::optional<int64_t> mtime = std::nullopt) {
    ASSERT_TRUE(store_->Put(key, data).ok()) << key;
    SetMtime(key, mtime.value_or(clock_->NowMillis()));
  }
  void SetMtime(const std::string& key, int64_t mtime) {
    if (auto* mem = dynamic_cast<InMemoryObjectStore*>(Inner())) {
      ASSERT_TRUE(mem->SetModificationTime(key, mtime).ok()) << key;
      return;
    }
    struct timespec ts[2];
    ts[0].tv_sec = ts[1].tv_sec = mtime / 1000;
    ts[0].tv_nsec = ts[1].tv_nsec = (mtime % 1000) * 1000000;
    ASSERT_EQ(::utimensat(AT_FDCWD, (local_root_ + "/" + key).c_str(), ts, 0), 0) << key;
  }
  // A directory on local disk (InMemory stores have none).
  void MakeDir(const std::string& key) {
    std::filesystem::create_directories(local_root_ + "/" + key);
  }

  std::shared_ptr<const delta::Snapshot> Latest() {
    auto s = delta::Snapshot::Load(store_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }
  int64_t Version() { return Latest()->version(); }

  delta::AddFile AddAction(const std::string& log_path, int64_t size = 9) {
    delta::AddFile a;
    a.path = log_path;
    a.size = size;
    a.modification_time = clock_->NowMillis();
    a.data_change = true;
    auto snapshot = Latest();
    for (const auto& col : snapshot->partition_columns()) {
      // Partition values from the path (tests name partitioned files "<col>=<value>/...").
      size_t at = log_path.find(col + "=");
      if (at == std::string::npos) continue;
      size_t end = log_path.find('/', at);
      a.partition_values.Append(col,
                                log_path.substr(at + col.size() + 1, end - at - col.size() - 1));
    }
    return a;
  }

  void CommitActions(std::vector<delta::AddFile> adds, std::vector<delta::RemoveFile> removes = {},
                     std::vector<delta::AddCDCFile> cdcs = {}, const std::string& op = "WRITE") {
    delta::Transaction txn(store_, Latest(), TxnOptions());
    txn.SetOperation(op);
    for (auto& a : adds) txn.Add(std::move(a));
    for (auto& r : removes) txn.Remove(std::move(r));
    auto r = txn.Commit();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (!cdcs.empty()) {
      // Transaction has no cdc actions: append them to the commit file just written.
      std::string bytes = *store_->Get(delta::CommitKey(r->version));
      std::vector<delta::Action> extra(cdcs.begin(), cdcs.end());
      bytes += delta::SerializeCommit(extra);
      ASSERT_TRUE(store_->Put(delta::CommitKey(r->version), bytes).ok());
    }
  }

  // Spark suite's CreateFile(path, commit = true): writes the key and commits an add for it
  // (log path percent-encoded unless `log_path` is given).
  void AddFileCommitted(const std::string& key,
                        std::optional<std::string> log_path = std::nullopt) {
    Write(key);
    CommitActions({AddAction(log_path.value_or(ToDeltaPath(key)))});
  }
  // LogicallyDeleteFile: a remove with deletionTimestamp = now.
  void Remove(const std::string& key, std::optional<std::string> log_path = std::nullopt) {
    CommitActions({}, {RemoveAction(log_path.value_or(ToDeltaPath(key)))});
  }
  delta::RemoveFile RemoveAction(const std::string& log_path, int64_t size = 9) {
    delta::RemoveFile r;
    r.path = log_path;
    r.deletion_timestamp = clock_->NowMillis();
    r.data_change = true;
    r.size = size;
    return r;
  }

  bool Exists(const std::string& key) {
    if (!local_root_.empty()) return std::filesystem::exists(local_root_ + "/" + key);
    return store_->Head(key).ok();
  }

  VacuumOptions Options(std::optional<double> retain_hours = std::nullopt, bool dry_run = false) {
    VacuumOptions o;
    o.retain_hours = retain_hours;
    o.dry_run = dry_run;
    o.clock = clock_;
    o.retention_check_enabled = false;  // the suite's convention; tests of the check turn it on
    return o;
  }
  Result<VacuumResult> Run(VacuumOptions o) { return Vacuum(store_, std::move(o)); }
  VacuumResult RunOk(VacuumOptions o) {
    auto r = Vacuum(store_, std::move(o));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.MoveValue() : VacuumResult{};
  }
  // Keys of a dry run's candidates.
  std::vector<std::string> DryRunKeys(std::optional<double> retain_hours = std::nullopt,
                                      VacuumMode mode = VacuumMode::kFull) {
    VacuumOptions o = Options(retain_hours, true);
    o.mode = mode;
    VacuumResult r = RunOk(o);
    std::vector<std::string> keys;
    for (const auto& c : r.candidates) keys.push_back(c.key);
    return keys;
  }

 private:
  ObjectStore* Inner() {
    if (auto* f = dynamic_cast<FaultInjectingObjectStore*>(store_.get())) return &f->inner();
    return store_.get();
  }

  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<ObjectStore> store_;
  std::string local_root_;
};

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-vacuum-XXXXXX").string();
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
