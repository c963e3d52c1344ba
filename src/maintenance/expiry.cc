#include "maintenance/expiry.h"

#include <cstdio>
#include <utility>

#include "common/ascii.h"
#include "common/datetime.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "maintenance/advisor.h"
#include "vector/value.h"

namespace silt::maintenance {
namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;
constexpr int64_t kMicrosPerMilli = 1000;

// Whether a time value (days or µs, per the cutoff's type) is expired.
bool Expired(const TtlCutoff& c, int64_t v) { return v <= c.value; }

}  // namespace

Result<TtlCutoff> ComputeCutoff(const delta::AutoTtlPolicy& policy, const delta::Snapshot& snapshot,
                                int64_t now_ms) {
  // The column rules of the DDL (delta/auto_ttl.h): a policy another writer left may break them.
  SILT_ASSIGN_OR_RETURN(size_t index,
                        delta::ValidateAutoTtlColumn(snapshot.schema(), policy.timestamp_column,
                                                     /*case_sensitive=*/false));
  const Field* field = &snapshot.schema()[index];
  TtlCutoff c;
  c.column = field->name;
  c.physical_column = delta::PhysicalNameOrName(*field, snapshot.column_mapping_mode());
  for (const std::string& p : snapshot.partition_columns()) {
    if (EqualsIgnoreCase(p, field->name)) c.partition_column = true;
  }
  c.type = field->type->id();
  const int64_t n = policy.expire_in_days;
  switch (c.type) {
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDate:
      c.value = AutoTtlCutoff(c.type, static_cast<int32_t>(n), now_ms);  // the advisor's rule
      break;
    default:  // ValidateAutoTtlColumn admits only the three time types
      return Status::Internal("auto-TTL column `" + field->name + "` of type " +
                              field->type->ToString());
  }
  // The one literal form (SHOW MAINTENANCE prints the same).
  c.literal = AutoTtlCutoffLiteral(c.type, c.value);
  c.text = c.literal.substr(c.literal.find('\'') + 1);
  c.text.pop_back();
  c.predicate_sql = "(" + c.column + " <= " + c.literal + ")";
  return c;
}

Result<ops::FileVerdict> ExpiryVerdict(const TtlCutoff& cutoff, const Schema& physical_schema,
                                       const delta::AddFile& file) {
  if (cutoff.partition_column) {
    const auto* text = file.partition_values.Find(cutoff.physical_column);
    if (!text) text = file.partition_values.Find(cutoff.column);
    if (!text || !*text) return ops::FileVerdict::kSkip;  // NULL never expires
    TypePtr type = cutoff.type == TypeId::kDate        ? DataType::Date()
                   : cutoff.type == TypeId::kTimestamp ? DataType::Timestamp()
                                                       : DataType::TimestampNtz();
    SILT_ASSIGN_OR_RETURN(Value v, delta::ParsePartitionValue(*text, type));
    if (v.is_null()) return ops::FileVerdict::kSkip;
    return Expired(cutoff, v.integer()) ? ops::FileVerdict::kAll : ops::FileVerdict::kSkip;
  }
  if (!file.stats || file.stats->empty()) return ops::FileVerdict::kMaybe;
  Result<delta::FileStats> st = delta::ParseStats(*file.stats, physical_schema);
  if (!st.ok()) return ops::FileVerdict::kMaybe;
  if (st->num_records && *st->num_records == 0) return ops::FileVerdict::kSkip;
  const delta::ColumnStats* cs = st->Find(delta::StatsPathKey({cutoff.physical_column}));
  if (!cs) return ops::FileVerdict::kMaybe;
  if (cs->null_count && st->num_records && *cs->null_count == *st->num_records &&
      st->TightBounds()) {
    return ops::FileVerdict::kSkip;  // every value NULL
  }
  if (cs->min && !cs->min->is_null() && !Expired(cutoff, cs->min->integer()))
    return ops::FileVerdict::kSkip;
  if (cs->max && !cs->max->is_null() && cs->null_count && *cs->null_count == 0 &&
      st->TightBounds()) {
    int64_t max = cs->max->integer();
    if (cutoff.type != TypeId::kDate) max += kMicrosPerMilli - 1;  // truncated to ms when written
    if (Expired(cutoff, max)) return ops::FileVerdict::kAll;
  }
  return ops::FileVerdict::kMaybe;
}

Result<bool> MayHaveExpiredRows(const TtlCutoff& cutoff, const delta::Snapshot& snapshot) {
  SILT_ASSIGN_OR_RETURN(Schema physical,
                        delta::ToPhysicalSchema(snapshot.schema(), snapshot.column_mapping_mode()));
  for (const delta::AddFile& f : snapshot.files()) {
    SILT_ASSIGN_OR_RETURN(ops::FileVerdict v, ExpiryVerdict(cutoff, physical, f));
    if (v != ops::FileVerdict::kSkip) return true;
  }
  return false;
}

Result<TtlDeleteResult> RunTtlDelete(std::shared_ptr<ObjectStore> store,
                                     std::shared_ptr<const delta::Snapshot> snapshot,
                                     const TtlCutoff& cutoff, ops::DmlOptions options) {
  TtlDeleteResult out;
  SILT_ASSIGN_OR_RETURN(bool maybe, MayHaveExpiredRows(cutoff, *snapshot));
  if (!maybe) {
    out.skipped_by_precheck = true;
    return out;
  }
  SILT_ASSIGN_OR_RETURN(Schema physical, delta::ToPhysicalSchema(snapshot->schema(),
                                                                 snapshot->column_mapping_mode()));
  ops::DeleteSpec spec;
  spec.predicate_sql = cutoff.predicate_sql;
  spec.columns = {cutoff.column};
  spec.file_filter = [cutoff, physical](const delta::AddFile& f) {
    return ExpiryVerdict(cutoff, physical, f);
  };
  const TypeId type = cutoff.type;
  const int64_t limit = cutoff.value;
  spec.matcher = [type, limit](const DataChunk& rows) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> sel;
    const Vector& v = rows.columns[0];
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!v.IsValid(i)) continue;
      int64_t x = type == TypeId::kDate ? v.Get<int32_t>(i) : v.Get<int64_t>(i);
      if (x <= limit) sel.push_back(static_cast<uint32_t>(i));
    }
    return sel;
  };
  spec.options = std::move(options);
  SILT_ASSIGN_OR_RETURN(out.dml, ops::DeleteRows(store, snapshot, std::move(spec)));
  if (out.dml.version && out.dml.used_deletion_vectors) {
    SILT_ASSIGN_OR_RETURN(std::string bytes, store->Get(delta::CommitKey(*out.dml.version)));
    std::vector<delta::Action> actions;
    SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, delta::CommitKey(*out.dml.version)));
    for (const delta::Action& a : actions) {
      if (const auto* add = a.get_if<delta::AddFile>(); add && add->deletion_vector)
        out.dv_files.push_back(add->path);
    }
  }
  return out;
}

}  // namespace silt::maintenance
