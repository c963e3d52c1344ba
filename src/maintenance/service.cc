#include "maintenance/service.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <utility>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/actions.h"
#include "delta/auto_ttl.h"
#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/log_cleanup.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/table_properties.h"
#include "delta/z85.h"
#include "io/object_store_factory.h"
#include "maintenance/expiry.h"
#include "maintenance/state.h"
#include "ops/dml.h"
#include "ops/optimize.h"
#include "ops/vacuum.h"
#include "planner/catalog.h"

namespace silt::maintenance {

std::string MaintainedTable::DisplayName() const {
  if (schema_name.empty()) return table_name.empty() ? location : table_name;
  return schema_name + "." + table_name;
}

class MaintenanceService::TableRun {
 public:
  TableRun(MaintenanceService* svc, const MaintainedTable& table, PassReport* report)
      : svc_(svc), cfg_(svc->config_), table_(table), report_(report) {}

  // Runs every due job of the table; the records go to records_.
  Status Run();
  std::vector<OperationRecord>& records() { return records_; }
  // Run() left the table's VACUUM for the end of the pass (it becomes due within
  // kDeferVacuumWindowMs) and still holds the lease.
  bool deferred() const { return deferred_; }
  // At the end of the pass: the deferred VACUUM when it is due by now, then the lease released.
  Status FinishDeferred();

 private:
  struct Op {
    OperationRecord record;
    double cpu0 = 0;
    bool remote = false;  // ran on the remote executor
  };
  Op Begin(const char* type) {
    Op op;
    op.record.start_ms = svc_->clock_->NowMillis();
    op.record.catalog_name = table_.catalog_name;
    op.record.schema_name = table_.schema_name;
    op.record.table_name = table_.table_name.empty() ? table_.location : table_.table_name;
    op.record.table_id = table_id_;
    op.record.operation_type = type;
    op.record.operation_id = delta::Uuid::Random().ToString();
    op.cpu0 = ProcessCpuSeconds();
    return op;
  }
  void Finish(Op* op, const Status& st, int retries) {
    OperationRecord& r = op->record;
    r.end_ms = svc_->clock_->NowMillis();
    r.cpu_seconds = std::max(0.0, ProcessCpuSeconds() - op->cpu0);
    r.metrics.emplace_back("retries", std::to_string(retries));
    if (cfg_.remote) r.metrics.emplace_back("executor", op->remote ? cfg_.remote->name : "local");
    if (!st.ok()) {
      r.operation_status = kStatusFailed;
      r.metrics.emplace_back("error_class", std::string(st.error_class()));
      r.metrics.emplace_back("error_message", std::string(st.message()));
    }
    std::string line = table_.DisplayName() + " " + r.operation_type + " " + r.operation_status;
    for (const auto& [k, v] : r.metrics) {
      if (k == "error_message") continue;
      line += " " + k + "=" + v;
    }
    if (!st.ok()) line += " error=" + st.ToString();
    Log(line);
    records_.push_back(r);
  }
  void Log(const std::string& line) const {
    if (cfg_.log) cfg_.log(line);
  }
  void Skip(const std::string& reason) {
    report_->skipped.push_back(table_.DisplayName() + ": " + reason);
    Log(table_.DisplayName() + " skipped: " + reason);
  }

  Result<std::shared_ptr<const delta::Snapshot>> Latest() {
    delta::SnapshotOptions so;
    so.read_confinement = svc_->read_confinement_;
    return delta::Snapshot::Load(store_, std::nullopt, so);
  }

  // Runs `attempt` until it succeeds, fails with something other than a commit conflict, or
  // max_retries retries are used up. *retries: how many retries ran.
  template <typename T, typename F>
  Result<T> WithRetries(F&& attempt, int* retries) {
    for (int i = 0;; ++i) {
      Result<T> r = attempt();
      if (r.ok() || r.status().code() != StatusCode::kCommitConflict || i >= max_retries_) {
        *retries = i;
        return r;
      }
      Log(table_.DisplayName() + " conflict with a concurrent commit, retry " +
          std::to_string(i + 1) + ": " + r.status().ToString());
      if (cfg_.wait) cfg_.wait(cfg_.retry_backoff_ms << std::min(i, 20));
    }
  }

