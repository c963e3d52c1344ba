// Helpers for the maintenance-service tests: a warehouse in a named in-memory store with a
// ManualClock, SQL through the public API to build tables, the service run on it, and readers of
// DESCRIBE HISTORY and the operations-history table.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "delta/operations_history.h"
#include "io/object_store_factory.h"
#include "maintenance/service.h"
#include "silt/silt.h"
#include "support/forwarding_object_store.h"

namespace silt::maintenance::testing {

// 2026-01-01T00:00:00Z.
inline constexpr int64_t kNow = 1767225600000;
inline constexpr int64_t kDayMs = 86400LL * 1000;

// A store that forwards to `inner` and calls `before_commit` once before the first PutIfAbsent of
// a commit file (_delta_log/<v>.json) — where a concurrent writer can slip in its own commit.
class InterceptingStore final : public ForwardingObjectStore {
 public:
  InterceptingStore(std::shared_ptr<ObjectStore> inner, std::function<void()> before_commit)
      : ForwardingObjectStore(std::move(inner)), before_commit_(std::move(before_commit)) {}
  Status PutIfAbsent(const std::string& key, std::string_view data) override {
    if (key.rfind("_delta_log/", 0) == 0 && key.size() > 5 &&
        key.compare(key.size() - 5, 5, ".json") == 0 && !fired_.exchange(true)) {
      before_commit_();
    }
    return inner().PutIfAbsent(key, data);
  }

 private:
  std::function<void()> before_commit_;
  std::atomic<bool> fired_{false};
};

class MaintenanceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    name_ = "maint_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    warehouse_ = "memory://" + name_;
    clock_ = std::make_shared<ManualClock>(kNow);
    DatabaseOptions o;
    o.warehouse = warehouse_;
    o.clock = clock_;
    o.threads = 1;
    o.tune_allocator = false;
    auto db = Database::Open(o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
    Sql("SET spark.sql.session.timeZone = UTC");
  }
  void TearDown() override {
    con_.reset();
    db_.reset();
    DropMemoryStore(name_);
  }

  std::unique_ptr<QueryResult> Sql(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok()) return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
    return std::move(*r);
  }
  // Rows as "a|b|c" strings, in result order.
  std::vector<std::string> Rows(const std::string& sql) {
    std::vector<std::string> out;
    auto r = Sql(sql);
    for (size_t i = 0; i < r->num_rows(); ++i) {
      std::string s;
      auto row = r->Row(i);
      for (size_t k = 0; k < row.size(); ++k) s += (k ? "|" : "") + row[k].ToString();
      out.push_back(s);
    }
    return out;
  }
  int64_t Count(const std::string& sql) {
    auto r = Sql(sql);
    if (r->num_rows() != 1) return -1;
    return r->Row(0)[0].integer();
  }
  // DESCRIBE HISTORY's column `column`, oldest first.
  std::vector<std::string> HistoryColumn(const std::string& table, const std::string& column) {
    auto r = Sql("DESCRIBE HISTORY " + table);
    size_t col = 0;
    for (size_t i = 0; i < r->schema().size(); ++i) {
      if (r->schema()[i].name == column) col = i;
    }
    std::vector<std::string> out;
    for (size_t i = r->num_rows(); i-- > 0;) out.push_back(r->Row(i)[col].ToString());
    return out;
  }
  std::vector<std::string> Operations(const std::string& table) {
    return HistoryColumn(table, "operation");
  }

  std::string TableLocation(const std::string& name) { return warehouse_ + "/" + name; }
  std::shared_ptr<ObjectStore> TableStore(const std::string& name) {
    auto s = OpenObjectStore(TableLocation(name), clock_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }

  MaintenanceConfig Config() {
    MaintenanceConfig c;
    c.routine_jobs = false;
    c.wait = [this](int64_t ms) { clock_->AdvanceMillis(ms); };
    c.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> g(log_mu_);
      log_.push_back(line);
    };
    return c;
  }
  // One pass over every warehouse table.
  PassReport Pass(MaintenanceConfig config) {
    MaintenanceService service(warehouse_, clock_, std::move(config));
    auto tables = service.WarehouseTables();
    EXPECT_TRUE(tables.ok()) << tables.status().ToString();
    auto report = service.RunPass(tables.ok() ? *tables : std::vector<MaintainedTable>{});
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : PassReport{};
  }
  PassReport Pass() { return Pass(Config()); }

  // The operations-history table, read with SQL: "operation_type|operation_status" per row.
  std::string HistoryTable() const {
    return "delta.`" + warehouse_ + "/" + delta::kOperationsHistoryKey + "`";
  }

  std::string name_, warehouse_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

// Operation types of a report, in order.
inline std::vector<std::string> OpTypes(const PassReport& r) {
  std::vector<std::string> out;
  for (const auto& op : r.operations) out.push_back(op.operation_type + ":" + op.operation_status);
  return out;
}

inline std::string Metric(const OperationRecord& r, const std::string& key) {
  for (const auto& [k, v] : r.metrics) {
    if (k == key) return v;
  }
  return "<none>";
}

}  // namespace silt::maintenance::testing
