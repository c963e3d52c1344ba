#include "ops/delta_source.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/change_data_feed.h"
#include "delta/history.h"
#include "delta/log_segment.h"
#include "delta/scan.h"
#include "delta/schema_json.h"
#include "ops/ops.h"

namespace silt::ops {

namespace {

Status IllegalOption(std::string_view name, std::string_view input, std::string_view explain) {
  return Status::InvalidArgument("Invalid value '" + std::string(input) + "' for option '" +
                                     std::string(name) + "', " + std::string(explain),
                                 kErrorIllegalDeltaOption);
}

Result<bool> ParseBool(std::string_view name, std::string_view text) {
  if (EqualsIgnoreCase(text, "true")) return true;
  if (EqualsIgnoreCase(text, "false")) return false;
  return IllegalOption(name, text, "must be 'true' or 'false'");
}

std::optional<int64_t> ParseLong(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool neg = false;
  if (text[0] == '-' || text[0] == '+') {
    neg = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  __int128 v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
    if (v > static_cast<__int128>(std::numeric_limits<int64_t>::max()) + 1) return std::nullopt;
  }
  if (neg) v = -v;
  if (v > std::numeric_limits<int64_t>::max()) return std::nullopt;
  return static_cast<int64_t>(v);
}

// Scala's Map.toString of operationParameters ("Map(predicate -> [\"(id < 3)\"])").
std::string ChangeInfo(const delta::CommitInfo& ci) {
  std::string out = ci.operation.value_or("");
  out += " (Map(";
  if (ci.operation_parameters) {
    bool first = true;
    for (const auto& [k, v] : ci.operation_parameters->entries()) {
      if (!first) out += ", ";
      first = false;
      std::string value = v;
      // Plain string parameters are JSON strings in the log; Spark's map holds them unquoted.
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
      out += k + " -> " + value;
    }
  }
  out += "))";
  return out;
}

IndexedFile Placeholder(int64_t version, int64_t index, bool snapshot, int64_t ts) {
  IndexedFile f;
  f.version = version;
  f.index = index;
  f.is_snapshot = snapshot;
  f.commit_timestamp_ms = ts;
  return f;
}

// Spark's AdmissionLimits: per-file for snapshot files, whole commits otherwise.
class Admission {
 public:
  Admission(int64_t max_files, std::optional<int64_t> max_bytes)
      : files_left_(max_files), bytes_left_(max_bytes.value_or(INT64_MAX)) {}
  bool AdmitFile(int64_t size) {
    if (files_left_ <= 0 || bytes_left_ <= 0) return false;
    --files_left_;
    bytes_left_ -= size;
    admitted_any_ = true;
    return true;
  }
  bool AdmitCommit(int64_t files, int64_t bytes) {
    if (files == 0) return true;
    // The first commit of a batch is admitted whole even when it exceeds the limits (else a
    // large commit would stall the stream).
    if (admitted_any_ && (files > files_left_ || bytes > bytes_left_)) return false;
    files_left_ -= files;
    bytes_left_ -= bytes;
    admitted_any_ = true;
    return true;
  }