  std::string Tag(const char* trigger, const std::string& run_id) const {
    return CommitTag(trigger, run_id);
  }
  Status SaveStateIfChanged();
  Status Recover(const delta::Snapshot& snap);
  // Whether the table may have work: false only when, read without the lease, no TTL cycle is
  // under way (after recovery from history), nothing is expired and no routine job is due.
  Result<bool> MayHaveWork();
  // MayHaveWork's look-ahead: the state it loaded, the state recovered from it, and Recover's log
  // lines (written once the leased run adopts that recovery).
  TableState ahead_loaded_, ahead_recovered_;
  std::vector<std::string> ahead_log_;
  bool quiet_ = false;  // Recover's lines go to ahead_log_
  Result<TableState> LoadAndUpgradeState();
  void RecoveryLog(const std::string& line) {
    if (quiet_) {
      ahead_log_.push_back(line);
    } else {
      Log(line);
    }
  }
  // OPTIMIZE / REORG PURGE with `o`: its bins rewritten by the remote executor when the table
  // goes remote, else here.
  Result<ops::OptimizeResult> Optimize(const ops::OptimizeOptions& o);
  Status TtlJobs();
  Status TtlDelete(const delta::AutoTtlPolicy& policy);
  Status Purge();
  Status VacuumStep();
  Status RoutineJobs();
  // Releases the lease; a non-OK `st` (an error outside a recorded step) becomes a FAILED row.
  void Close(Status st);
  // How long the step waited after it became due (step_delay_ms); beyond
  // silt.autottl.maxDelayPerStep the log line says ALERT (the SLO of spec A.6).
  void RecordDelay(Op* op, int64_t due_ms) {
    if (due_ms < 0) return;
    const int64_t delay = std::max<int64_t>(0, now_ - due_ms);
    op->record.metrics.emplace_back("step_delay_ms", std::to_string(delay));
    if (delay > max_delay_ms_) {
      Log(table_.DisplayName() + " ALERT " + op->record.operation_type + " ran " +
          std::to_string(delay) + " ms after it was due (" + kPropMaxDelayPerStep + " = " +
          std::to_string(max_delay_ms_) + " ms)");
    }
  }
  // Whether this run still holds the table's lease (always true in a dry run, which takes none).
  Result<bool> LeaseHeld() {
    if (!lease_) return true;
    SILT_ASSIGN_OR_RETURN(bool held, svc_->leases_->CheckAndRenew(*store_, &*lease_));
    if (!held) Skip("the lease expired during the run");
    return held;
  }
  // Derives phase and vacuum_due_ms from dv_files and unvacuumed_ms (state.h).
  void Normalize(TableState* s) const {
    if (!s->dv_files.empty()) {
      s->phase = TtlPhase::kPurgeDue;
    } else if (!s->unvacuumed_ms.empty()) {
      s->phase = TtlPhase::kVacuumDue;
    } else {
      const int64_t seen = s->last_seen_version;
      *s = TableState{};  // the cycle is over
      s->last_seen_version = seen;
      return;
    }
    s->vacuum_due_ms = s->unvacuumed_ms.empty()
                           ? -1
                           : *std::min_element(s->unvacuumed_ms.begin(), s->unvacuumed_ms.end()) +
                                 retention_ms_ + 1;
  }
  // Forgets the remove times a VACUUM whose cutoff (its now − retention) was `cutoff_ms` has
  // covered: VACUUM deletes the files removed strictly before its cutoff, so an entry at or after
  // it stays (its files are still on disk).
  // `covered_version`: the newest commit the VACUUM covered (LITE: the watermark it recorded,
  // -1 when none; FULL: every commit). An entry of a later commit stays: the next LITE run reads
  // that commit. (ops::Vacuum's LITE never records a watermark past a commit whose removes it
  // kept as too young, so no such commit is left behind and no FULL run is needed for it.)
  static void Vacuumed(TableState* s, int64_t cutoff_ms, int64_t covered_version) {
    s->unvacuumed_versions.resize(s->unvacuumed_ms.size(), -1);
    std::vector<int64_t> ms, versions;
    for (size_t i = 0; i < s->unvacuumed_ms.size(); ++i) {
      const int64_t t = s->unvacuumed_ms[i], v = s->unvacuumed_versions[i];
      const bool in_window = v < 0 || v <= covered_version;
      if (t < cutoff_ms && in_window) continue;
      ms.push_back(t);
      versions.push_back(v);
    }
    s->unvacuumed_ms = std::move(ms);
    s->unvacuumed_versions = std::move(versions);
  }
  static void AddUnvacuumed(TableState* s, int64_t ms, int64_t version) {
    s->unvacuumed_versions.resize(s->unvacuumed_ms.size(), -1);
    s->unvacuumed_ms.push_back(ms);
    s->unvacuumed_versions.push_back(version);
  }
  // A PURGE of the cycle whose DELETE committed at `delete_time_ms` committed at `purge_ms`: the
  // cycle's removes are vacuumed together, at the PURGE's time + the retention (one entry per
  // cycle). Two entries ms apart would let a VACUUM whose cutoff falls between them run: it
  // deletes the DELETE's files but not the PURGE's, while VACUUM LITE's watermark may already pass
  // the REORG commit (its commit time at or before the cutoff), so no later LITE run sees them.
  static void Purged(TableState* s, int64_t purge_ms, int64_t purge_version) {
    s->unvacuumed_versions.resize(s->unvacuumed_ms.size(), -1);
    for (size_t i = 0; i < s->unvacuumed_ms.size(); ++i) {
      const bool is_delete = s->unvacuumed_versions[i] >= 0
                                 ? s->unvacuumed_versions[i] == s->delete_version
                                 : s->unvacuumed_ms[i] == s->delete_time_ms;
      if (is_delete) {
        s->unvacuumed_ms.erase(s->unvacuumed_ms.begin() + static_cast<std::ptrdiff_t>(i));
        s->unvacuumed_versions.erase(s->unvacuumed_versions.begin() +
                                     static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    AddUnvacuumed(s, std::max(purge_ms, s->delete_time_ms), purge_version);
  }
  // The entry time of a maintenance commit that ended (by the clock) at `end_ms`: with a short
  // retention also not before the commit's time as VACUUM LITE's listing of the log sees it (a
  // non-ICT commit time is the file's mtime made increasing, which can be a few ms ahead of the
  // clock); a long retention makes those ms irrelevant, and the listing is skipped.
  Result<int64_t> EntryTime(int64_t end_ms, std::optional<int64_t> version) {
    if (!version || retention_ms_ >= kShortRetentionMs) return end_ms;
    SILT_ASSIGN_OR_RETURN(delta::IctConfig ict, delta::IctConfigOf(snap_->metadata(), *store_));
    // A non-ICT commit time depends on the ones before it (each later than the previous): 100
    // commits back is where a run of commits within one ms would have to start to matter.
    SILT_ASSIGN_OR_RETURN(
        std::vector<delta::CommitEntry> commits,
        delta::ListCommits(*store_, std::max<int64_t>(0, *version - 100), false, &ict));
    for (const delta::CommitEntry& c : commits)
      if (c.version == *version) return std::max(end_ms, c.timestamp_ms);
    return end_ms;
  }
  static constexpr int64_t kShortRetentionMs = 3600LL * 1000;
  // A table whose configuration is invalid: one FAILED row (the error's class), nothing runs.
  Status Misconfigured(const Status& st) {
    Op op = Begin("MAINTENANCE");
    Finish(&op, st, 0);
    return Status::OK();
  }
  void Failed() {
    state_.failures++;
    state_.next_attempt_ms = now_ + (cfg_.retry_backoff_ms << std::min(state_.failures - 1, 20));
  }

  MaintenanceService* svc_;
  const MaintenanceConfig& cfg_;
  MaintainedTable table_;
  PassReport* report_;
  std::vector<OperationRecord> records_;
  std::shared_ptr<ObjectStore> store_;
  std::shared_ptr<const delta::Snapshot> snap_;
  std::string table_id_;
  int64_t now_ = 0;
  int max_retries_ = 3;
  int64_t retention_ms_ = 0;
  int64_t max_delay_ms_ = 3 * 86400LL * 1000;
  TableState state_, saved_state_;
  std::optional<Lease> lease_;
  bool deferred_ = false;
  bool snap_is_latest_ = true;  // snap_ is the latest unless a step of this run committed since
  // The table's jobs run on cfg_.remote (its live data files exceed the executor's threshold).
  bool remote_ = false;
};

Result<ops::OptimizeResult> MaintenanceService::TableRun::Optimize(const ops::OptimizeOptions& o) {
  if (!remote_) return ops::Optimize(store_, o);
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snap, Latest());
  SILT_ASSIGN_OR_RETURN(ops::OptimizePlan plan, ops::PlanOptimize(store_, snap, o));
  if (plan.bins.empty()) return plan.result;
  const std::string job = delta::Uuid::Random().ToString();
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> outputs,
                        cfg_.remote->run_tasks(ops::OptimizeTasks(plan, o, job, table_.location)));
  SILT_ASSIGN_OR_RETURN(std::vector<std::vector<delta::AddFile>> added,
                        ops::CollectOptimizeOutputs(job, plan.bins.size(), outputs));
  return ops::CommitOptimize(store_, plan, std::move(added), o);
}

// A VACUUM that becomes due this soon after the table's steps (a short retention: due 1 ms after
// the PURGE with a zero one) is left for the end of the pass, under the lease, instead of the next
// tick: a `silt maintain --once` pass then leaves nothing due that became due while it ran. The
// clock is only read, never waited on (a ManualClock makes nothing newly due).
constexpr int64_t kDeferVacuumWindowMs = 60 * 1000;

Status MaintenanceService::TableRun::SaveStateIfChanged() {
  if (cfg_.dry_run || state_ == saved_state_) return Status::OK();
  SILT_RETURN_NOT_OK(SaveState(*store_, state_));
  saved_state_ = state_;
  return Status::OK();
}

// Adopts maintenance commits the state does not know of (a crash after the commit, before the
// state was saved): the cycle continues from there instead of repeating the step.
Status MaintenanceService::TableRun::Recover(const delta::Snapshot& snap) {
  const int64_t from = state_.last_seen_version + 1;
  if (from > snap.version()) return Status::OK();
  // The ICT configuration of the snapshot at hand (ListCommits would load a snapshot for it).
  SILT_ASSIGN_OR_RETURN(delta::IctConfig ict, delta::IctConfigOf(snap.metadata(), *store_));
  SILT_ASSIGN_OR_RETURN(std::vector<delta::CommitEntry> commits,
                        delta::ListCommits(*store_, from, /*read_commit_info=*/true, &ict));
  std::optional<int64_t> vacuum_start_ms, vacuum_start_version;
  for (const delta::CommitEntry& e : commits) {
    if (e.version > snap.version()) break;
    if (!e.commit_info || !e.commit_info->user_metadata || !e.commit_info->operation) continue;
    std::optional<ParsedTag> tag = ParseCommitTag(*e.commit_info->user_metadata);
    if (!tag || tag->trigger != kTriggerAutoTtl) continue;
    const std::string& op = *e.commit_info->operation;
    if (op == "DELETE" && e.version != state_.delete_version) {
      TableState s;
      // Earlier cycles' removes still wait for VACUUM.
      s.unvacuumed_ms = state_.unvacuumed_ms;
      s.unvacuumed_versions = state_.unvacuumed_versions;
      s.vacuum_full = state_.vacuum_full;
      AddUnvacuumed(&s, e.timestamp_ms, e.version);
      s.run_id = tag->run_id;
      s.delete_version = e.version;
      s.delete_time_ms = e.timestamp_ms;
      if (e.commit_info->operation_parameters) {
        if (const std::string* p = e.commit_info->operation_parameters->Find("predicate")) {
          s.cutoff = PredicateFromParameter(*p);
        }
      }
      SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(delta::CommitKey(e.version)));
      std::vector<delta::Action> actions;
      SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, delta::CommitKey(e.version)));
      for (const delta::Action& a : actions) {
        if (const auto* add = a.get_if<delta::AddFile>(); add && add->deletion_vector)
          s.dv_files.push_back(add->path);
      }
      Normalize(&s);
      state_ = std::move(s);
      RecoveryLog(table_.DisplayName() + " recovered TTL DELETE at version " +
                  std::to_string(e.version) + " from history");
    } else if (op == "REORG" && tag->run_id == state_.run_id && e.version != state_.purge_version) {
      state_.purge_version = e.version;
      state_.dv_files.clear();
      Purged(&state_, e.timestamp_ms, e.version);
      Normalize(&state_);
      RecoveryLog(table_.DisplayName() + " recovered PURGE at version " +
                  std::to_string(e.version) + " from history");
    } else if (op == "VACUUM START" && tag->run_id == state_.run_id) {
      vacuum_start_ms = e.timestamp_ms;
      vacuum_start_version = e.version;
    } else if (op == "VACUUM END" && tag->run_id == state_.run_id &&
               !state_.unvacuumed_ms.empty()) {
      // The VACUUM's cutoff was its now − retention, now <= its START commit's time.
      // Its window ended before its START commit.
      Vacuumed(&state_, vacuum_start_ms.value_or(e.timestamp_ms) - retention_ms_,
               vacuum_start_version.value_or(e.version) - 1);
      state_.failures = 0;
      state_.next_attempt_ms = 0;
      Normalize(&state_);
      RecoveryLog(table_.DisplayName() + " recovered VACUUM at version " +
                  std::to_string(e.version) + " from history");
    }
  }
  state_.last_seen_version = snap.version();
  return Status::OK();
}

