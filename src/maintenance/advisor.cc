#include "maintenance/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/clustering.h"
#include "delta/deletion_vector.h"
#include "delta/log_segment.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "delta/table_properties.h"
#include "io/path.h"
#include "ops/ops.h"
#include "ops/optimize.h"
#include "planner/session_config.h"
#include "vector/value.h"

namespace silt::maintenance {

namespace {

constexpr int64_t kMicrosPerDay = 86400000000LL;

std::string InvalidConf(const std::string& key, const std::string& value, const std::string& need) {
  return "The value '" + value + "' in the config \"" + key + "\" is invalid: " + need;
}

// "yyyy-MM-dd HH:mm:ss[.ffffff]" (trailing zeros of the fraction dropped), UTC.
std::string FormatTs(int64_t micros) {
  std::string s = FormatTimestampMicros(micros);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string FormatMillis(int64_t millis) { return FormatTs(millis * 1000); }

// "7 days", "36 hours", "90 minutes", "1500 ms": the largest unit that divides the duration.
std::string FormatDuration(int64_t millis) {
  if (millis % delta::kMillisPerDay == 0)
    return std::to_string(millis / delta::kMillisPerDay) + " days";
  if (millis % 3600000 == 0) return std::to_string(millis / 3600000) + " hours";
  if (millis % 60000 == 0) return std::to_string(millis / 60000) + " minutes";
  return std::to_string(millis) + " ms";
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "0%";
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f%%",
           100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

std::string QuoteName(const std::string& name) {
  bool plain = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      plain = false;
  }
  if (plain) return name;
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::optional<int64_t> NumRecords(const delta::AddFile& f) {
  if (!f.stats) return std::nullopt;
  return delta::StatsNumRecords(*f.stats);
}

int64_t DvRows(const delta::AddFile& f) {
  return f.deletion_vector ? f.deletion_vector->cardinality : 0;
}

// The TTL part: per file, is every row / some row / no row expired?
Result<AutoTtlAdvice> AdviseTtl(const delta::Snapshot& snap, const delta::AutoTtlPolicy& policy,
                                int64_t now_millis, int64_t retention_millis) {
  AutoTtlAdvice a;
  a.policy = policy;
  a.retention_millis = retention_millis;
  // The column rules of the DDL (delta/auto_ttl.h): a policy another writer left may break them.
  SILT_ASSIGN_OR_RETURN(size_t index,
                        delta::ValidateAutoTtlColumn(snap.schema(), policy.timestamp_column,
                                                     /*case_sensitive=*/false));
  const Field* field = &snap.schema()[index];
  TypeId type = field->type->id();
  a.column_type = type;
  a.cutoff = AutoTtlCutoff(type, policy.expire_in_days, now_millis);
  Field physical = *field;
  physical.name = delta::PhysicalNameOrName(*field, snap.column_mapping_mode());
  Schema stats_schema{physical};
  bool is_partition = false;
  for (const auto& p : snap.partition_columns()) {
    if (EqualsIgnoreCase(p, field->name)) is_partition = true;
  }
  for (const delta::AddFile& f : snap.files()) {
    std::optional<int64_t> records = NumRecords(f);
    int64_t live = records ? std::max<int64_t>(0, *records - DvRows(f)) : 0;
    std::optional<int64_t> lo, hi;
    bool has_nulls = true;
    bool loose = false;  // wide bounds of a file with a deletion vector (see below)
    if (is_partition) {
      const std::optional<std::string>* pv = f.partition_values.Find(physical.name);
      if (!pv) pv = f.partition_values.Find(field->name);
      if (pv) {
        Result<Value> v = delta::ParsePartitionValue(*pv, field->type);
        if (v.ok()) {
          if (v->is_null()) {
            continue;  // NULL never expires: the whole file stays
          }
          lo = hi = v->integer();
          has_nulls = false;
        }
      }
    } else if (f.stats) {
      Result<delta::FileStats> st = delta::ParseStats(*f.stats, stats_schema);
      if (st.ok()) {
        if (const delta::ColumnStats* c = st->Find(delta::StatsPathKey({physical.name}))) {
          if (c->null_count && records && *c->null_count >= *records)
            continue;  // all NULL: never expires
          if (c->min && !c->min->is_null()) lo = c->min->integer();
          if (c->max && !c->max->is_null()) hi = c->max->integer();
          has_nulls = !c->null_count || *c->null_count > 0;
        }
        // After a DELETE with deletion vectors the file keeps its old statistics, marked
        // tightBounds=false: still bounds, but the expired rows may be the deleted ones.
        loose = f.deletion_vector && DvRows(f) > 0 && !st->TightBounds();
      }
    }
    if (!lo || !hi) {
      ++a.files_without_stats;
      ++a.files_partially_expired;
      a.bytes_partially_expired += f.size;
      a.rows_partially_expired_max += live;
      continue;
    }
    if (*lo > a.cutoff) continue;  // nothing expired
    bool all_expired = *hi <= a.cutoff && !has_nulls;
    if (loose && !all_expired) {
      // Loose bounds still contain every live row: "all expired" stays certain, "some" does not.
      ++a.files_loose_bounds;
      a.rows_loose_bounds_max += live;
      continue;
    }
    if (all_expired) {
      ++a.files_fully_expired;
      a.bytes_fully_expired += f.size;
      a.rows_fully_expired += live;
    } else {
      ++a.files_partially_expired;
      a.bytes_partially_expired += f.size;
      a.rows_partially_expired_max += live;
    }
  }
  if (a.files_fully_expired + a.files_partially_expired > 0) {
    a.gone_by_millis = now_millis + kAutoTtlBufferDays * delta::kMillisPerDay + retention_millis;
  }
  return a;
}

JobAdvice TtlJob(const std::optional<AutoTtlAdvice>& ttl) {
  JobAdvice j;
  j.job = Job::kAutoTtlDelete;
  if (!ttl) {
    j.detail = "no Auto-TTL policy";
    return j;
  }
  const AutoTtlAdvice& a = *ttl;
  j.files = a.files_fully_expired + a.files_partially_expired;
  j.bytes = a.bytes_fully_expired + a.bytes_partially_expired;
  j.rows = a.rows_fully_expired;
  j.due = j.files > 0;
  std::string d = "rows expire " + std::to_string(a.policy.expire_in_days) + " days after " +
                  a.policy.timestamp_column + "; cutoff " +
                  AutoTtlCutoffLiteral(a.column_type, a.cutoff) + "; ";
  d += std::to_string(a.files_fully_expired) + " files fully expired (" +
       std::to_string(a.rows_fully_expired) + " rows, removed whole), " +
       std::to_string(a.files_partially_expired) + " files partly expired (up to " +
       std::to_string(a.rows_partially_expired_max) + " more rows)";
  if (a.files_without_stats > 0)
    d += ", " + std::to_string(a.files_without_stats) + " of them without statistics";
  if (a.files_loose_bounds > 0) {
    d += "; " + std::to_string(a.files_loose_bounds) +
         " files with deletion vectors may still hold up to " +
         std::to_string(a.rows_loose_bounds_max) +
         " expired rows (loose statistics: PURGE makes them exact)";
  }
  if (a.gone_by_millis) {
    d += "; expired rows physically gone by " + FormatMillis(*a.gone_by_millis) +
         " at the latest (6 days + retention " + FormatDuration(a.retention_millis) + ")";
  } else {
    d += "; nothing expired";
  }
  j.detail = std::move(d);
  return j;
}

JobAdvice PurgeJob(const delta::Snapshot& snap, bool ttl, bool dv_enabled) {
  JobAdvice j;
  j.job = Job::kPurge;
  int64_t rows = 0;
  for (const delta::AddFile& f : snap.files()) {
    if (!f.deletion_vector) continue;
    if (f.deletion_vector->cardinality <= 0 && NumRecords(f)) continue;
    ++j.files;
    j.bytes += f.size;
    rows += DvRows(f);
  }
  j.rows = rows;
  j.due = ttl && j.files > 0;
  std::string d = std::to_string(j.files) + " files with deletion vectors, " +
                  std::to_string(rows) + " deleted rows";
  if (!ttl) {
    d += "; the service purges only after an Auto-TTL DELETE (OPTIMIZE rewrites files over the "
         "deleted-rows ratio)";
  } else if (!dv_enabled && j.files == 0) {
    d += "; deletion vectors are off: TTL deletes rewrite files, no PURGE step";
  }
  j.detail = std::move(d);
  return j;
}

Result<JobAdvice> VacuumJob(const delta::Snapshot& snap, int64_t now_millis,
                            int64_t retention_millis, bool verify) {
  JobAdvice j;
  j.job = Job::kVacuum;
  int64_t cutoff = now_millis - retention_millis;
  int64_t gone = 0, absolute = 0, pending = 0;
  std::optional<int64_t> next;
  // A path can be a tombstone and live at once (a remove of the file without its deletion
  // vector, the add with it), or a tombstone twice: VACUUM deletes a file once, and never a
  // live one.
  std::set<std::string_view> live, seen;
  for (const delta::AddFile& f : snap.files()) live.insert(f.path);
  for (const delta::RemoveFile& r : snap.tombstones()) {
    if (live.count(r.path) || !seen.insert(r.path).second) continue;
    int64_t ts = r.deletion_timestamp.value_or(0);
    if (ts > cutoff) {
      ++pending;
      int64_t at = ts + retention_millis;
      if (!next || at < *next) next = at;
      continue;
    }
    int64_t size = r.size.value_or(0);
    if (verify) {
      Result<DeltaPath> p = ParseDeltaPath(r.path);
      if (p.ok() && !p->absolute) {
        Result<ObjectMeta> m = snap.store()->Head(p->path);
        if (!m.ok()) {
          if (m.status().IsNotFound()) {
            ++gone;
            continue;
          }
          return m.status();
        }
        if (m->modification_time_ms >= cutoff) {
          // VACUUM deletes only files older than the cutoff (a re-written path).
          ++pending;
          continue;
        }
        size = m->size;
      } else {
        ++absolute;
      }
    }
    ++j.files;
    j.bytes += size;
  }
  j.due = j.files > 0;
  std::string d = std::to_string(j.files) + " removed files past the retention (" +
                  FormatDuration(retention_millis) + ") still present";
  if (verify && gone > 0) d += ", " + std::to_string(gone) + " already deleted";
  if (absolute > 0) d += " (" + std::to_string(absolute) + " with absolute paths not checked)";
  d += "; " + std::to_string(pending) + " within the retention";
  if (next) d += ", the next deletable at " + FormatMillis(*next);
  d += "; from the log (files no commit references need a listing: VACUUM … DRY RUN)";
  j.detail = std::move(d);
  return j;
}

JobAdvice CompactionJob(const delta::Snapshot& snap, const Thresholds& t, int64_t table_rows,
                        int64_t deleted_rows) {
  JobAdvice j;
  j.job = Job::kCompaction;
  struct Candidate {
    const delta::AddFile* file;
    bool for_deleted_rows;
  };
  std::map<std::string, std::vector<Candidate>> by_partition;
  int64_t small = 0, small_bytes = 0, excess_files = 0;
  // A clustered table's OPTIMIZE clusters (ops/optimize.h): a small file already in a z-cube of
  // the current clustering columns is not a reason to run it.
  std::optional<std::string> clustered_by;
  if (Result<std::vector<std::string>> cols = delta::ClusteringColumns(snap);
      cols.ok() && !cols->empty())
    clustered_by = delta::ClusteringColumnsJson(*cols);
  for (const delta::AddFile& f : snap.files()) {
    if (clustered_by && f.tags) {
      const std::string* by = f.tags->Find(delta::kZCubeZOrderByTag);
      if (by && *by == *clustered_by && f.tags->Find(delta::kZCubeIdTag) && !f.deletion_vector)
        continue;
    }
    std::optional<int64_t> records = NumRecords(f);
    bool excess = false;
    if (f.deletion_vector) {
      if (!records)
        excess = true;
      else if (*records > 0)
        excess = static_cast<double>(DvRows(f)) / static_cast<double>(*records) >
                 t.max_deleted_rows_ratio;
    }
    bool is_small = f.size < t.min_file_size;
    if (is_small) {
      ++small;
      small_bytes += f.size;
    }
    if (excess) ++excess_files;
    if (is_small || excess) by_partition[ops::PartitionKey(f)].push_back({&f, excess});
  }
  // OPTIMIZE's bin packing (ops/optimize.cc): per partition, by size, bins up to max_file_size;
  // a lone file stays unless it is there for its deleted rows.
  int64_t bins = 0, rows = 0, rewritten_small = 0;
  bool any_excess_rewritten = false;
  for (auto& [key, files] : by_partition) {
    std::sort(files.begin(), files.end(),
              [](const Candidate& a, const Candidate& b) { return a.file->size < b.file->size; });
    std::vector<std::vector<Candidate>> pbins(1);
    int64_t size = 0;
    for (const auto& c : files) {
      if (!pbins.back().empty() && size + c.file->size > t.max_file_size) {
        pbins.emplace_back();
        size = 0;
      }
      pbins.back().push_back(c);
      size += c.file->size;
    }
    for (const auto& b : pbins) {
      if (b.empty() || (b.size() == 1 && !b[0].for_deleted_rows)) continue;
      ++bins;
      for (const auto& c : b) {
        ++j.files;
        j.bytes += c.file->size;
        rows += DvRows(*c.file);
        if (c.for_deleted_rows)
          any_excess_rewritten = true;
        else
          ++rewritten_small;
      }
    }
  }
  j.rows = rows;
  j.due = bins > 0 && (rewritten_small >= t.compaction_min_files || any_excess_rewritten);
  j.detail = std::to_string(small) + " small files (< " + std::to_string(t.min_file_size) +
             " bytes, " + std::to_string(small_bytes) + " bytes), " + std::to_string(excess_files) +
             " files with more than " +
             Percent(static_cast<int64_t>(std::llround(t.max_deleted_rows_ratio * 1000)), 1000) +
             " deleted rows; deleted-row ratio " +
             Percent(deleted_rows, table_rows + deleted_rows) + "; would write " +
             std::to_string(bins) + " bins; due at " + std::to_string(t.compaction_min_files) +
             " small files or any file over the ratio";
  return j;
}

Result<JobAdvice> CheckpointJob(const delta::Snapshot& snap) {
  JobAdvice j;
  j.job = Job::kCheckpoint;
  SILT_ASSIGN_OR_RETURN(int64_t interval,
                        delta::GetCheckpointInterval(snap.metadata().configuration));
  const delta::LogSegment& seg = snap.segment();
  for (const delta::LogFile& c : seg.commits) {
    ++j.files;
    j.bytes += c.meta.size;
  }
  int64_t since = snap.version() - seg.checkpoint_version;
  j.due = since >= interval;
  j.detail = (seg.checkpoint_version >= 0
                  ? "last checkpoint at version " + std::to_string(seg.checkpoint_version)
                  : std::string("no checkpoint")) +
             "; " + std::to_string(j.files) + " commits to replay; checkpoint interval " +
             std::to_string(interval);
  return j;
}

Result<JobAdvice> LogCleanupJob(const delta::Snapshot& snap, int64_t now_millis) {
  JobAdvice j;
  j.job = Job::kLogCleanup;
  const delta::StringMap& conf = snap.metadata().configuration;
  SILT_ASSIGN_OR_RETURN(bool enabled, delta::GetEnableExpiredLogCleanup(conf));
  SILT_ASSIGN_OR_RETURN(int64_t retention, delta::GetLogRetentionMillis(conf));
  if (!enabled) {
    j.detail = "delta.enableExpiredLogCleanup is false";
    return j;
  }
  int64_t cutoff = now_millis - retention;
  SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, snap.store()->ListFrom("_delta_log/"));
  std::vector<delta::LogFile> files;
  for (const ObjectMeta& m : listing) {
    if (auto f = delta::ParseLogFileName(m)) files.push_back(std::move(*f));
  }
  // The oldest retained version R: the oldest commit newer than the cutoff, else the snapshot's.
  int64_t oldest_retained = snap.version();
  for (const delta::LogFile& f : files) {
    if (f.kind == delta::LogFileKind::kCommit && f.version <= snap.version() &&
        f.meta.modification_time_ms > cutoff) {
      oldest_retained = std::min(oldest_retained, f.version);
    }
  }
  int64_t keep_from = -1;  // the newest checkpoint at or before R
  for (const delta::LogFile& f : files) {
    bool checkpoint = f.kind == delta::LogFileKind::kCheckpoint ||
                      f.kind == delta::LogFileKind::kMultiPartCheckpoint ||
                      f.kind == delta::LogFileKind::kUuidCheckpoint;
    if (checkpoint && f.version <= oldest_retained) keep_from = std::max(keep_from, f.version);
  }
  if (keep_from >= 0) {
    for (const delta::LogFile& f : files) {
      int64_t last = f.kind == delta::LogFileKind::kCompaction ? f.end_version : f.version;
      if (last < keep_from && f.meta.modification_time_ms <= cutoff) {
        ++j.files;
        j.bytes += f.meta.size;
      }
    }
  }
  j.due = j.files > 0;
  j.detail = std::to_string(j.files) + " log files older than delta.logRetentionDuration (" +
             FormatDuration(retention) + ")" +
             (keep_from >= 0 ? " before the checkpoint at version " + std::to_string(keep_from)
                             : std::string("; no checkpoint old enough to cut at"));
  return j;
}

}  // namespace

Result<Thresholds> LoadThresholds(const ConfigLookup& config,
                                  const delta::StringMap& table_properties) {
  Thresholds t;
  auto get = [&](const char* key) -> std::optional<std::string> {
    return config ? config(key) : std::nullopt;
  };
  auto bytes = [&](const char* key, int64_t* out) -> Status {
    if (auto v = get(key)) {
      std::optional<int64_t> b = planner::ParseByteSize(*v);
      if (!b || *b <= 0)
        return Status::InvalidArgument(InvalidConf(key, *v, "a positive byte size"),
                                       errc::kInvalidConfValue);
      *out = *b;
    }
    return Status::OK();
  };
  SILT_RETURN_NOT_OK(bytes(kOptimizeMaxFileSizeConf, &t.max_file_size));
  if (const std::string* target = table_properties.Find(kTargetFileSizeProperty)) {
    if (auto b = planner::ParseByteSize(*target)) t.max_file_size = *b;
  }
  t.min_file_size = t.max_file_size;
  SILT_RETURN_NOT_OK(bytes(kOptimizeMinFileSizeConf, &t.min_file_size));
  if (auto v = get(kOptimizeMaxDeletedRowsRatioConf)) {
    char* end = nullptr;
    double r = std::strtod(v->c_str(), &end);
    if (v->empty() || !end || *end || !(r >= 0 && r <= 1)) {
      return Status::InvalidArgument(
          InvalidConf(kOptimizeMaxDeletedRowsRatioConf, *v, "a ratio in [0, 1]"),
          errc::kInvalidConfValue);
    }
    t.max_deleted_rows_ratio = r;
  }
  if (auto v = get(kCompactionMinFilesConf)) {
    char* end = nullptr;
    long long n = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || !end || *end || n < 1) {
      return Status::InvalidArgument(InvalidConf(kCompactionMinFilesConf, *v, "a positive integer"),
                                     errc::kInvalidConfValue);
    }
    t.compaction_min_files = n;
  }
  return t;
}

Result<int64_t> TargetExpirationDays(int64_t target_days, int64_t retention_millis) {
  if (target_days < 0 || retention_millis < 0) {
    return Status::InvalidArgument("The target and the retention must not be negative.",
                                   kErrorAutoTtlTargetTooShort);
  }
  int64_t retention_days = (retention_millis + delta::kMillisPerDay - 1) / delta::kMillisPerDay;
  int64_t n = target_days - kAutoTtlBufferDays - retention_days;
  if (n < 0) {
    int64_t max_retention = target_days - kAutoTtlBufferDays;
    std::string advice = max_retention >= 0
                             ? "lower delta.deletedFileRetentionDuration to at most " +
                                   std::to_string(max_retention) +
                                   " days (below 7 days VACUUM needs "
                                   "spark.databricks.delta.retentionDurationCheck.enabled = false) "
                                   "or raise the target"
                             : "raise the target to at least " +
                                   std::to_string(kAutoTtlBufferDays + retention_days) + " days";
    return Status::InvalidArgument(
        "Rows cannot be removed from storage within " + std::to_string(target_days) +
            " days: the maintenance buffer (" + std::to_string(kAutoTtlBufferDays) +
            " days) plus the retention (" + std::to_string(retention_days) +
            " days) already exceed it; " + advice + ".",
        kErrorAutoTtlTargetTooShort);
  }
  return n;
}

int64_t AutoTtlCutoff(TypeId column_type, int32_t expire_in_days, int64_t now_millis) {
  if (column_type == TypeId::kDate) {
    int64_t today = now_millis >= 0
                        ? now_millis / delta::kMillisPerDay
                        : -((-now_millis + delta::kMillisPerDay - 1) / delta::kMillisPerDay);
    return today - expire_in_days;
  }
  return now_millis * 1000 - static_cast<int64_t>(expire_in_days) * kMicrosPerDay;
}

std::string AutoTtlCutoffLiteral(TypeId column_type, int64_t cutoff) {
  switch (column_type) {
    case TypeId::kDate:
      return "DATE '" + FormatDate(static_cast<int32_t>(cutoff)) + "'";
    case TypeId::kTimestampNtz:
      return "TIMESTAMP_NTZ '" + FormatTs(cutoff) + "'";
    default:
      return "TIMESTAMP '" + FormatTs(cutoff) + "Z'";
  }
}

const char* JobName(Job job) {
  switch (job) {
    case Job::kAutoTtlDelete:
      return "DELETE";
    case Job::kPurge:
      return "PURGE";
    case Job::kVacuum:
      return "VACUUM";
    case Job::kCompaction:
      return "COMPACTION";
    case Job::kCheckpoint:
      return "CHECKPOINT";
    case Job::kLogCleanup:
      return "LOG_CLEANUP";
  }
  return "?";
}

Result<TableAdvice> Advise(const delta::Snapshot& snap, const AdvisorOptions& options) {
  SILT_RETURN_NOT_OK(ops::RequireClock(options.clock, "AdvisorOptions"));
  if (!snap.files_loaded())
    return Status::Internal("maintenance::Advise needs a snapshot with its files loaded");
  TableAdvice a;
  a.version = snap.version();
  a.now_millis = options.clock->NowMillis();
  const delta::StringMap& conf = snap.metadata().configuration;
  for (const delta::AddFile& f : snap.files()) {
    ++a.num_files;
    a.num_bytes += f.size;
    if (auto r = NumRecords(f)) a.num_records += std::max<int64_t>(0, *r - DvRows(f));
    a.deleted_rows += DvRows(f);
  }
  SILT_ASSIGN_OR_RETURN(a.deletion_vectors_enabled,
                        delta::GetBoolProperty(conf, "delta.enableDeletionVectors", false));
  SILT_ASSIGN_OR_RETURN(int64_t retention, delta::GetDeletedFileRetentionMillis(conf));
  SILT_ASSIGN_OR_RETURN(std::optional<delta::AutoTtlPolicy> policy, delta::AutoTtlPolicyOf(conf));
  if (policy) {
    SILT_ASSIGN_OR_RETURN(AutoTtlAdvice ttl, AdviseTtl(snap, *policy, a.now_millis, retention));
    a.ttl = std::move(ttl);
  }
  a.jobs.push_back(TtlJob(a.ttl));
  a.jobs.push_back(PurgeJob(snap, a.ttl.has_value(), a.deletion_vectors_enabled));
  SILT_ASSIGN_OR_RETURN(JobAdvice vacuum,
                        VacuumJob(snap, a.now_millis, retention, options.verify_tombstones));
  a.jobs.push_back(std::move(vacuum));
  SILT_ASSIGN_OR_RETURN(std::vector<JobAdvice> routine,
                        AdviseRoutineJobs(snap, options.thresholds, a.now_millis));
  for (JobAdvice& j : routine) a.jobs.push_back(std::move(j));
  return a;
}

Result<std::vector<JobAdvice>> AdviseRoutineJobs(const delta::Snapshot& snap,
                                                 const Thresholds& thresholds, int64_t now_millis) {
  if (!snap.files_loaded())
    return Status::Internal(
        "maintenance::AdviseRoutineJobs needs a snapshot with its files loaded");
  int64_t num_records = 0, deleted_rows = 0;
  for (const delta::AddFile& f : snap.files()) {
    if (auto r = NumRecords(f)) num_records += std::max<int64_t>(0, *r - DvRows(f));
    deleted_rows += DvRows(f);
  }
  std::vector<JobAdvice> jobs;
  jobs.push_back(CompactionJob(snap, thresholds, num_records, deleted_rows));
  SILT_ASSIGN_OR_RETURN(JobAdvice checkpoint, CheckpointJob(snap));
  jobs.push_back(std::move(checkpoint));
  SILT_ASSIGN_OR_RETURN(JobAdvice cleanup, LogCleanupJob(snap, now_millis));
  jobs.push_back(std::move(cleanup));
  return jobs;
}

std::vector<AdviceRow> AdviceRows(const TableAdvice& advice, const std::string& table) {
  std::vector<AdviceRow> rows;
  for (const JobAdvice& j : advice.jobs) {
    AdviceRow r;
    r.job = JobName(j.job);
    r.due = j.due;
    r.files = j.files;
    r.bytes = j.bytes;
    r.rows = j.rows;
    r.detail = j.detail;
    switch (j.job) {
      case Job::kAutoTtlDelete:
        if (advice.ttl && j.files > 0) {
          r.action = "DELETE FROM " + table + " WHERE " +
                     QuoteName(advice.ttl->policy.timestamp_column) +
                     " <= " + AutoTtlCutoffLiteral(advice.ttl->column_type, advice.ttl->cutoff);
        }
        break;
      case Job::kPurge:
        if (j.files > 0) r.action = "REORG TABLE " + table + " APPLY (PURGE)";
        break;
      case Job::kVacuum:
        if (j.files > 0) r.action = "VACUUM " + table;
        break;
      case Job::kCompaction:
        if (j.files > 0) r.action = "OPTIMIZE " + table;
        break;
      case Job::kCheckpoint:
        if (j.due) r.action = "write a checkpoint at version " + std::to_string(advice.version);
        break;
      case Job::kLogCleanup:
        if (j.files > 0) r.action = "delete " + std::to_string(j.files) + " expired log files";
        break;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace silt::maintenance
