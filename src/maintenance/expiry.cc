#include "maintenance/expiry.h"

#include <simdjson.h>

#include <cstdio>
#include <set>
#include <unordered_map>
#include <utility>

#include "common/ascii.h"
#include "common/datetime.h"
#include "delta/actions.h"
#include "delta/change_data_feed.h"
#include "delta/json_util.h"
#include "delta/log_segment.h"
#include "delta/partition_values.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "delta/z85.h"
#include "maintenance/advisor.h"
#include "ops/ops.h"
#include "vector/value.h"

namespace silt::maintenance {
namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;
constexpr int64_t kMicrosPerMilli = 1000;

// Whether a time value (days or µs, per the cutoff's type) is expired.
bool Expired(const TtlCutoff& c, int64_t v) { return v <= c.value; }

// The TTL DELETE of `cutoff` on `snapshot`: the policy column's matcher and the files' verdicts.
Result<ops::DeleteSpec> TtlDeleteSpec(const TtlCutoff& cutoff, const delta::Snapshot& snapshot,
                                      ops::DmlOptions options) {
  SILT_ASSIGN_OR_RETURN(Schema physical,
                        delta::ToPhysicalSchema(snapshot.schema(), snapshot.column_mapping_mode()));
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
  return spec;
}

// The paths the DELETE commit gave a deletion vector: what PURGE rewrites.
Result<std::vector<std::string>> DvFilesOf(ObjectStore& store, const ops::DmlResult& dml) {
  std::vector<std::string> out;
  if (!dml.version || !dml.used_deletion_vectors) return out;
  SILT_ASSIGN_OR_RETURN(std::string bytes, store.Get(delta::CommitKey(*dml.version)));
  std::vector<delta::Action> actions;
  SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, delta::CommitKey(*dml.version)));
  for (const delta::Action& a : actions) {
    if (const auto* add = a.get_if<delta::AddFile>(); add && add->deletion_vector)
      out.push_back(add->path);
  }
  return out;
}

constexpr std::string_view kTtlTaskKind = "ttlDelete";

Status BadTtlTask(const std::string& what) {
  return Status::InvalidArgument("not a TTL DELETE task or output: " + what,
                                 errc::kSiltInvalidDistributedTask);
}

const char* TypeName(TypeId t) {
  return t == TypeId::kDate ? "date" : t == TypeId::kTimestamp ? "timestamp" : "timestamp_ntz";
}

struct TtlTask {
  std::string job;
  TtlTaskTable table;
  int64_t index = 0;
  TtlCutoff cutoff;
  std::vector<std::string> paths;
};

std::string SerializeTtlTask(const TtlTask& t) {
  std::string out = "{\"kind\":\"";
  out += kTtlTaskKind;
  out += "\",\"job\":";
  delta::AppendJacksonString(&out, t.job);
  out += ",\"table\":";
  delta::AppendJacksonString(&out, t.table.table_uri);
  out += ",\"version\":";
  delta::AppendInt(&out, t.table.version);
  out += ",\"task\":";
  delta::AppendInt(&out, t.index);
  const TtlCutoff& c = t.cutoff;
  out += ",\"cutoff\":{\"column\":";
  delta::AppendJacksonString(&out, c.column);
  out += ",\"physical\":";
  delta::AppendJacksonString(&out, c.physical_column);
  out += c.partition_column ? ",\"partition\":true" : ",\"partition\":false";
  out += ",\"type\":\"";
  out += TypeName(c.type);
  out += "\",\"value\":";
  delta::AppendInt(&out, c.value);
  out += ",\"literal\":";
  delta::AppendJacksonString(&out, c.literal);
  out += ",\"predicate\":";
  delta::AppendJacksonString(&out, c.predicate_sql);
  out += ",\"text\":";
  delta::AppendJacksonString(&out, c.text);
  out += "},\"files\":[";
  for (size_t i = 0; i < t.paths.size(); ++i) {
    if (i) out += ',';
    delta::AppendJacksonString(&out, t.paths[i]);
  }
  out += "]}";
  return out;
}