Status MaintenanceService::TableRun::TtlDelete(const delta::AutoTtlPolicy& policy) {
  Result<TtlCutoff> cutoff = ComputeCutoff(policy, *snap_, now_);
  if (!cutoff.ok()) {
    // The policy names a missing or non-time column: FAILED, retried after the backoff.
    Op op = Begin("DELETE");
    Finish(&op, cutoff.status(), 0);
    Failed();
    return Status::OK();
  }
  // Cheap pre-check first: no history row, no lease work wasted on tables with nothing expired.
  SILT_ASSIGN_OR_RETURN(bool maybe, MayHaveExpiredRows(*cutoff, *snap_));
  if (!maybe) return Status::OK();
  const std::string run_id = delta::Uuid::Random().ToString();
  ops::DmlOptions o;
  o.clock = svc_->clock_;
  o.write.clock = svc_->clock_;
  o.txn.clock = svc_->clock_;
  o.txn.user_name = cfg_.principal;
  o.txn.user_metadata = Tag(kTriggerAutoTtl, run_id);
  o.pool = cfg_.pool;
  Op op = Begin("DELETE");
  op.remote = remote_;
  int retries = 0;
  Result<TtlDeleteResult> del = WithRetries<TtlDeleteResult>(
      [&]() -> Result<TtlDeleteResult> {
        // The run's snapshot while no step of it committed (the look-ahead's: no second load);
        // after a conflict, the latest.
        std::shared_ptr<const delta::Snapshot> snap = snap_;
        if (!snap_is_latest_) {
          SILT_ASSIGN_OR_RETURN(snap, Latest());
        }
        snap_is_latest_ = false;
        if (remote_) {
          return RunTtlDeleteRemotely(store_, snap, *cutoff, o, table_.location,
                                      cfg_.remote->run_tasks, cfg_.remote->ttl_task_bytes);
        }
        return RunTtlDelete(store_, snap, *cutoff, o);
      },
      &retries);
  op.record.metrics.emplace_back("cutoff", cutoff->literal);
  if (!del.ok()) {
    Finish(&op, del.status(), retries);
    Failed();
    return Status::OK();
  }
  if (!del->dml.version) {
    // Nothing matched after all (e.g. the rows are already deleted): no commit, no row.
    state_.failures = 0;
    state_.next_attempt_ms = 0;
    return Status::OK();
  }
  const ops::DmlMetrics& m = del->dml.metrics;
  op.record.metrics.emplace_back("delta_version", std::to_string(*del->dml.version));
  op.record.metrics.emplace_back("num_deleted_rows", std::to_string(del->dml.num_affected_rows));
  op.record.metrics.emplace_back("num_removed_files", std::to_string(m.num_removed_files));
  op.record.metrics.emplace_back("num_added_files", std::to_string(m.num_added_files));
  op.record.metrics.emplace_back("num_dvs_added", std::to_string(m.num_deletion_vectors_added));
  op.record.metrics.emplace_back("num_copied_rows", std::to_string(m.num_copied_rows));
  op.record.metrics.emplace_back("num_removed_bytes", std::to_string(m.num_removed_bytes));
  op.record.metrics.emplace_back("num_added_bytes", std::to_string(m.num_added_bytes));
  Finish(&op, Status::OK(), retries);
  TableState s;
  // A pending VACUUM of earlier cycles stays due.
  s.unvacuumed_ms = state_.unvacuumed_ms;
  s.unvacuumed_versions = state_.unvacuumed_versions;
  s.vacuum_full = state_.vacuum_full;
  s.run_id = run_id;
  s.cutoff = cutoff->predicate_sql;
  s.delete_version = *del->dml.version;
  s.delete_time_ms = svc_->clock_->NowMillis();
  SILT_ASSIGN_OR_RETURN(int64_t entry, EntryTime(s.delete_time_ms, del->dml.version));
  AddUnvacuumed(&s, entry, *del->dml.version);
  s.dv_files = std::move(del->dv_files);
  s.last_seen_version = *del->dml.version;
  Normalize(&s);
  state_ = std::move(s);
  return SaveStateIfChanged();
}

