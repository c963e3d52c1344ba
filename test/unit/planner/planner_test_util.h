// A warehouse of small Delta tables (made through the public API) and a Binder over its catalog,
// for the planner's unit tests: bind a query, optimize it, look at the plan's nodes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "planner/binder.h"
#include "planner/catalog.h"
#include "planner/optimizer.h"
#include "planner/session_config.h"
#include "silt/silt.h"
#include "sql/parser.h"

namespace silt::planner {

class PlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-planner-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    clock_ = std::make_shared<ManualClock>(1700000000000);
    DatabaseOptions opts;
    opts.warehouse = dir_ + "/wh";
    opts.clock = clock_;
    opts.threads = 1;
    auto db = Database::Open(opts);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    con_ = std::make_unique<Connection>(db_);
    auto catalog = Catalog::Open(opts.warehouse, clock_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = *catalog;
  }
  void TearDown() override {
    binder_.reset();
    con_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Run(const std::string& sql) {
    auto r = con_->Query(sql);
    ASSERT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
  }

  Binder& binder() {
    BinderContext ctx;
    ctx.catalog = catalog_.get();
    ctx.config = &config_;
    ctx.clock = clock_;
    ctx.eval.now_micros = clock_->NowMicros();
    ctx.execute = [](const PlanPtr&) -> Result<std::vector<DataChunk>> {
      return Status::NotImplemented("no execution in planner unit tests", "NOT_IMPLEMENTED");
    };
    binder_ = std::make_unique<Binder>(std::move(ctx));
    return *binder_;
  }

  // The bound (unoptimized) plan of a SELECT.
  Result<PlanPtr> Bind(const std::string& sql) {
    SILT_ASSIGN_OR_RETURN(sql::StatementNode stmt, sql::ParseStatement(sql));
    if (stmt->kind != sql::StatementKind::kQuery)
      return Status::InvalidArgument("not a query: " + sql);
    return binder().BindQuery(*static_cast<const sql::QueryStatement&>(*stmt).query);
  }

  Result<PlanPtr> BindAndOptimize(const std::string& sql, bool stats_skipping = true) {
    SILT_ASSIGN_OR_RETURN(PlanPtr plan, Bind(sql));
    OptimizerOptions opt;
    opt.stats_skipping = stats_skipping;
    return Optimize(plan, opt);
  }

  // The nodes of `plan` of a kind, in pre-order.
  static std::vector<const LogicalNode*> Find(const PlanPtr& plan, LogicalKind kind) {
    std::vector<const LogicalNode*> out;
    std::function<void(const LogicalNode&)> walk = [&](const LogicalNode& n) {
      if (n.kind == kind) out.push_back(&n);
      for (const auto& c : n.children) walk(*c);
    };
    walk(*plan);
    return out;
  }

  std::string dir_;
  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Connection> con_;
  std::shared_ptr<Catalog> catalog_;
  SessionConfig config_;
  std::unique_ptr<Binder> binder_;
};

}  // namespace silt::planner