 private:
  int64_t files_left_;
  int64_t bytes_left_;
  bool admitted_any_ = false;
};

void AppendChunk(DataChunk&& from, size_t ncols, std::vector<DataChunk>* out) {
  DataChunk c;
  for (size_t k = 0; k < ncols; ++k) {
    Vector v(from.columns[k].type());
    v.AppendRange(from.columns[k], 0, from.size());
    c.columns.push_back(std::move(v));
  }
  c.num_rows_without_columns = from.size();
  out->push_back(std::move(c));
}

// Spark's StructType.treeString for error messages.
std::string TreeString(const Schema& schema) {
  std::string out = "root\n";
  for (const auto& f : schema) {
    out += " |-- " + f.name + ": " + f.type->ToString() +
           " (nullable = " + (f.nullable ? "true" : "false") + ")\n";
  }
  return out;
}

// SchemaUtils.isReadCompatible(existingSchema = data, readSchema = read) at the top level, types
// compared exactly (no type widening).
bool ReadCompatible(const Schema& data, const Schema& read) {
  for (const auto& d : data) {
    auto it = std::find_if(read.begin(), read.end(), [&](const Field& r) {
      return AsciiLower(r.name) == AsciiLower(d.name);
    });
    if (it == read.end()) return false;  // a column the stream does not read: added
    if (it->name != d.name || !it->type->Equals(*d.type)) return false;
  }
  return true;
}

}  // namespace

std::optional<int64_t> ParseSparkByteSize(std::string_view text) {
  std::string s = AsciiLower(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  size_t digits = i;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == i) return std::nullopt;
  auto n = ParseLong(std::string_view(s).substr(i, digits - i));
  if (!n) return std::nullopt;
  std::string suffix = s.substr(digits);
  int shift = 0;
  if (suffix.empty() || suffix == "b") {
    shift = 0;
  } else if (suffix == "k" || suffix == "kb") {
    shift = 10;
  } else if (suffix == "m" || suffix == "mb") {
    shift = 20;
  } else if (suffix == "g" || suffix == "gb") {
    shift = 30;
  } else if (suffix == "t" || suffix == "tb") {
    shift = 40;
  } else if (suffix == "p" || suffix == "pb") {
    shift = 50;
  } else {
    return std::nullopt;
  }
  if (shift > 0 && *n > (std::numeric_limits<int64_t>::max() >> shift)) return std::nullopt;
  return *n << shift;
}

Result<DeltaSourceOptions> ParseDeltaSourceOptions(
    const std::vector<std::pair<std::string, std::string>>& options) {
  DeltaSourceOptions o;
  bool has_version = false, has_timestamp = false;
  for (const auto& [key, value] : options) {
    const std::string k = AsciiLower(key);
    if (k == "startingversion") {
      has_version = true;
      if (EqualsIgnoreCase(value, "latest")) {
        o.starting_version_latest = true;
        continue;
      }
      auto v = ParseLong(value);
      if (!v || *v < 0) {
        return IllegalOption("startingVersion", value,
                             "must be greater than or equal to zero or 'latest'");
      }
      o.starting_version = *v;
    } else if (k == "startingtimestamp") {
      has_timestamp = true;
      SILT_ASSIGN_OR_RETURN(int64_t ms, delta::ParseTimestampLiteralMillis(value));
      o.starting_timestamp_ms = ms;
    } else if (k == "maxfilespertrigger") {
      auto v = ParseLong(value);
      if (!v || *v <= 0 || *v > std::numeric_limits<int32_t>::max())
        return IllegalOption("maxFilesPerTrigger", value, "must be a positive integer");
      o.max_files_per_trigger = *v;
    } else if (k == "maxbytespertrigger") {
      auto v = ParseSparkByteSize(value);
      if (!v || *v <= 0)
        return IllegalOption("maxBytesPerTrigger", value,
                             "must be a size configuration such as '10g'");
      o.max_bytes_per_trigger = *v;
    } else if (k == "ignoredeletes") {
      SILT_ASSIGN_OR_RETURN(o.ignore_deletes, ParseBool("ignoreDeletes", value));
    } else if (k == "ignorechanges") {
      SILT_ASSIGN_OR_RETURN(o.ignore_changes, ParseBool("ignoreChanges", value));
    } else if (k == "ignorefiledeletion") {
      SILT_ASSIGN_OR_RETURN(o.ignore_file_deletion, ParseBool("ignoreFileDeletion", value));
    } else if (k == "skipchangecommits") {
      SILT_ASSIGN_OR_RETURN(o.skip_change_commits, ParseBool("skipChangeCommits", value));
    } else if (k == "failondataloss") {
      SILT_ASSIGN_OR_RETURN(o.fail_on_data_loss, ParseBool("failOnDataLoss", value));
    } else if (k == "readchangefeed" || k == "readchangedata") {
      SILT_ASSIGN_OR_RETURN(o.read_change_feed, ParseBool(key, value));
    } else if (k == "excluderegex") {
      try {
        std::regex re(value);
        (void)re;
      } catch (const std::regex_error& e) {
        return IllegalOption("excludeRegex", value, std::string("invalid regex: ") + e.what());
      }
      o.exclude_regex = value;
    } else if (k == "schematrackinglocation" || k == "schemalocation") {
      return Status::NotImplemented("the Delta source option " + key +
                                    " (non-additive schema evolution) is not implemented");
    } else if (k == "witheventtimeorder") {
      SILT_ASSIGN_OR_RETURN(bool on, ParseBool("withEventTimeOrder", value));
      if (on) {
        return Status::NotImplemented(
            "the Delta source option withEventTimeOrder=true is not implemented");
      }
    } else if (k == "spark.databricks.delta.changedatafeed.timestampoutofrange.enabled") {
      SILT_ASSIGN_OR_RETURN(o.timestamp_out_of_range_enabled, ParseBool(key, value));
    }
  }
  if (has_version && has_timestamp) {
    return Status::InvalidArgument("Please either provide 'startingVersion' or 'startingTimestamp'",
                                   kErrorStartingVersionAndTimestamp);
  }
  return o;
}

std::string SerializeDeltaSourceOffset(const DeltaSourceOffset& offset) {
  int64_t index = offset.index;
  int source_version = 1;
  if (index == DeltaSourceOffset::kBaseIndex) {
    index = -1;
  } else if (index == DeltaSourceOffset::kMetadataChangeIndex ||
             index == DeltaSourceOffset::kPostMetadataChangeIndex) {
    source_version = 3;
  }
  std::string out = "{\"sourceVersion\":" + std::to_string(source_version) + ",\"reservoirId\":\"";
  out += offset.reservoir_id;  // a UUID: nothing to escape
  out += "\",\"reservoirVersion\":" + std::to_string(offset.reservoir_version);
  out += ",\"index\":" + std::to_string(index);
  out += ",\"isStartingVersion\":";
  out += offset.is_initial_snapshot ? "true" : "false";
  out += "}";
  return out;
}

Result<DeltaSourceOffset> ParseDeltaSourceOffset(std::string_view json) {
  const Status bad =
      Status::InvalidArgument("The stored source offset format is invalid: " + std::string(json),
                              kErrorInvalidSourceOffsetFormat);
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS || !root.is_object()) return bad;
  int64_t source_version = 0;
  if (root["sourceVersion"].get_int64().get(source_version) != simdjson::SUCCESS) return bad;
  if (source_version > 3) {
    return Status::InvalidArgument(
        "Unsupported format. Expected version should be smaller than or equal to 3 but was " +
            std::to_string(source_version) + ". Please upgrade to newer version of Delta.",
        kErrorInvalidFormatFromSourceVersion);
  }
  if (source_version < 1 || source_version == 2) {
    return Status::InvalidArgument(
        "sourceVersion(" + std::to_string(source_version) + ") is invalid",
        kErrorInvalidSourceVersion);
  }
  DeltaSourceOffset o;
  std::string_view id;
  if (root["reservoirId"].get_string().get(id) != simdjson::SUCCESS) return bad;
  o.reservoir_id = std::string(id);
  if (root["reservoirVersion"].get_int64().get(o.reservoir_version) != simdjson::SUCCESS)
    return bad;
  if (root["index"].get_int64().get(o.index) != simdjson::SUCCESS) return bad;
  if (root["isStartingVersion"].get_bool().get(o.is_initial_snapshot) != simdjson::SUCCESS)
    return bad;
  if (o.index == -1) o.index = DeltaSourceOffset::kBaseIndex;
  if (o.index == DeltaSourceOffset::kEndIndex) return bad;
  return o;
}