Status MaintenanceService::TableRun::Purge() {
  std::set<std::string> files(state_.dv_files.begin(), state_.dv_files.end());
  ops::OptimizeOptions o;
  o.mode = ops::OptimizeOptions::Mode::kReorgPurge;
  o.partition_filter = [files](const delta::AddFile& f) -> Result<bool> {
    return files.count(f.path) > 0;
  };
  o.predicate_text = state_.cutoff;
  o.read_confinement = svc_->read_confinement_;
  o.clock = svc_->clock_;
  o.pool = cfg_.pool;
  o.commit_user_name = cfg_.principal;
  o.commit_user_metadata = Tag(kTriggerAutoTtl, state_.run_id);
  Op op = Begin("PURGE");
  op.remote = remote_;
  snap_is_latest_ = false;
  RecordDelay(&op, state_.delete_time_ms);
  int retries = 0;
  Result<ops::OptimizeResult> r =
      WithRetries<ops::OptimizeResult>([&] { return Optimize(o); }, &retries);
  if (!r.ok()) {
    Finish(&op, r.status(), retries);
    Failed();
    return Status::OK();
  }
  if (r->committed_version)
    op.record.metrics.emplace_back("delta_version", std::to_string(*r->committed_version));
  op.record.metrics.emplace_back("num_purged_files", std::to_string(r->num_files_removed));
  op.record.metrics.emplace_back("num_added_files", std::to_string(r->num_files_added));
  op.record.metrics.emplace_back("num_deleted_rows_purged",
                                 std::to_string(r->num_deletion_vector_rows_removed));
  op.record.metrics.emplace_back("amount_of_output_data_bytes",
                                 std::to_string(r->files_added.total_size));
  Finish(&op, Status::OK(), retries);
  const int64_t t = svc_->clock_->NowMillis();
  if (r->committed_version) {
    state_.purge_version = *r->committed_version;
    state_.last_seen_version = std::max(state_.last_seen_version, *r->committed_version);
  }
  state_.dv_files.clear();
  SILT_ASSIGN_OR_RETURN(int64_t entry, EntryTime(t, r->committed_version));
  Purged(&state_, entry, r->committed_version.value_or(-1));
  Normalize(&state_);
  state_.failures = 0;
  state_.next_attempt_ms = 0;
  return SaveStateIfChanged();
}

