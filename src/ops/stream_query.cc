#include "ops/stream_query.h"

#include <simdjson.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/error_classes.h"
#include "delta/auto_ttl.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/z85.h"
#include "ops/dml.h"
#include "ops/ops.h"

namespace silt::ops {

namespace {

constexpr auto& kSchemaMismatch = errc::kDeltaMetadataMismatchSchemaMismatch;

std::string BatchKey(const std::string& dir, int64_t batch) {
  return dir + "/" + std::to_string(batch);
}

// The lines of a Spark metadata log file ("v1\n…").
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty()) out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::string SchemaText(const Schema& s) {
  std::string out = "root\n";
  for (const auto& f : s) out += " |-- " + f.name + ": " + f.type->ToString() + "\n";
  return out;
}

}  // namespace

Result<StreamCheckpoint> StreamCheckpoint::Open(std::shared_ptr<ObjectStore> dir) {
  StreamCheckpoint cp;
  cp.dir_ = std::move(dir);
  auto meta = cp.dir_->Get("metadata");
  if (!meta.ok()) {
    if (!meta.status().IsNotFound()) return meta.status();
    const std::string text = "{\"id\":\"" + delta::Uuid::Random().ToString() + "\"}";
    Status st = cp.dir_->PutIfAbsent("metadata", text);
    if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
    meta = cp.dir_->Get("metadata");
    SILT_RETURN_NOT_OK(meta.status());
  }
  simdjson::dom::parser parser;
  simdjson::padded_string padded(*meta);
  simdjson::dom::element root;
  std::string_view id;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
      root["id"].get_string().get(id) != simdjson::SUCCESS) {
    return Status::Corruption(
        "checkpoint metadata of " + cp.dir_->root() + " is not {\"id\":…}: " + *meta,
        kErrorInvalidSourceOffsetFormat);
  }
  cp.query_id_ = std::string(id);
  return cp;
}

Result<std::optional<int64_t>> StreamCheckpoint::LatestIn(const std::string& dir) const {
  SILT_ASSIGN_OR_RETURN(auto listed, dir_->ListFrom(dir + "/"));
  std::optional<int64_t> best;
  for (const auto& m : listed) {
    if (m.key.rfind(dir + "/", 0) != 0) break;
    std::string_view name = std::string_view(m.key).substr(dir.size() + 1);
    if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    int64_t n = std::stoll(std::string(name));
    if (!best || n > *best) best = n;
  }
  return best;
}

Result<std::optional<int64_t>> StreamCheckpoint::LatestOffsetBatch() const {
  return LatestIn("offsets");
}
Result<std::optional<int64_t>> StreamCheckpoint::LatestCommitBatch() const {
  return LatestIn("commits");
}

Result<DeltaSourceOffset> StreamCheckpoint::ReadOffset(int64_t batch) const {
  SILT_ASSIGN_OR_RETURN(std::string text, dir_->Get(BatchKey("offsets", batch)));
  auto lines = Lines(text);
  if (lines.size() < 3 || lines[0] != "v1") {
    return Status::Corruption("offsets/" + std::to_string(batch) + " of " + dir_->root() +
                                  " is not a Spark offset log entry",
                              kErrorInvalidSourceOffsetFormat);
  }
  return ParseDeltaSourceOffset(lines[2]);
}

Status StreamCheckpoint::WriteOffset(int64_t batch, const DeltaSourceOffset& offset,
                                     int64_t batch_ts_ms) const {
  std::string text =
      "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":" + std::to_string(batch_ts_ms) +
      ",\"conf\":{}}\n" + SerializeDeltaSourceOffset(offset);
  return dir_->PutIfAbsent(BatchKey("offsets", batch), text);
}

Status StreamCheckpoint::WriteCommit(int64_t batch) const {
  return dir_->PutIfAbsent(BatchKey("commits", batch), "v1\n{\"nextBatchWatermarkMs\":0}");
}