Result<TtlTask> ParseTtlTask(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get(obj)) return BadTtlTask("not a JSON object");
  std::string_view kind, job, table, column, physical, type, literal, predicate, text;
  simdjson::dom::object c;
  simdjson::dom::array files;
  TtlTask t;
  if (obj["kind"].get(kind) || kind != kTtlTaskKind) return BadTtlTask("another kind of task");
  if (obj["job"].get(job) || obj["table"].get(table) || obj["version"].get(t.table.version) ||
      obj["task"].get(t.index) || obj["cutoff"].get(c) || obj["files"].get(files) ||
      c["column"].get(column) || c["physical"].get(physical) ||
      c["partition"].get(t.cutoff.partition_column) || c["type"].get(type) ||
      c["value"].get(t.cutoff.value) || c["literal"].get(literal) ||
      c["predicate"].get(predicate) || c["text"].get(text)) {
    return BadTtlTask("a field is missing or mistyped");
  }
  t.job = std::string(job);
  t.table.table_uri = std::string(table);
  t.cutoff.column = std::string(column);
  t.cutoff.physical_column = std::string(physical);
  if (type == "date") {
    t.cutoff.type = TypeId::kDate;
  } else if (type == "timestamp") {
    t.cutoff.type = TypeId::kTimestamp;
  } else if (type == "timestamp_ntz") {
    t.cutoff.type = TypeId::kTimestampNtz;
  } else {
    return BadTtlTask("unknown cutoff type " + std::string(type));
  }
  t.cutoff.literal = std::string(literal);
  t.cutoff.predicate_sql = std::string(predicate);
  t.cutoff.text = std::string(text);
  for (simdjson::dom::element f : files) {
    std::string_view path;
    if (f.get(path)) return BadTtlTask("a file that is not a string");
    t.paths.emplace_back(path);
  }
  return t;
}

// A worker's matched rows of one file.
struct FileMatch {
  std::string path;
  bool all_rows = false;
  delta::DeletionVector rows;
};

struct TtlOutput {
  std::string job;
  int64_t index = 0;
  int64_t files_read = 0;
  std::vector<FileMatch> files;
};

std::string SerializeTtlOutput(const TtlOutput& o) {
  std::string out = "{\"job\":";
  delta::AppendJacksonString(&out, o.job);
  out += ",\"task\":";
  delta::AppendInt(&out, o.index);
  out += ",\"filesRead\":";
  delta::AppendInt(&out, o.files_read);
  out += ",\"files\":[";
  for (size_t i = 0; i < o.files.size(); ++i) {
    const FileMatch& f = o.files[i];
    const std::string bytes = f.rows.Serialize();
    out += i ? ",{\"path\":" : "{\"path\":";
    delta::AppendJacksonString(&out, f.path);
    out += f.all_rows ? ",\"all\":true" : ",\"all\":false";
    out += ",\"size\":";
    delta::AppendInt(&out, static_cast<int64_t>(bytes.size()));
    out += ",\"rows\":";
    delta::AppendJacksonString(&out, delta::Z85Encode(bytes));
    out += '}';
  }
  out += "]}";
  return out;
}

Result<TtlOutput> ParseTtlOutput(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get(obj)) return BadTtlTask("not a JSON object");
  TtlOutput o;
  std::string_view job;
  simdjson::dom::array files;
  if (obj["job"].get(job) || obj["task"].get(o.index) || obj["filesRead"].get(o.files_read) ||
      obj["files"].get(files)) {
    return BadTtlTask("a field is missing or mistyped");
  }
  o.job = std::string(job);
  for (simdjson::dom::element e : files) {
    std::string_view path, rows;
    int64_t size = 0;
    FileMatch m;
    if (e["path"].get(path) || e["all"].get(m.all_rows) || e["size"].get(size) ||
        e["rows"].get(rows) || size < 0) {
      return BadTtlTask("a file entry is missing or mistyped");
    }
    m.path = std::string(path);
    SILT_ASSIGN_OR_RETURN(std::string bytes,
                          delta::Z85DecodeBytes(rows, static_cast<size_t>(size)));
    SILT_ASSIGN_OR_RETURN(m.rows, delta::DeletionVector::Deserialize(bytes));
    o.files.push_back(std::move(m));
  }
  return o;
}