Result<std::unique_ptr<DeltaSource>> DeltaSource::Open(std::shared_ptr<ObjectStore> table,
                                                       DeltaSourceOptions options,
                                                       std::shared_ptr<Clock> clock) {
  SILT_RETURN_NOT_OK(RequireClock(clock, "DeltaSource"));
  std::unique_ptr<DeltaSource> s(new DeltaSource());
  s->store_ = std::move(table);
  s->clock_ = std::move(clock);
  s->options_ = std::move(options);
  if (s->options_.exclude_regex) s->exclude_.emplace(*s->options_.exclude_regex);
  SILT_RETURN_NOT_OK(s->LatestVersion().status());
  s->table_id_ = s->latest_->metadata().id;
  s->init_version_ = s->latest_->version();
  s->table_schema_ = s->latest_->schema();
  s->schema_ = s->table_schema_;
  if (s->options_.read_change_feed) {
    s->schema_.push_back(Field{delta::kChangeTypeColumn, DataType::String(), true, "{}"});
    s->schema_.push_back(Field{delta::kCommitVersionColumn, DataType::Int64(), true, "{}"});
    s->schema_.push_back(Field{delta::kCommitTimestampColumn, DataType::Timestamp(), true, "{}"});
  }
  return s;
}

Result<int64_t> DeltaSource::LatestVersion() {
  delta::SnapshotOptions no_files;
  no_files.load_files = false;
  SILT_ASSIGN_OR_RETURN(latest_, delta::Snapshot::Load(store_, std::nullopt, no_files));
  return latest_->version();
}