Status MaintenanceService::TableRun::VacuumStep() {
  ops::VacuumOptions o;
  // LITE (reads only the log since its last run); FULL for a state of an older silt whose LITE
  // run passed a commit too young to delete (state.vacuum_full), and on DELTA_CANNOT_VACUUM_LITE.
  o.mode = state_.vacuum_full ? ops::VacuumMode::kFull : ops::VacuumMode::kLite;
  o.clock = svc_->clock_;
  o.commit_user_name = cfg_.principal;
  o.commit_user_metadata = Tag(kTriggerAutoTtl, state_.run_id);
  if (remote_) {
    o.delete_files = [this](std::span<const std::string_view> keys, std::span<Status> statuses) {
      std::vector<Status> out = cfg_.remote->delete_files(
          table_.location, std::vector<std::string>(keys.begin(), keys.end()));
      for (size_t i = 0; i < statuses.size(); ++i) {
        statuses[i] = i < out.size()
                          ? std::move(out[i])
                          : Status::IoError("the remote executor reported no status for " +
                                            std::string(keys[i]));
      }
    };
  }
  Op op = Begin("VACUUM");
  op.remote = remote_;
  snap_is_latest_ = false;
  RecordDelay(&op, state_.vacuum_due_ms);
  int retries = 0;
  bool full = o.mode == ops::VacuumMode::kFull;
  Result<ops::VacuumResult> r = WithRetries<ops::VacuumResult>(
      [&]() -> Result<ops::VacuumResult> {
        Result<ops::VacuumResult> lite = ops::Vacuum(store_, o);
        if (lite.ok() || lite.status().error_class() != ops::kErrorCannotVacuumLite) return lite;
        full = true;
        ops::VacuumOptions f = o;
        f.mode = ops::VacuumMode::kFull;
        return ops::Vacuum(store_, f);
      },
      &retries);
  if (!r.ok()) {
    Finish(&op, r.status(), retries);
    Failed();
    return Status::OK();
  }
  if (r->end_commit_version)
    op.record.metrics.emplace_back("delta_version", std::to_string(*r->end_commit_version));
  op.record.metrics.emplace_back("vacuum_mode", full ? "FULL" : "LITE");
  op.record.metrics.emplace_back("num_vacuumed_files", std::to_string(r->num_deleted_files));
  op.record.metrics.emplace_back("amount_of_vacuumed_data_bytes",
                                 std::to_string(r->size_of_data_to_delete));
  Finish(&op, Status::OK(), retries);
  if (r->end_commit_version)
    state_.last_seen_version = std::max(state_.last_seen_version, *r->end_commit_version);
  // Only what this VACUUM covered: the removes strictly before its own cutoff.
  if (full) {
    Vacuumed(&state_, r->min_retained_timestamp_ms, std::numeric_limits<int64_t>::max());
    state_.vacuum_full = false;
  } else {
    // The recorded watermark, not the window's end: LITE stops its watermark before a commit
    // whose removes were still too young (ops/vacuum.cc), so the next LITE run reads that commit
    // again and no FULL run is needed; without a recorded watermark the next run reads on from
    // the old one.
    Vacuumed(&state_, r->min_retained_timestamp_ms, r->recorded_watermark.value_or(-1));
  }
  state_.failures = 0;
  state_.next_attempt_ms = 0;
  Normalize(&state_);
  return SaveStateIfChanged();
}

Status MaintenanceService::TableRun::TtlJobs() {
  Result<std::optional<delta::AutoTtlPolicy>> policy =
      delta::AutoTtlPolicyOf(snap_->metadata().configuration);
  if (!policy.ok()) {
    Skip("invalid auto-TTL policy: " + policy.status().ToString());
    return Status::OK();
  }
  if (state_.next_attempt_ms > now_) {
    Skip("a failed step waits for its retry backoff");
    return Status::OK();
  }
  bool vacuum_tried = false;
  // VACUUM is due once the oldest unvacuumed maintenance remove is past the retention, whatever
  // the phase; a new DELETE runs at every tick that finds expired rows unless a PURGE is pending.
  auto vacuum_due = [&] {
    // The clock is read again: with a short retention the VACUUM of this pass's own DELETE /
    // PURGE can be due before the pass ends (a ManualClock does not move within a pass).
    return !vacuum_tried && !state_.unvacuumed_ms.empty() &&
           std::max(now_, svc_->clock_->NowMillis()) >= state_.vacuum_due_ms;
  };
  auto failed_since = [&](size_t before) {
    return records_.size() > before && records_.back().operation_status != kStatusSuccessful;
  };
  // Each step starts only while the lease is still ours (it may have expired during a long one).
  SILT_ASSIGN_OR_RETURN(bool held, LeaseHeld());
  if (!held) return Status::OK();
  if (vacuum_due()) {
    vacuum_tried = true;
    SILT_RETURN_NOT_OK(VacuumStep());
  }
  if (state_.phase != TtlPhase::kPurgeDue && *policy) {
    const size_t before = records_.size();
    SILT_ASSIGN_OR_RETURN(held, LeaseHeld());
    if (!held) return Status::OK();
    SILT_RETURN_NOT_OK(TtlDelete(**policy));
    if (failed_since(before)) return Status::OK();
  }
  if (state_.phase == TtlPhase::kPurgeDue) {
    const size_t before = records_.size();
    SILT_ASSIGN_OR_RETURN(held, LeaseHeld());
    if (!held) return Status::OK();
    SILT_RETURN_NOT_OK(Purge());
    if (failed_since(before)) return Status::OK();
  }
  if (vacuum_due()) {
    vacuum_tried = true;
    SILT_ASSIGN_OR_RETURN(held, LeaseHeld());
    if (!held) return Status::OK();
    SILT_RETURN_NOT_OK(VacuumStep());
  } else if (!vacuum_tried && state_.phase == TtlPhase::kVacuumDue && state_.failures == 0 &&
             state_.vacuum_due_ms <= svc_->clock_->NowMillis() + kDeferVacuumWindowMs) {
    deferred_ = true;
  }
  return Status::OK();
}