Status RefuseChangeDataFeed(const delta::Snapshot& snapshot) {
  if (!delta::ChangeDataFeedEnabled(snapshot.metadata())) return Status::OK();
  return Status::NotImplemented(
      "a distributed TTL DELETE of a table with delta.enableChangeDataFeed = true (its deleted "
      "rows would have to travel back from the workers); run it locally",
      errc::kNotImplemented);
}

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
  SILT_ASSIGN_OR_RETURN(ops::DeleteSpec spec, TtlDeleteSpec(cutoff, *snapshot, std::move(options)));
  SILT_ASSIGN_OR_RETURN(out.dml, ops::DeleteRows(store, snapshot, std::move(spec)));
  SILT_ASSIGN_OR_RETURN(out.dv_files, DvFilesOf(*store, out.dml));
  return out;
}

Result<TtlDeleteResult> RunTtlDeleteRemotely(std::shared_ptr<ObjectStore> store,
                                             std::shared_ptr<const delta::Snapshot> snapshot,
                                             const TtlCutoff& cutoff, ops::DmlOptions options,
                                             const std::string& table_uri,
                                             const TaskRunner& run_tasks, int64_t task_bytes) {
  TtlDeleteResult out;
  SILT_ASSIGN_OR_RETURN(bool maybe, MayHaveExpiredRows(cutoff, *snapshot));
  if (!maybe) {
    out.skipped_by_precheck = true;
    return out;
  }
  SILT_RETURN_NOT_OK(RefuseChangeDataFeed(*snapshot));
  SILT_RETURN_NOT_OK(ops::RequireClock(options.clock, "DmlOptions"));
  Clock& clock = *options.clock;
  const int64_t start = clock.NowMillis();
  SILT_RETURN_NOT_OK(snapshot->CheckWriteSupported(true, store->root()));
  SILT_ASSIGN_OR_RETURN(ops::DeleteSpec spec, TtlDeleteSpec(cutoff, *snapshot, options));
  // DeleteRows' classification: kAll removed unread, kMaybe scanned (on the workers), in the
  // snapshot's order so the commit lists the files as the local DELETE does.
  ops::RowChanges changes;
  changes.operation = "DELETE";
  changes.parameters.Set("predicate", ops::PredicateParameter(cutoff.predicate_sql));
  changes.metric_names = ops::MetricNames::kDelete;
  changes.start_time_ms = start;
  changes.read_predicate = ops::ReadPredicateOf(spec.file_filter);
  std::unordered_map<std::string_view, const delta::AddFile*> live;
  std::vector<TtlTask> tasks;
  int64_t group_bytes = 0;
  const std::string job = delta::Uuid::Random().ToString();
  for (const delta::AddFile& f : snapshot->files()) {
    SILT_ASSIGN_OR_RETURN(ops::FileVerdict v, spec.file_filter(f));
    if (v == ops::FileVerdict::kSkip) {
      ++changes.metrics.files_skipped;
    } else if (v == ops::FileVerdict::kAll) {
      changes.deletions.push_back({f, delta::DeletionVector(), true});
    } else {
      live.emplace(f.path, &f);
      changes.read_files.push_back(f.path);
      if (tasks.empty() || (group_bytes > 0 && group_bytes + f.size > task_bytes)) {
        TtlTask t;
        t.job = job;
        t.table = {table_uri, snapshot->version()};
        t.index = static_cast<int64_t>(tasks.size());
        t.cutoff = cutoff;
        tasks.push_back(std::move(t));
        group_bytes = 0;
      }
      tasks.back().paths.push_back(f.path);
      group_bytes += f.size;
    }
  }
  const int64_t scan_start = clock.NowMillis();
  if (!tasks.empty()) {
    std::vector<std::string> texts;
    for (const TtlTask& t : tasks) texts.push_back(SerializeTtlTask(t));
    SILT_ASSIGN_OR_RETURN(std::vector<std::string> outputs, run_tasks(texts));
    if (outputs.size() != tasks.size()) {
      return Status::InvalidArgument(std::to_string(outputs.size()) + " outputs for " +
                                         std::to_string(tasks.size()) + " tasks",
                                     errc::kSiltInvalidDistributedTask);
    }
    std::vector<std::optional<TtlOutput>> by_task(tasks.size());
    for (const std::string& text : outputs) {
      SILT_ASSIGN_OR_RETURN(TtlOutput o, ParseTtlOutput(text));
      if (o.job != job || o.index < 0 || o.index >= static_cast<int64_t>(tasks.size()) ||
          by_task[static_cast<size_t>(o.index)]) {
        return Status::InvalidArgument(
            "an output of another job, or a task's output given twice (task " +
                std::to_string(o.index) + ")",
            errc::kSiltInvalidDistributedTask);
      }
      by_task[static_cast<size_t>(o.index)] = std::move(o);
    }
    for (size_t i = 0; i < tasks.size(); ++i) {
      const std::set<std::string_view> asked(tasks[i].paths.begin(), tasks[i].paths.end());
      changes.metrics.files_read += by_task[i]->files_read;
      for (FileMatch& m : by_task[i]->files) {
        auto it = live.find(m.path);
        if (it == live.end() || !asked.contains(m.path)) {
          return BadTtlTask("task " + std::to_string(i) + " returned rows of " + m.path +
                            ", a file it was not given");
        }
        changes.deletions.push_back({*it->second, std::move(m.rows), m.all_rows});
      }
    }
  }
  changes.metrics.scan_time_ms = clock.NowMillis() - scan_start;
  SILT_ASSIGN_OR_RETURN(out.dml,
                        ops::ApplyRowChanges(store, snapshot, std::move(changes), options));
  SILT_ASSIGN_OR_RETURN(out.dv_files, DvFilesOf(*store, out.dml));
  return out;
}