Status DeltaSource::CheckOffsetTable(const DeltaSourceOffset& offset) const {
  if (offset.reservoir_id == table_id_) return Status::OK();
  return Status::InvalidArgument(
      "The streaming query was reading from an unexpected Delta table (id = '" + table_id_ +
          "'). It used to read from another Delta table (id = '" + offset.reservoir_id +
          "') according to checkpoint. This may happen when you changed the code to read from a "
          "new table or you deleted and re-created a table. Please revert your change or delete "
          "your streaming query checkpoint to restart from scratch.",
      kErrorDifferentTableReadByStream);
}

Status DeltaSource::CheckSchemaChange(const delta::Metadata& metadata, int64_t version) const {
  if (!metadata.schema_string) return Status::OK();
  SILT_ASSIGN_OR_RETURN(Schema data, delta::ParseSchemaString(*metadata.schema_string));
  const std::string* mode_text = metadata.configuration.Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(delta::ColumnMappingMode mode,
                        delta::ParseColumnMappingMode(
                            mode_text ? std::optional<std::string>(*mode_text) : std::nullopt));
  if (mode != delta::ColumnMappingMode::kNone) {
    // DeltaColumnMapping.hasNoColumnMappingSchemaChanges(new, old): no column of the older
    // schema dropped or renamed in the newer one (the data schema is the older one for a version
    // before the source opened: a restarted stream reading old commits).
    const bool data_older = version < init_version_;
    const Schema& older = data_older ? data : table_schema_;
    const Schema& newer = data_older ? table_schema_ : data;
    for (const auto& r : older) {
      const std::string physical = delta::PhysicalNameOrName(r, mode);
      auto it = std::find_if(newer.begin(), newer.end(), [&](const Field& d) {
        return delta::PhysicalNameOrName(d, mode) == physical;
      });
      if (it == newer.end() || it->name != r.name) {
        return Status::InvalidArgument(
            "Streaming read is not supported on tables with read-incompatible schema changes "
            "(e.g. rename or drop or datatype changes).\nRead schema: " +
                TreeString(table_schema_) + ". Incompatible data schema: " + TreeString(data) +
                " (version " + std::to_string(version) + ", column " + r.name +
                (it == newer.end() ? " dropped" : " renamed to " + it->name) + ").",
            errc::kDeltaStreamingIncompatibleSchemaChangeUseSchemaLog);
      }
    }
  }
  if (ReadCompatible(data, table_schema_)) return Status::OK();
  const bool starting = options_.starting_version || options_.starting_version_latest ||
                        options_.starting_timestamp_ms;
  std::string msg = "Detected schema change in version " + std::to_string(version) +
                    ":\nstreaming source schema: " + TreeString(table_schema_) +
                    "\ndata file schema: " + TreeString(data) +
                    "\nPlease try restarting the query. If this issue repeats across query "
                    "restarts without making progress, you have made an incompatible schema "
                    "change and need to start your query from scratch using a new checkpoint "
                    "directory.";
  if (starting) {
    msg +=
        " If the issue persists after changing to a new checkpoint directory, you may need to "
        "change the existing 'startingVersion' or 'startingTimestamp' option to start from a "
        "version newer than " +
        std::to_string(version) + " with a new checkpoint directory.";
  }
  return Status::InvalidArgument(msg, starting ? errc::kDeltaSchemaChangedWithStartingOptions
                                               : errc::kDeltaSchemaChangedWithVersion);
}