Result<TableState> MaintenanceService::TableRun::LoadAndUpgradeState() {
  SILT_ASSIGN_OR_RETURN(TableState s, LoadState(*store_));
  if (s.phase != TtlPhase::kIdle && s.unvacuumed_ms.empty() && s.delete_time_ms >= 0) {
    // A state written before unvacuumed_ms existed: its cycle's removes.
    AddUnvacuumed(&s, std::max(s.delete_time_ms, s.vacuum_due_ms - retention_ms_), -1);
    Normalize(&s);
  }
  return s;
}

Result<bool> MaintenanceService::TableRun::MayHaveWork() {
  SILT_ASSIGN_OR_RETURN(ahead_loaded_, LoadState(*store_));
  const TableState& loaded = ahead_loaded_;
  SILT_ASSIGN_OR_RETURN(state_, LoadAndUpgradeState());
  quiet_ = true;
  Status recovered = Recover(*snap_);
  quiet_ = false;
  SILT_RETURN_NOT_OK(recovered);
  ahead_recovered_ = state_;
  // A PURGE is due at once; a VACUUM when its time has come. A cycle waiting for its VACUUM's
  // retention takes no lease at each pass until then (unless something else is due below).
  if (state_.phase == TtlPhase::kPurgeDue) return true;
  if (!state_.unvacuumed_ms.empty() && state_.vacuum_due_ms <= now_) return true;
  // History had maintenance commits the state does not know of: save the repair under the lease.
  TableState only_seen = loaded;
  only_seen.last_seen_version = state_.last_seen_version;
  if (!(state_ == only_seen)) return true;
  // Many commits since the saved state: take the lease to save last_seen_version, so that the
  // look-ahead does not re-read an ever longer stretch of history at every pass.
  if (state_.last_seen_version - loaded.last_seen_version > 100) return true;
  Result<std::optional<delta::AutoTtlPolicy>> policy =
      delta::AutoTtlPolicyOf(snap_->metadata().configuration);
  if (!policy.ok()) return true;  // the leased run records the error
  if (*policy) {
    Result<TtlCutoff> cutoff = ComputeCutoff(**policy, *snap_, now_);
    if (!cutoff.ok()) return true;
    SILT_ASSIGN_OR_RETURN(bool maybe, MayHaveExpiredRows(*cutoff, *snap_));
    if (maybe) return true;
  }
  if (cfg_.routine_jobs) {
    SILT_ASSIGN_OR_RETURN(Thresholds t, LoadThresholds(cfg_.conf, snap_->metadata().configuration));
    SILT_ASSIGN_OR_RETURN(std::vector<JobAdvice> jobs, AdviseRoutineJobs(*snap_, t, now_));
    for (const JobAdvice& j : jobs)
      if (j.due) return true;
  }
  return false;
}

Status MaintenanceService::TableRun::RoutineJobs() {
  SILT_ASSIGN_OR_RETURN(snap_, Latest());
  // The advisor's rule (SHOW MAINTENANCE shows the same due flags).
  SILT_ASSIGN_OR_RETURN(Thresholds t, LoadThresholds(cfg_.conf, snap_->metadata().configuration));
  SILT_ASSIGN_OR_RETURN(std::vector<JobAdvice> jobs, AdviseRoutineJobs(*snap_, t, now_));
  auto due = [&](Job job) {
    for (const JobAdvice& j : jobs)
      if (j.job == job) return j.due;
    return false;
  };
  if (due(Job::kCompaction)) {
    ops::OptimizeOptions o;
    o.mode = ops::OptimizeOptions::Mode::kCompact;
    o.read_confinement = svc_->read_confinement_;
    o.min_file_size = t.min_file_size;
    o.max_file_size = t.max_file_size;
    o.max_deleted_rows_ratio = t.max_deleted_rows_ratio;
    o.clock = svc_->clock_;
    o.pool = cfg_.pool;
    o.commit_user_name = cfg_.principal;
    o.commit_user_metadata = Tag(kTriggerMaintenance, delta::Uuid::Random().ToString());
    Op op = Begin(JobName(Job::kCompaction));
    op.remote = remote_;
    int retries = 0;
    Result<ops::OptimizeResult> r =
        WithRetries<ops::OptimizeResult>([&] { return Optimize(o); }, &retries);
    if (!r.ok()) {
      Finish(&op, r.status(), retries);
    } else if (r->committed_version) {
      op.record.metrics.emplace_back("delta_version", std::to_string(*r->committed_version));
      op.record.metrics.emplace_back("number_of_compacted_files",
                                     std::to_string(r->num_files_removed));
      op.record.metrics.emplace_back("number_of_output_files", std::to_string(r->num_files_added));
      op.record.metrics.emplace_back("amount_of_output_data_bytes",
                                     std::to_string(r->files_added.total_size));
      op.record.metrics.emplace_back("amount_of_compacted_data_bytes",
                                     std::to_string(r->files_removed.total_size));
      Finish(&op, Status::OK(), retries);
    }
    SILT_ASSIGN_OR_RETURN(snap_, Latest());
    // The compaction's commit counts towards the checkpoint interval.
    SILT_ASSIGN_OR_RETURN(jobs, AdviseRoutineJobs(*snap_, t, now_));
  }
  // Checkpoint.
  if (snap_->version() > 0 && due(Job::kCheckpoint)) {
    Op op = Begin(JobName(Job::kCheckpoint));
    delta::CheckpointOptions co;
    co.clock = svc_->clock_.get();
    delta::CheckpointInfo info;
    Status st = delta::WriteCheckpoint(*store_, *snap_, co, &info);
    op.record.metrics.emplace_back("delta_version", std::to_string(snap_->version()));
    if (st.ok()) op.record.metrics.emplace_back("num_actions", std::to_string(info.num_actions));
    Finish(&op, st, 0);
    if (st.ok()) {
      // A new checkpoint may make older log files deletable.
      SILT_ASSIGN_OR_RETURN(snap_, Latest());
      SILT_ASSIGN_OR_RETURN(jobs, AdviseRoutineJobs(*snap_, t, now_));
    }
  }
  // Expired log cleanup.
  if (due(Job::kLogCleanup)) {
    Op op = Begin(JobName(Job::kLogCleanup));
    delta::LogCleanupOptions lo;
    lo.truncation = delta::CutoffTruncation::kDay;
    Result<delta::LogCleanupResult> r =
        delta::CleanupExpiredLogs(*store_, *snap_, *svc_->clock_, lo);
    if (!r.ok()) {
      Finish(&op, r.status(), 0);
    } else if (r->commits_deleted + r->checkpoints_deleted > 0) {
      op.record.metrics.emplace_back(
          "num_deleted_log_files",
          std::to_string(r->commits_deleted + r->checkpoints_deleted + r->checksums_deleted));
      Finish(&op, Status::OK(), 0);
    }
  }
  return Status::OK();
}