Result<std::optional<DeltaSourceOffset>> StreamCheckpoint::ReadInitialOffset() const {
  auto text = dir_->Get("sources/0/0");
  if (!text.ok()) {
    if (text.status().IsNotFound()) return std::optional<DeltaSourceOffset>();
    return text.status();
  }
  auto lines = Lines(*text);
  if (lines.size() < 2 || lines[0] != "v1") {
    return Status::Corruption("sources/0/0 of " + dir_->root() + " is not an offset entry",
                              kErrorInvalidSourceOffsetFormat);
  }
  SILT_ASSIGN_OR_RETURN(DeltaSourceOffset o, ParseDeltaSourceOffset(lines[1]));
  return std::optional<DeltaSourceOffset>(o);
}

Status StreamCheckpoint::WriteInitialOffset(const DeltaSourceOffset& offset) const {
  return dir_->PutIfAbsent("sources/0/0", "v1\n" + SerializeDeltaSourceOffset(offset));
}

namespace {

Result<std::shared_ptr<const delta::Snapshot>> LoadOrCreateSink(const DeltaSinkOptions& sink,
                                                                const Schema& schema,
                                                                bool load_files) {
  delta::SnapshotOptions so;
  so.load_files = load_files;
  auto snap = delta::Snapshot::Load(sink.table, std::nullopt, so);
  if (snap.ok()) return *snap;
  if (snap.status().error_class() != errc::kDeltaTableNotFound) return snap.status();
  delta::CreateTableOptions co;
  co.partition_columns = sink.partition_columns;
  co.properties = sink.properties;
  co.write.clock = sink.clock;
  co.txn.clock = sink.clock;
  auto created = delta::CreateTable(sink.table, schema, {}, co);
  // A concurrent creator is fine: the table is there either way.
  if (!created.ok() && created.status().error_class() != errc::kDeltaTableAlreadyExists)
    return created.status();
  return delta::Snapshot::Load(sink.table, std::nullopt, so);
}

Status CheckSinkSchema(const delta::Snapshot& snap, const Schema& data) {
  const Schema& table = snap.schema();
  bool same = table.size() == data.size();
  for (size_t i = 0; same && i < table.size(); ++i) {
    same = table[i].name == data[i].name && table[i].type->Equals(*data[i].type);
  }
  if (same) return Status::OK();
  return Status::InvalidArgument(
      "A metadata mismatch was detected when writing to the Delta table. A schema mismatch "
      "detected when writing to the Delta table (Table ID: " +
          snap.metadata().id + ").\n\nTable schema:\n" + SchemaText(table) + "\nData schema:\n" +
          SchemaText(data),
      kSchemaMismatch);
}

// The key of row i over `cols`, NULLs distinct from every value.
std::string RowKey(const DataChunk& chunk, const std::vector<size_t>& cols, size_t i) {
  std::string key;
  for (size_t c : cols) {
    const Vector& v = chunk.columns[c];
    if (!v.IsValid(i)) {
      key += '\x01';
    } else {
      key += '\x02';
      key += v.GetValue(i).ToString();
    }
    key += '\x1f';
  }
  return key;
}

}  // namespace

Result<bool> AppendRowsToSink(const DeltaSinkOptions& sink, const std::string& query_id,
                              int64_t batch_id, const Schema& schema, const delta::RowSource& rows,
                              int64_t* num_rows) {
  SILT_RETURN_NOT_OK(RequireClock(sink.clock, "DeltaSinkOptions"));
  *num_rows = 0;
  SILT_ASSIGN_OR_RETURN(auto snap, LoadOrCreateSink(sink, schema, /*load_files=*/false));
  auto t = snap->transactions().find(query_id);
  if (t != snap->transactions().end() && t->second.version >= batch_id) return false;
  SILT_RETURN_NOT_OK(CheckSinkSchema(*snap, schema));
  delta::DataWriteOptions write;
  write.clock = sink.clock;
  SILT_ASSIGN_OR_RETURN(
      delta::WrittenFiles written,
      delta::WriteDataFilesFrom(*sink.table, snap->metadata(), snap->schema(), rows, write));
  *num_rows = written.rows;
  delta::TransactionOptions txn_options;
  txn_options.clock = sink.clock;
  delta::Transaction txn(sink.table, snap, txn_options);
  delta::StringMap params;
  params.Set("outputMode", "\"Append\"");
  params.Set("queryId", "\"" + query_id + "\"");
  params.Set("epochId", "\"" + std::to_string(batch_id) + "\"");
  txn.SetOperation("STREAMING UPDATE", params);
  int64_t bytes = 0;
  for (const auto& a : written.adds) bytes += a.size;
  txn.SetMetric("numAddedFiles", static_cast<int64_t>(written.adds.size()));
  txn.SetMetric("numOutputRows", written.rows);
  txn.SetMetric("numOutputBytes", bytes);
  txn.SetMetric("numRemovedFiles", 0);
  for (auto& a : written.adds) txn.Add(std::move(a));
  delta::SetTransaction txn_action;
  txn_action.app_id = query_id;
  txn_action.version = batch_id;
  txn_action.last_updated = sink.clock->NowMillis();
  txn.SetAppTransaction(txn_action);
  txn.SetReadScope(delta::ReadScope::kNothing);
  SILT_RETURN_NOT_OK(txn.Commit().status());
  return true;
}