Status DeltaSource::CheckSchemaAtStart(int64_t version) {
  delta::SnapshotOptions no_files;
  no_files.load_files = false;
  auto snap = delta::Snapshot::Load(store_, version, no_files);
  if (!snap.ok()) return Status::OK();  // gone from the log: the commits' own checks apply
  return CheckSchemaChange((*snap)->metadata(), version);
}

Result<DeltaSourceOffset> DeltaSource::InitialOffset() {
  SILT_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
  DeltaSourceOffset o;
  o.reservoir_id = table_id_;
  o.index = DeltaSourceOffset::kBaseIndex;
  if (options_.starting_version_latest) {
    o.reservoir_version = latest + 1;
    return o;
  }
  if (options_.starting_version) {
    SILT_RETURN_NOT_OK(delta::CheckVersionExists(*store_, *options_.starting_version,
                                                 /*must_be_recreatable=*/false));
    o.reservoir_version = *options_.starting_version;
    return o;
  }
  if (options_.starting_timestamp_ms) {
    auto v = delta::ChangeFeedStartVersionAt(*store_, *options_.starting_timestamp_ms);
    if (!v.ok() && v.status().error_class() == errc::kDeltaTimestampGreaterThanCommit &&
        options_.timestamp_out_of_range_enabled) {
      o.reservoir_version = latest + 1;
      return o;
    }
    SILT_RETURN_NOT_OK(v.status());
    o.reservoir_version = *v;
    return o;
  }
  o.reservoir_version = latest;
  o.is_initial_snapshot = true;
  return o;
}

bool DeltaSource::Excluded(const delta::AddFile& add) const {
  return exclude_ && std::regex_search(add.path, *exclude_);
}

Result<const std::vector<IndexedFile>*> DeltaSource::SnapshotEntries(int64_t version) {
  auto it = snapshot_cache_.find(version);
  if (it != snapshot_cache_.end()) return &it->second;
  SILT_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(store_, version));
  std::vector<const delta::AddFile*> files;
  for (const auto& f : snap->files()) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const delta::AddFile* a, const delta::AddFile* b) {
    return a->modification_time != b->modification_time
               ? a->modification_time < b->modification_time
               : a->path < b->path;
  });
  const int64_t ts = snap->timestamp_ms();
  std::vector<IndexedFile> out;
  out.push_back(Placeholder(version, DeltaSourceOffset::kBaseIndex, true, ts));
  for (size_t i = 0; i < files.size(); ++i) {
    if (Excluded(*files[i])) continue;
    IndexedFile f = Placeholder(version, static_cast<int64_t>(i), true, ts);
    f.add = *files[i];
    out.push_back(std::move(f));
  }
  out.push_back(Placeholder(version, DeltaSourceOffset::kEndIndex, true, ts));
  snapshot_cache_.clear();  // one snapshot per stream start: keep only the newest
  return &snapshot_cache_.emplace(version, std::move(out)).first->second;
}