Status MaintenanceService::TableRun::Run() {
  now_ = svc_->clock_->NowMillis();
  Result<std::shared_ptr<ObjectStore>> store = cfg_.open_store
                                                   ? cfg_.open_store(table_.location)
                                                   : OpenObjectStore(table_.location, svc_->clock_);
  if (!store.ok()) {
    Skip("cannot open: " + store.status().ToString());
    return Status::OK();
  }
  store_ = *store;
  Result<std::shared_ptr<const delta::Snapshot>> snap = Latest();
  if (!snap.ok()) {
    Skip("not a readable Delta table: " + snap.status().ToString());
    return Status::OK();
  }
  snap_ = *snap;
  table_id_ = snap_->metadata().id;
  if (cfg_.remote) {
    int64_t bytes = 0;
    for (const delta::AddFile& f : snap_->files()) bytes += f.size;
    remote_ = bytes > cfg_.remote->min_table_bytes;
  }
  const delta::StringMap conf = snap_->metadata().configuration;  // a copy: snap_ is reloaded below
  Result<bool> enabled = delta::GetBoolProperty(conf, kPropMaintenanceEnabled, true);
  if (!enabled.ok()) return Misconfigured(enabled.status());
  if (!*enabled) {
    Skip(std::string(kPropMaintenanceEnabled) + " = false");
    return Status::OK();
  }
  max_retries_ = cfg_.max_retries;
  if (auto v = snap_->property(kPropMaxRetries)) {
    char* end = nullptr;
    const long long n = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end || n < 0 || n > 100) {
      return Misconfigured(Status::InvalidArgument(std::string("invalid value '") + *v +
                                                       "' of table property " + kPropMaxRetries +
                                                       ": expected an integer in [0, 100]",
                                                   delta::kInvalidTablePropertyClass));
    }
    max_retries_ = static_cast<int>(n);
  }
  Result<int64_t> retention = delta::GetDeletedFileRetentionMillis(conf);
  if (!retention.ok()) return Misconfigured(retention.status());
  retention_ms_ = *retention;
  if (auto v = snap_->property(kPropMaxDelayPerStep)) {
    Result<int64_t> ms = delta::ParseIntervalMillis(*v);
    if (!ms.ok()) return Misconfigured(ms.status());
    max_delay_ms_ = *ms;
  }
  if (cfg_.dry_run) {
    // The advisor's rows: what SHOW MAINTENANCE says for this table.
    Result<Thresholds> t = LoadThresholds(cfg_.conf, conf);
    if (!t.ok()) return Misconfigured(t.status());
    AdvisorOptions ao;
    ao.thresholds = *t;
    ao.clock = svc_->clock_;
    Result<TableAdvice> advice = Advise(*snap_, ao);
    if (!advice.ok()) return Misconfigured(advice.status());
    for (AdviceRow& row : AdviceRows(*advice, table_.DisplayName())) {
      std::string line = table_.DisplayName() + " " + row.job + (row.due ? " due" : " not due");
      if (row.action) line += ": " + *row.action;
      line += " (" + row.detail + ")";
      Log(line);
      report_->advice.push_back(PlannedRow{table_.DisplayName(), std::move(row)});
    }
    return Status::OK();
  }

  // Nothing to do: no lease, no state write (most tables at most passes).
  {
    Result<bool> work = MayHaveWork();
    if (!work.ok()) return Misconfigured(work.status());
    if (!*work) return Status::OK();
  }
  std::optional<Lease>& lease = lease_;
  SILT_ASSIGN_OR_RETURN(lease, svc_->leases_->TryAcquire(*store_));
  if (!lease) {
    Skip("leased by another maintenance process");
    return Status::OK();
  }
  Status st = [&]() -> Status {
    // Read again under the lease: unchanged since the look-ahead (the usual case), its recovery
    // from history stands; else another process moved on meanwhile and it is redone.
    SILT_ASSIGN_OR_RETURN(saved_state_, LoadState(*store_));
    if (saved_state_ == ahead_loaded_) {
      state_ = ahead_recovered_;
      for (const std::string& line : ahead_log_) Log(line);
    } else {
      SILT_ASSIGN_OR_RETURN(state_, LoadAndUpgradeState());
      SILT_RETURN_NOT_OK(Recover(*snap_));
    }
    // A repair from history is saved with the first step's bookkeeping or after TtlJobs (lost
    // in a crash, the next run repeats the same repair).
    SILT_RETURN_NOT_OK(TtlJobs());
    SILT_RETURN_NOT_OK(SaveStateIfChanged());
    if (cfg_.routine_jobs) {
      SILT_ASSIGN_OR_RETURN(bool held, LeaseHeld());
      if (!held) return Status::OK();
      SILT_RETURN_NOT_OK(RoutineJobs());
    }
    return Status::OK();
  }();
  if (st.ok() && deferred_) {
    snap_.reset();  // VACUUM loads its own; no snapshot is kept across the pass
    return Status::OK();
  }
  deferred_ = false;
  Close(std::move(st));
  return Status::OK();
}