Result<bool> AddBatchToSink(const DeltaSinkOptions& sink, const std::string& query_id,
                            int64_t batch_id, const SourceBatch& batch) {
  SILT_RETURN_NOT_OK(RequireClock(sink.clock, "DeltaSinkOptions"));
  const bool upsert = sink.mode == SinkMode::kUpsert;
  SILT_ASSIGN_OR_RETURN(auto snap, LoadOrCreateSink(sink, batch.schema, upsert));
  auto t = snap->transactions().find(query_id);
  if (t != snap->transactions().end() && t->second.version >= batch_id) return false;
  SILT_RETURN_NOT_OK(CheckSinkSchema(*snap, batch.schema));
  delta::SetTransaction txn_action;
  txn_action.app_id = query_id;
  txn_action.version = batch_id;
  txn_action.last_updated = sink.clock->NowMillis();
  delta::TransactionOptions txn_options;
  txn_options.clock = sink.clock;
  delta::DataWriteOptions write;
  write.clock = sink.clock;

  if (!upsert) {
    int64_t rows = 0;
    return AppendRowsToSink(
        sink, query_id, batch_id, batch.schema,
        [&](const std::function<Status(const DataChunk&)>& write) -> Status {
          for (const auto& c : batch.chunks) SILT_RETURN_NOT_OK(write(c));
          return Status::OK();
        },
        &rows);
  }

  // Upsert: the last batch row per key, and the table rows with those keys deleted.
  std::vector<size_t> key_cols;
  for (const auto& k : sink.key_columns) {
    auto it = std::find_if(batch.schema.begin(), batch.schema.end(),
                           [&](const Field& f) { return f.name == k; });
    if (it == batch.schema.end()) {
      return Status::InvalidArgument("upsert key column " + k + " is not a column of the stream",
                                     errc::kDeltaColumnNotFoundInSchema);
    }
    key_cols.push_back(static_cast<size_t>(it - batch.schema.begin()));
  }
  if (key_cols.empty()) {
    return Status::InvalidArgument("an upsert sink needs key columns",
                                   errc::kDeltaColumnNotFoundInSchema);
  }
  std::unordered_map<std::string, std::pair<size_t, size_t>> last;  // key → (chunk, row)
  for (size_t c = 0; c < batch.chunks.size(); ++c) {
    for (size_t i = 0; i < batch.chunks[c].size(); ++i) {
      last[RowKey(batch.chunks[c], key_cols, i)] = {c, i};
    }
  }
  std::vector<DataChunk> new_rows;
  for (size_t c = 0; c < batch.chunks.size(); ++c) {
    std::vector<uint32_t> keep;
    for (size_t i = 0; i < batch.chunks[c].size(); ++i) {
      auto it = last.find(RowKey(batch.chunks[c], key_cols, i));
      if (it->second == std::make_pair(c, i)) keep.push_back(static_cast<uint32_t>(i));
    }
    if (keep.empty()) continue;
    DataChunk out;
    for (const auto& col : batch.chunks[c].columns) {
      Vector v(col.type());
      v.AppendSelected(col, keep.data(), keep.size());
      out.columns.push_back(std::move(v));
    }
    new_rows.push_back(std::move(out));
  }
  std::unordered_set<std::string> keys;
  for (const auto& [k, _] : last) keys.insert(k);
  DeleteSpec spec;
  spec.columns = sink.key_columns;
  std::vector<size_t> matcher_cols;
  for (size_t i = 0; i < key_cols.size(); ++i) matcher_cols.push_back(i);
  spec.matcher = [&keys, matcher_cols](const DataChunk& rows) -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (keys.count(RowKey(rows, matcher_cols, i))) out.push_back(static_cast<uint32_t>(i));
    }
    return out;
  };
  spec.options.clock = sink.clock;
  spec.options.txn = txn_options;
  spec.options.write = write;
  SILT_ASSIGN_OR_RETURN(RowChanges changes, MatchDeletedRows(sink.table, snap, spec));
  changes.operation = "MERGE";
  changes.metric_names = MetricNames::kMerge;
  changes.parameters = delta::StringMap{};
  std::string keys_text;
  for (const auto& k : sink.key_columns) {
    if (!keys_text.empty()) keys_text += " AND ";
    keys_text += "(target." + k + " = source." + k + ")";
  }
  changes.parameters.Set("predicate", "\"" + keys_text + "\"");
  changes.parameters.Set("queryId", "\"" + query_id + "\"");
  changes.parameters.Set("epochId", "\"" + std::to_string(batch_id) + "\"");
  int64_t inserted = 0;
  for (const auto& c : new_rows) inserted += static_cast<int64_t>(c.size());
  changes.extra_metrics.emplace_back("numSourceRows", batch.num_rows);
  changes.new_rows = std::move(new_rows);
  changes.app_transactions.push_back(txn_action);
  (void)inserted;
  SILT_RETURN_NOT_OK(ApplyRowChanges(sink.table, snap, std::move(changes), spec.options).status());
  return true;
}