Result<const std::vector<IndexedFile>*> DeltaSource::CommitEntries(int64_t version) {
  auto it = commit_cache_.find(version);
  if (it != commit_cache_.end()) return &it->second;
  std::vector<IndexedFile> out;
  auto bytes = store_->Get(delta::CommitKey(version));
  int64_t ts = 0;
  if (!bytes.ok()) {
    if (bytes.status().code() != StatusCode::kNotFound) return bytes.status();
    if (options_.fail_on_data_loss) {
      return Status::NotFound(
          store_->root() + "/" + delta::CommitKey(version) +
              " not found. If you never deleted it, it's likely your query is lagging behind. "
              "Please delete its checkpoint to restart from scratch. To avoid this happening "
              "again, you can update your retention policy of your Delta table",
          kErrorLogFileNotFoundForStream);
    }
    // failOnDataLoss=false: the version is gone; continue with what is left.
  } else {
    std::vector<delta::Action> actions;
    SILT_RETURN_NOT_OK(delta::ParseCommit(*bytes, &actions, delta::CommitKey(version)));
    bool seen_add = false, seen_remove = false;
    std::string removed_path;
    const delta::CommitInfo* ci = nullptr;
    std::vector<const delta::AddFile*> adds;
    int64_t change_files = 0;
    for (const auto& a : actions) {
      if (const auto* add = a.get_if<delta::AddFile>()) {
        if (add->data_change) {
          seen_add = true;
          adds.push_back(add);
        }
      } else if (const auto* rm = a.get_if<delta::RemoveFile>()) {
        if (rm->data_change) {
          if (!seen_remove) removed_path = rm->path;
          seen_remove = true;
          ++change_files;
        }
      } else if (a.get_if<delta::AddCDCFile>() != nullptr) {
        ++change_files;
      } else if (const auto* m = a.get_if<delta::Metadata>()) {
        SILT_RETURN_NOT_OK(CheckSchemaChange(*m, version));
      } else if (const auto* c = a.get_if<delta::CommitInfo>()) {
        ci = c;
        if (c->in_commit_timestamp) ts = *c->in_commit_timestamp;
      }
    }
    if (ts == 0) {
      auto head = store_->Head(delta::CommitKey(version));
      if (head.ok()) ts = head->modification_time_ms;
    }
    out.push_back(Placeholder(version, DeltaSourceOffset::kBaseIndex, false, ts));
    bool emit = !options_.read_change_feed;
    if (options_.read_change_feed) {
      // Every change counts toward admission; the rows come from the change feed.
      const int64_t n = static_cast<int64_t>(adds.size()) + change_files;
      for (int64_t i = 0; i < n; ++i) {
        IndexedFile f = Placeholder(version, i, false, ts);
        f.add = delta::AddFile{};
        out.push_back(std::move(f));
      }
    } else if (seen_remove) {
      const bool allow_changes =
          options_.ignore_changes || options_.ignore_file_deletion || options_.skip_change_commits;
      const bool allow_deletes = allow_changes || options_.ignore_deletes;
      if (options_.skip_change_commits) {
        emit = false;
      } else if (seen_add) {
        if (!allow_changes) {
          return Status::Unsupported(
              "Detected a data update (for example " +
                  (ci != nullptr ? ChangeInfo(*ci) : removed_path) +
                  ") in the source table at version " + std::to_string(version) +
                  ". This is currently not supported. If this is going to happen regularly and "
                  "you are okay to skip changes, set the option 'skipChangeCommits' to 'true'. "
                  "If you would like the data update to be reflected, please restart this query "
                  "with a fresh checkpoint directory. The source table can be found at path " +
                  store_->root() + ".",
              kErrorSourceIgnoreChanges);
        }
      } else {
        if (!allow_deletes) {
          return Status::Unsupported(
              "Detected deleted data (for example " + removed_path +
                  ") from streaming source at version " + std::to_string(version) +
                  ". This is currently not supported. If you'd like to ignore deletes, set the "
                  "option 'ignoreDeletes' to 'true'. The source table can be found at path " +
                  store_->root() + ".",
              kErrorSourceIgnoreDelete);
        }
        emit = false;
      }
    }
    if (emit) {
      for (size_t i = 0; i < adds.size(); ++i) {
        if (Excluded(*adds[i])) continue;
        IndexedFile f = Placeholder(version, static_cast<int64_t>(i), false, ts);
        f.add = *adds[i];
        out.push_back(std::move(f));
      }
    }
  }
  out.push_back(Placeholder(version, DeltaSourceOffset::kEndIndex, false, ts));
  // Keep a bounded window of parsed commits (a batch is read twice: offset, then rows).
  while (commit_cache_.size() >= 4096) commit_cache_.erase(commit_cache_.begin());
  return &commit_cache_.emplace(version, std::move(out)).first->second;
}