Result<TtlTaskTable> TtlDeleteTaskTable(std::string_view task) {
  SILT_ASSIGN_OR_RETURN(TtlTask t, ParseTtlTask(task));
  return t.table;
}

bool IsTtlDeleteTask(std::string_view task) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  std::string_view kind;
  return !parser.parse(task.data(), task.size()).get(obj) && !obj["kind"].get(kind) &&
         kind == kTtlTaskKind;
}

Result<std::string> RunTtlDeleteTask(const std::shared_ptr<ObjectStore>& store,
                                     const std::shared_ptr<const delta::Snapshot>& snapshot,
                                     std::string_view text, std::shared_ptr<Clock> clock,
                                     ThreadPool* pool) {
  SILT_ASSIGN_OR_RETURN(TtlTask task, ParseTtlTask(text));
  if (snapshot->version() != task.table.version) {
    return BadTtlTask("the snapshot is not the task's version");
  }
  SILT_RETURN_NOT_OK(RefuseChangeDataFeed(*snapshot));
  std::set<std::string_view> wanted(task.paths.begin(), task.paths.end());
  {
    std::set<std::string_view> found;
    for (const delta::AddFile& f : snapshot->files()) {
      if (wanted.contains(f.path)) found.insert(f.path);
    }
    for (std::string_view p : wanted) {
      if (!found.contains(p)) {
        return BadTtlTask("the task names " + std::string(p) + ", not a file of version " +
                          std::to_string(task.table.version));
      }
    }
  }
  ops::DmlOptions options;
  options.clock = std::move(clock);
  options.pool = pool;
  SILT_ASSIGN_OR_RETURN(ops::DeleteSpec spec, TtlDeleteSpec(task.cutoff, *snapshot, options));
  // Only this task's files: the others are another task's or were judged by the plan.
  spec.file_filter = [verdict = std::move(spec.file_filter),
                      wanted](const delta::AddFile& f) -> Result<ops::FileVerdict> {
    if (!wanted.contains(f.path)) return ops::FileVerdict::kSkip;
    return verdict(f);
  };
  SILT_ASSIGN_OR_RETURN(ops::RowChanges changes, ops::MatchDeletedRows(store, snapshot, spec));
  TtlOutput out;
  out.job = task.job;
  out.index = task.index;
  out.files_read = changes.metrics.files_read;
  for (ops::FileRowDeletion& d : changes.deletions) {
    out.files.push_back({d.file.path, d.all_rows, std::move(d.rows)});
  }
  return SerializeTtlOutput(out);
}

}  // namespace silt::maintenance