Result<StreamQueryResult> RunStream(const StreamQueryOptions& options) {
  SILT_RETURN_NOT_OK(RequireClock(options.clock, "StreamQueryOptions"));
  DeltaSinkOptions sink = options.sink;
  if (!sink.clock) sink.clock = options.clock;
  DeltaSourceOptions source_options = options.source_options;
  if (options.trigger == Trigger::kOnce) {
    // Trigger.Once: one batch of everything available; rate limits do not apply.
    source_options.max_files_per_trigger = std::numeric_limits<int32_t>::max();
    source_options.max_bytes_per_trigger.reset();
  }
  SILT_ASSIGN_OR_RETURN(auto source,
                        DeltaSource::Open(options.source, source_options, options.clock));
  if (options.warn && !source_options.skip_change_commits && !source_options.read_change_feed) {
    delta::SnapshotOptions no_files;
    no_files.load_files = false;
    SILT_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(options.source, std::nullopt, no_files));
    auto policy = delta::AutoTtlPolicyOf(snap->metadata().configuration);
    if (policy.ok() && policy->has_value()) {
      options.warn("the source " + options.source->root() +
                   " has an Auto-TTL policy: its expiry DELETEs fail this stream with "
                   "DELTA_SOURCE_TABLE_IGNORE_CHANGES unless the option skipChangeCommits is true");
    }
  }
  SILT_ASSIGN_OR_RETURN(StreamCheckpoint cp, StreamCheckpoint::Open(options.checkpoint));
  StreamQueryResult result;
  result.query_id = cp.query_id();

  SILT_ASSIGN_OR_RETURN(std::optional<DeltaSourceOffset> initial, cp.ReadInitialOffset());
  if (!initial) {
    SILT_ASSIGN_OR_RETURN(DeltaSourceOffset o, source->InitialOffset());
    Status st = cp.WriteInitialOffset(o);
    if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
    SILT_ASSIGN_OR_RETURN(initial, cp.ReadInitialOffset());
  }
  SILT_RETURN_NOT_OK(source->CheckOffsetTable(*initial));
  auto start_of = [&](int64_t batch) -> Result<DeltaSourceOffset> {
    if (batch == 0) return *initial;
    return cp.ReadOffset(batch - 1);
  };
  auto hook = [&](int64_t batch, std::string_view step) -> Status {
    return options.step_hook ? options.step_hook(batch, step) : Status::OK();
  };
  auto run_batch = [&](int64_t batch, const DeltaSourceOffset& start,
                       const DeltaSourceOffset& end) -> Status {
    bool written = false;
    int64_t num_rows = 0, num_files = 0;
    if (options.transform) {
      SILT_ASSIGN_OR_RETURN(SourceBatch rows, source->GetBatch(start, end));
      num_rows = rows.num_rows;
      num_files = rows.num_files;
      SILT_ASSIGN_OR_RETURN(SourceBatch out, options.transform(std::move(rows)));
      int64_t written_rows = 0;
      SILT_ASSIGN_OR_RETURN(
          written, AppendRowsToSink(
                       sink, cp.query_id(), batch, out.schema,
                       [&](const std::function<Status(const DataChunk&)>& write) -> Status {
                         for (const auto& c : out.chunks) SILT_RETURN_NOT_OK(write(c));
                         return Status::OK();
                       },
                       &written_rows));
    } else if (sink.mode == SinkMode::kAppend) {
      // Rows flow from the source files into the sink's writer a chunk at a time.
      SILT_ASSIGN_OR_RETURN(
          written, AppendRowsToSink(
                       sink, cp.query_id(), batch, source->schema(),
                       [&](const std::function<Status(const DataChunk&)>& write) -> Status {
                         SILT_ASSIGN_OR_RETURN(num_files, source->ScanBatch(start, end, write));
                         return Status::OK();
                       },
                       &num_rows));
    } else {
      SILT_ASSIGN_OR_RETURN(SourceBatch rows, source->GetBatch(start, end));
      SILT_ASSIGN_OR_RETURN(written, AddBatchToSink(sink, cp.query_id(), batch, rows));
      num_rows = rows.num_rows;
      num_files = rows.num_files;
    }
    if (!written) ++result.batches_skipped_by_sink;
    SILT_RETURN_NOT_OK(hook(batch, "sink"));
    SILT_RETURN_NOT_OK(cp.WriteCommit(batch));
    ++result.batches;
    result.rows += num_rows;
    result.files += num_files;
    result.last_batch_id = batch;
    return Status::OK();
  };

  int64_t next = 0;
  DeltaSourceOffset current = *initial;
  SILT_ASSIGN_OR_RETURN(std::optional<int64_t> last_offset, cp.LatestOffsetBatch());
  if (last_offset) {
    SILT_ASSIGN_OR_RETURN(std::optional<int64_t> last_commit, cp.LatestCommitBatch());
    SILT_ASSIGN_OR_RETURN(DeltaSourceOffset end, cp.ReadOffset(*last_offset));
    SILT_RETURN_NOT_OK(source->CheckOffsetTable(end));
    if (!last_commit || *last_commit < *last_offset) {
      // The previous run stopped inside this batch: run it again over the same offsets.
      SILT_ASSIGN_OR_RETURN(DeltaSourceOffset start, start_of(*last_offset));
      SILT_RETURN_NOT_OK(run_batch(*last_offset, start, end));
    }
    next = *last_offset + 1;
    current = end;
  }

  if (!current.is_initial_snapshot) {
    // A restarted stream: the schema where it resumes against the one it reads with now.
    SILT_ASSIGN_OR_RETURN(int64_t latest, source->LatestVersion());
    if (current.reservoir_version <= latest) {
      SILT_RETURN_NOT_OK(source->CheckSchemaAtStart(current.reservoir_version));
    }
  }
  std::optional<int64_t> version_limit;
  if (options.trigger == Trigger::kAvailableNow) {
    SILT_ASSIGN_OR_RETURN(int64_t latest, source->LatestVersion());
    version_limit = latest;
  }
  while (true) {
    if (options.max_batches && result.batches >= *options.max_batches) break;
    SILT_ASSIGN_OR_RETURN(std::optional<DeltaSourceOffset> end,
                          source->NextOffset(current, version_limit));
    if (end) {
      SILT_RETURN_NOT_OK(cp.WriteOffset(next, *end, options.clock->NowMillis()));
      SILT_RETURN_NOT_OK(hook(next, "offsets"));
      SILT_RETURN_NOT_OK(run_batch(next, current, *end));
      current = *end;
      ++next;
    }
    if (options.trigger == Trigger::kOnce) break;
    if (options.trigger == Trigger::kAvailableNow) {
      if (!end) break;
      continue;
    }
    if (!options.wait_for_trigger || !options.wait_for_trigger()) break;
  }
  return result;
}

}  // namespace silt::ops