template <typename Visit>
Status DeltaSource::Walk(const DeltaSourceOffset& start, int64_t last_version, Visit&& visit) {
  int64_t v = start.reservoir_version;
  int64_t after = start.index;
  if (start.is_initial_snapshot) {
    if (v > last_version) return Status::OK();
    SILT_ASSIGN_OR_RETURN(const std::vector<IndexedFile>* entries, SnapshotEntries(v));
    SILT_ASSIGN_OR_RETURN(bool more, visit(*entries, after));
    if (!more) return Status::OK();
    ++v;
    after = DeltaSourceOffset::kBaseIndex;
  }
  for (; v <= last_version; ++v) {
    SILT_ASSIGN_OR_RETURN(const std::vector<IndexedFile>* entries, CommitEntries(v));
    SILT_ASSIGN_OR_RETURN(bool more, visit(*entries, after));
    if (!more) break;
    after = DeltaSourceOffset::kBaseIndex;
  }
  return Status::OK();
}

Result<std::optional<DeltaSourceOffset>> DeltaSource::NextOffset(
    const DeltaSourceOffset& start, std::optional<int64_t> version_limit) {
  SILT_RETURN_NOT_OK(CheckOffsetTable(start));
  SILT_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
  const int64_t last = version_limit ? std::min(latest, *version_limit) : latest;
  int64_t max_files = options_.max_files_per_trigger.value_or(
      options_.max_bytes_per_trigger ? std::numeric_limits<int32_t>::max() - 8
                                     : kDefaultMaxFilesPerTrigger);
  Admission admission(max_files, options_.max_bytes_per_trigger);
  DeltaSourceOffset end = start;
  auto next_version = [&](int64_t v) {
    end.reservoir_version = v + 1;
    end.index = DeltaSourceOffset::kBaseIndex;
    end.is_initial_snapshot = false;
  };
  SILT_RETURN_NOT_OK(Walk(
      start, last, [&](const std::vector<IndexedFile>& entries, int64_t after) -> Result<bool> {
        const int64_t v = entries.front().version;
        if (entries.front().is_snapshot) {
          for (const IndexedFile& f : entries) {
            if (!f.add || f.index <= after) continue;
            if (!admission.AdmitFile(f.add->size)) return false;
            end.reservoir_version = v;
            end.index = f.index;
            end.is_initial_snapshot = true;
          }
          next_version(v);
          return true;
        }
        int64_t files = 0, bytes = 0;
        for (const IndexedFile& f : entries) {
          if (!f.add || f.index <= after) continue;
          ++files;
          bytes += f.add->size;
        }
        if (!admission.AdmitCommit(files, bytes)) return false;
        next_version(v);
        return true;
      }));
  if (end == start) return std::optional<DeltaSourceOffset>();
  return std::optional<DeltaSourceOffset>(end);
}

Result<std::vector<IndexedFile>> DeltaSource::FilesBetween(const DeltaSourceOffset& start,
                                                           const DeltaSourceOffset& end) {
  SILT_RETURN_NOT_OK(CheckOffsetTable(start));
  SILT_RETURN_NOT_OK(CheckOffsetTable(end));
  std::vector<IndexedFile> out;
  const int64_t last = end.index == DeltaSourceOffset::kBaseIndex ? end.reservoir_version - 1
                                                                  : end.reservoir_version;
  SILT_RETURN_NOT_OK(Walk(
      start, last, [&](const std::vector<IndexedFile>& entries, int64_t after) -> Result<bool> {
        for (const IndexedFile& f : entries) {
          if (!f.add || f.index <= after) continue;
          if (f.version == end.reservoir_version && f.index > end.index) return false;
          out.push_back(f);
        }
        return true;
      }));
  return out;
}