void MaintenanceService::TableRun::Close(Status st) {
  if (lease_) {
    Status released = svc_->leases_->Release(*store_, *lease_);
    if (st.ok()) st = released;
    lease_.reset();
  }
  if (!st.ok()) {
    // A storage or state error outside a recorded step: one FAILED row says so.
    Op op = Begin("MAINTENANCE");
    Finish(&op, st, 0);
  }
}

Status MaintenanceService::TableRun::FinishDeferred() {
  deferred_ = false;
  now_ = svc_->clock_->NowMillis();
  Status st = [&]() -> Status {
    if (now_ < state_.vacuum_due_ms) return Status::OK();  // the next tick's
    if (cfg_.should_stop && cfg_.should_stop()) return Status::OK();
    SILT_ASSIGN_OR_RETURN(bool held, LeaseHeld());
    if (!held) return Status::OK();
    SILT_RETURN_NOT_OK(VacuumStep());
    return SaveStateIfChanged();
  }();
  Close(std::move(st));
  return Status::OK();
}

MaintenanceService::MaintenanceService(std::string warehouse, std::shared_ptr<Clock> clock,
                                       MaintenanceConfig config)
    : warehouse_(std::move(warehouse)), clock_(std::move(clock)), config_(std::move(config)) {
  if (config_.owner_id.empty()) config_.owner_id = delta::Uuid::Random().ToString();
  leases_ = std::make_unique<LeaseManager>(clock_, config_.owner_id, config_.lease_duration_ms);
}

Result<std::vector<MaintainedTable>> MaintenanceService::WarehouseTables() const {
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<planner::Catalog> catalog,
                        planner::Catalog::Open(warehouse_, clock_));
  std::vector<MaintainedTable> out;
  for (const std::string& schema : catalog->ListSchemas()) {
    SILT_ASSIGN_OR_RETURN(std::vector<std::string> names, catalog->ListTables(schema));
    for (const std::string& name : names) {
      Result<planner::TableEntry> e = catalog->GetTable(schema, name);
      if (!e.ok() || e->format != "delta") continue;
      out.push_back(MaintainedTable{e->location, "spark_catalog", schema, name});
    }
  }
  return out;
}

Status MaintenanceService::SetReadConfinement() {
  std::optional<std::string> confine, prefixes;
  if (config_.conf) {
    confine = config_.conf(kConfineReadsKey);
    prefixes = config_.conf(kAllowedReadPrefixesKey);
  }
  bool on = kConfineReadsDefaultForServices;
  if (confine) {
    if (EqualsIgnoreCase(*confine, "true")) {
      on = true;
    } else if (EqualsIgnoreCase(*confine, "false")) {
      on = false;
    } else {
      return Status::InvalidArgument("The value '" + *confine + "' in the config \"" +
                                         kConfineReadsKey + "\" is invalid: true or false",
                                     errc::kInvalidConfValue);
    }
  }
  read_confinement_ = nullptr;
  if (on) {
    SILT_ASSIGN_OR_RETURN(read_confinement_, ReadConfinement::Make(prefixes.value_or("")));
  }
  return Status::OK();
}

Result<PassReport> MaintenanceService::RunPass(std::vector<MaintainedTable> tables) {
  std::sort(tables.begin(), tables.end(), [](const MaintainedTable& a, const MaintainedTable& b) {
    return a.location < b.location;
  });
  SILT_RETURN_NOT_OK(SetReadConfinement());
  PassReport report;
  std::shared_ptr<ObjectStore> history_store;
  if (!warehouse_.empty() && !config_.dry_run) {
    SILT_ASSIGN_OR_RETURN(history_store, OpenHistoryStore(warehouse_, clock_));
  }
  std::vector<std::unique_ptr<TableRun>> deferred;
  for (const MaintainedTable& t : tables) {
    if (config_.should_stop && config_.should_stop()) break;
    ++report.tables;
    auto run = std::make_unique<TableRun>(this, t, &report);
    SILT_RETURN_NOT_OK(run->Run());
    for (OperationRecord& r : run->records()) report.operations.push_back(std::move(r));
    run->records().clear();
    if (run->deferred()) deferred.push_back(std::move(run));
  }
  // The VACUUMs that became due during the pass (kDeferVacuumWindowMs), in table order; each
  // table's lease is released either way.
  for (std::unique_ptr<TableRun>& run : deferred) {
    SILT_RETURN_NOT_OK(run->FinishDeferred());
    for (OperationRecord& r : run->records()) report.operations.push_back(std::move(r));
  }
  // One history commit per pass, not per table: a commit per table costs a snapshot load of the
  // ever longer history log each (bench/maintenance.sh). A crash before it loses the rows of
  // this pass, not the maintenance itself (every step's commit carries its tag in the table's
  // own history).
  if (history_store && !report.operations.empty()) {
    HistoryWriter writer(history_store, clock_, config_.history);
    SILT_RETURN_NOT_OK(writer.Append(report.operations));
  }
  return report;
}

}  // namespace silt::maintenance