Result<SourceBatch> DeltaSource::GetBatch(const DeltaSourceOffset& start,
                                          const DeltaSourceOffset& end) {
  SourceBatch batch;
  batch.schema = schema_;
  SILT_ASSIGN_OR_RETURN(batch.num_files, ScanBatch(start, end, [&](const DataChunk& c) -> Status {
                          DataChunk copy;
                          for (const auto& col : c.columns) {
                            Vector v(col.type());
                            v.AppendRange(col, 0, c.size());
                            copy.columns.push_back(std::move(v));
                          }
                          copy.num_rows_without_columns = c.size();
                          batch.num_rows += static_cast<int64_t>(c.size());
                          batch.chunks.push_back(std::move(copy));
                          return Status::OK();
                        }));
  return batch;
}

Result<int64_t> DeltaSource::ScanBatch(const DeltaSourceOffset& start, const DeltaSourceOffset& end,
                                       const std::function<Status(const DataChunk&)>& sink) {
  SILT_ASSIGN_OR_RETURN(std::vector<IndexedFile> files, FilesBetween(start, end));
  const int64_t num_files = static_cast<int64_t>(files.size());
  if (files.empty()) return num_files;
  SILT_RETURN_NOT_OK(LatestVersion().status());
  SILT_ASSIGN_OR_RETURN(auto scan, delta::TableScan::Make(latest_));
  const size_t ncols = table_schema_.size();
  if (!options_.read_change_feed) {
    for (const IndexedFile& f : files) {
      SILT_RETURN_NOT_OK(scan->ScanFile(*f.add, [&](DataChunk& chunk) -> Status {
        if (chunk.size() == 0) return Status::OK();
        if (chunk.columns.size() == ncols) return sink(chunk);
        std::vector<DataChunk> one;
        AppendChunk(std::move(chunk), ncols, &one);
        return sink(one.front());
      }));
    }
    return num_files;
  }
  // Snapshot files are inserts at the snapshot version; commits come from the change feed,
  // consecutive versions read as one range.
  std::vector<int64_t> versions;
  for (const IndexedFile& f : files) {
    if (f.is_snapshot) {
      std::vector<DataChunk> rows;
      SILT_RETURN_NOT_OK(scan->ScanFile(*f.add, [&](DataChunk& chunk) -> Status {
        if (chunk.size() > 0) AppendChunk(std::move(chunk), ncols, &rows);
        return Status::OK();
      }));
      for (auto& c : rows) {
        const size_t n = c.size();
        Vector t(DataType::String()), v(DataType::Int64()), ts(DataType::Timestamp());
        for (size_t i = 0; i < n; ++i) {
          t.AppendString("insert");
          v.Append<int64_t>(f.version);
          ts.Append<int64_t>(f.commit_timestamp_ms * 1000);
        }
        c.columns.push_back(std::move(t));
        c.columns.push_back(std::move(v));
        c.columns.push_back(std::move(ts));
        SILT_RETURN_NOT_OK(sink(c));
      }
    } else if (versions.empty() || versions.back() != f.version) {
      versions.push_back(f.version);
    }
  }
  size_t i = 0;
  while (i < versions.size()) {
    size_t j = i;
    while (j + 1 < versions.size() && versions[j + 1] == versions[j] + 1) ++j;
    SILT_ASSIGN_OR_RETURN(delta::ChangeFeed feed,
                          delta::ReadChangeFeed(store_, versions[i], versions[j]));
    for (const auto& c : feed.chunks) SILT_RETURN_NOT_OK(sink(c));
    i = j + 1;
  }
  return num_files;
}

}  // namespace silt::ops
