#include "delta/checkpoint_writer.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/error_classes.h"
#include "common/logging.h"
#include "delta/log_cleanup.h"
#include "delta/log_segment.h"
#include "delta/table_properties.h"
#include "delta/z85.h"

namespace silt::delta {
namespace {

// Writer features whose tables a classic checkpoint of silt's action structs represents fully
// (they add no action fields silt would drop). v2Checkpoint is handled separately.
const std::vector<std::string>& CheckpointableWriterFeatures() {
  static const std::vector<std::string> kFeatures = {
      "appendOnly",           "invariants",          "checkConstraints",    "changeDataFeed",
      "generatedColumns",     "columnMapping",       "identityColumns",     "deletionVectors",
      "rowTracking",          "timestampNtz",        "domainMetadata",      "icebergCompatV1",
      "icebergCompatV2",      "clustering",          "vacuumProtocolCheck", "typeWidening",
      "typeWidening-preview", "inCommitTimestamp",   "allowColumnDefaults", "checkpointProtection",
      "variantType",          "variantType-preview", "v2Checkpoint"};
  return kFeatures;
}

bool HasFeature(const std::optional<std::vector<std::string>>& features, std::string_view name) {
  return features && std::find(features->begin(), features->end(), name) != features->end();
}

// Delta writes a V2 checkpoint when delta.checkpointPolicy is v2 (which needs the v2Checkpoint
// feature); with the feature and the classic policy (e.g. while DROP FEATURE v2Checkpoint runs),
// classic checkpoints.
bool WritesV2Checkpoint(const Protocol& p, const Metadata& m) {
  const std::string* policy = m.configuration.Find("delta.checkpointPolicy");
  return (HasFeature(p.reader_features, "v2Checkpoint") ||
          HasFeature(p.writer_features, "v2Checkpoint")) &&
         policy && *policy == "v2";
}

Status CheckWritable(const Protocol& p, const std::string& table) {
  if (p.min_writer_version > 7)
    return Status::Unsupported(
        "table " + table + " requires writer version " + std::to_string(p.min_writer_version),
        errc::kDeltaInvalidProtocolVersion);
  if (p.min_writer_version == 7 && p.writer_features) {
    std::string missing;
    const auto& known = CheckpointableWriterFeatures();
    for (const auto& f : *p.writer_features)
      if (std::find(known.begin(), known.end(), f) == known.end())
        missing += (missing.empty() ? "" : ", ") + f;
    if (!missing.empty())
      return Status::Unsupported(
          "cannot checkpoint table " + table +
              ": it requires writer features silt does not support: " + missing,
          errc::kDeltaUnsupportedFeaturesForWrite);
  }
  return Status::OK();
}

Field F(const char* name, TypePtr type) { return Field{name, std::move(type), true, ""}; }
TypePtr StringMapType() { return DataType::Map(DataType::String(), DataType::String(), true); }
TypePtr StringListType() { return DataType::List(DataType::String(), true); }
TypePtr DvType() {
  return DataType::Struct({F("storageType", DataType::String()),
                           F("pathOrInlineDv", DataType::String()), F("offset", DataType::Int32()),
                           F("sizeInBytes", DataType::Int32()),
                           F("cardinality", DataType::Int64())});
}

// --- appending one value to a column vector

void AppendStr(Vector& v, const std::optional<std::string>& s) {
  if (s) {
    v.AppendString(*s);
  } else {
    v.AppendNull();
  }
}
void AppendStr(Vector& v, const std::string& s) { v.AppendString(s); }
void AppendI64(Vector& v, std::optional<int64_t> x) {
  if (x) {
    v.Append<int64_t>(*x);
  } else {
    v.AppendNull();
  }
}
void AppendI32(Vector& v, std::optional<int32_t> x) {
  if (x) {
    v.Append<int32_t>(*x);
  } else {
    v.AppendNull();
  }
}
void AppendBool(Vector& v, std::optional<bool> x) {
  if (x) {
    v.Append<uint8_t>(*x ? 1 : 0);
  } else {
    v.AppendNull();
  }
}
void AppendStringMap(Vector& v, const StringMap* m) {
  if (!m) {
    v.AppendNull();
    return;
  }
  for (const auto& [k, val] : *m) {
    v.child(0).AppendString(k);
    v.child(1).AppendString(val);
  }
  v.FinishListRow();
}
void AppendPartitionValues(Vector& v, const PartitionValues* m) {
  if (!m) {
    v.AppendNull();
    return;
  }
  for (const auto& [k, val] : *m) {
    v.child(0).AppendString(k);
    AppendStr(v.child(1), val);
  }
  v.FinishListRow();
}
void AppendStringList(Vector& v, const std::optional<std::vector<std::string>>& list) {
  if (!list) {
    v.AppendNull();
    return;
  }
  for (const auto& s : *list) v.child(0).AppendString(s);
  v.FinishListRow();
}
// Closes a struct row whose children were appended.
void FinishStructRow(Vector& st) { st.SetSizeUnchecked(st.size() + 1); }

void AppendDv(Vector& v, const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) {
    v.AppendNull();
    return;
  }
  AppendStr(v.child(0), std::string(1, dv->storage_type));
  AppendStr(v.child(1), dv->path_or_inline_dv);
  AppendI32(v.child(2), dv->offset);
  AppendI32(v.child(3), dv->size_in_bytes);
  AppendI64(v.child(4), dv->cardinality);
  FinishStructRow(v);
}

// Column order of the checkpoint (CheckpointSchema).
// kCheckpointMetadata exists only in V2 checkpoints.
enum Col : size_t { kTxn, kAdd, kRemove, kMetaData, kProtocol, kDomain, kCheckpointMetadata };

// Builds rows of the checkpoint: each Append* adds one row with exactly one non-null column.
class RowBuilder {
 public:
  RowBuilder(const Schema& schema, bool stats) : schema_(schema), stats_(stats) { Reset(); }

  void Reset() { chunk_ = DataChunk::FromSchema(schema_); }
  DataChunk& chunk() { return chunk_; }
  size_t rows() const { return chunk_.size(); }

  void Add(const AddFile& a) {
    Vector& v = Begin(kAdd);
    size_t c = 0;
    AppendStr(v.child(c++), a.path);
    AppendPartitionValues(v.child(c++), &a.partition_values);
    AppendI64(v.child(c++), a.size);
    AppendI64(v.child(c++), a.modification_time);
    AppendBool(v.child(c++),
               false);  // Spark's InMemoryLogReplay: adds in checkpoints carry no change
    AppendStringMap(v.child(c++), a.tags ? &*a.tags : nullptr);
    AppendDv(v.child(c++), a.deletion_vector);
    AppendI64(v.child(c++), a.base_row_id);
    AppendI64(v.child(c++), a.default_row_commit_version);
    AppendStr(v.child(c++), a.clustering_provider);
    if (stats_) AppendStr(v.child(c++), a.stats);
    FinishStructRow(v);
  }
  void Remove(const RemoveFile& r) {
    Vector& v = Begin(kRemove);
    AppendStr(v.child(0), r.path);
    AppendI64(v.child(1), r.deletion_timestamp);
    AppendBool(v.child(2), false);
    AppendBool(v.child(3), r.extended_file_metadata);
    AppendPartitionValues(v.child(4), r.partition_values ? &*r.partition_values : nullptr);
    AppendI64(v.child(5), r.size);
    AppendDv(v.child(6), r.deletion_vector);
    AppendI64(v.child(7), r.base_row_id);
    AppendI64(v.child(8), r.default_row_commit_version);
    FinishStructRow(v);
  }
  void Meta(const Metadata& m) {
    Vector& v = Begin(kMetaData);
    AppendStr(v.child(0), m.id);
    AppendStr(v.child(1), m.name);
    AppendStr(v.child(2), m.description);
    Vector& fmt = v.child(3);
    AppendStr(fmt.child(0), m.format.provider);
    AppendStringMap(fmt.child(1), &m.format.options);
    FinishStructRow(fmt);
    AppendStr(v.child(4), m.schema_string);
    AppendStringList(v.child(5), m.partition_columns);
    AppendStringMap(v.child(6), &m.configuration);
    AppendI64(v.child(7), m.created_time);
    FinishStructRow(v);
  }
  void Proto(const Protocol& p) {
    Vector& v = Begin(kProtocol);
    AppendI32(v.child(0), p.min_reader_version);
    AppendI32(v.child(1), p.min_writer_version);
    AppendStringList(v.child(2), p.reader_features);
    AppendStringList(v.child(3), p.writer_features);
    FinishStructRow(v);
  }
  void Txn(const SetTransaction& t) {
    Vector& v = Begin(kTxn);
    AppendStr(v.child(0), t.app_id);
    AppendI64(v.child(1), t.version);
    AppendI64(v.child(2), t.last_updated);
    FinishStructRow(v);
  }
  void CheckpointMeta(int64_t version) {
    Vector& v = Begin(kCheckpointMetadata);
    AppendI64(v.child(0), version);
    AppendStringMap(v.child(1), nullptr);
    FinishStructRow(v);
  }
  void Domain(const DomainMetadata& d) {
    Vector& v = Begin(kDomain);
    AppendStr(v.child(0), d.domain);
    AppendStr(v.child(1), d.configuration);
    AppendBool(v.child(2), d.removed);
    FinishStructRow(v);
  }

 private:
  // Appends a null to every column but `col`, whose vector the caller fills.
  Vector& Begin(Col col) {
    for (size_t i = 0; i < chunk_.columns.size(); ++i)
      if (i != col) chunk_.columns[i].AppendNull();
    return chunk_.columns[col];
  }

  const Schema& schema_;
  bool stats_;
  DataChunk chunk_;
};

}  // namespace

Schema CheckpointSchema(bool write_stats_as_json, bool v2) {
  std::vector<Field> add = {F("path", DataType::String()),
                            F("partitionValues", StringMapType()),
                            F("size", DataType::Int64()),
                            F("modificationTime", DataType::Int64()),
                            F("dataChange", DataType::Boolean()),
                            F("tags", StringMapType()),
                            F("deletionVector", DvType()),
                            F("baseRowId", DataType::Int64()),
                            F("defaultRowCommitVersion", DataType::Int64()),
                            F("clusteringProvider", DataType::String())};
  if (write_stats_as_json) add.push_back(F("stats", DataType::String()));
  Schema schema(v2 ? kCheckpointMetadata + 1 : kCheckpointMetadata);
  schema[kTxn] =
      F("txn", DataType::Struct({F("appId", DataType::String()), F("version", DataType::Int64()),
                                 F("lastUpdated", DataType::Int64())}));
  schema[kAdd] = F("add", DataType::Struct(std::move(add)));
  schema[kRemove] =
      F("remove",
        DataType::Struct({F("path", DataType::String()), F("deletionTimestamp", DataType::Int64()),
                          F("dataChange", DataType::Boolean()),
                          F("extendedFileMetadata", DataType::Boolean()),
                          F("partitionValues", StringMapType()), F("size", DataType::Int64()),
                          F("deletionVector", DvType()), F("baseRowId", DataType::Int64()),
                          F("defaultRowCommitVersion", DataType::Int64())}));
  schema[kMetaData] = F(
      "metaData",
      DataType::Struct(
          {F("id", DataType::String()), F("name", DataType::String()),
           F("description", DataType::String()),
           F("format",
             DataType::Struct({F("provider", DataType::String()), F("options", StringMapType())})),
           F("schemaString", DataType::String()), F("partitionColumns", StringListType()),
           F("configuration", StringMapType()), F("createdTime", DataType::Int64())}));
  schema[kProtocol] = F("protocol", DataType::Struct({F("minReaderVersion", DataType::Int32()),
                                                      F("minWriterVersion", DataType::Int32()),
                                                      F("readerFeatures", StringListType()),
                                                      F("writerFeatures", StringListType())}));
  schema[kDomain] = F("domainMetadata", DataType::Struct({F("domain", DataType::String()),
                                                          F("configuration", DataType::String()),
                                                          F("removed", DataType::Boolean())}));
  if (v2)
    schema[kCheckpointMetadata] =
        F("checkpointMetadata",
          DataType::Struct({F("version", DataType::Int64()), F("tags", StringMapType())}));
  return schema;
}

std::string CheckpointKey(int64_t version) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%020lld.checkpoint.parquet", kLogDir,
                static_cast<long long>(version));
  return buf;
}

std::string MultiPartCheckpointKey(int64_t version, int64_t part, int64_t num_parts) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%020lld.checkpoint.%010lld.%010lld.parquet", kLogDir,
                static_cast<long long>(version), static_cast<long long>(part),
                static_cast<long long>(num_parts));
  return buf;
}

bool ShouldCheckpoint(int64_t version, const Snapshot& snapshot) {
  auto interval = GetCheckpointInterval(snapshot.metadata().configuration);
  int64_t n = interval.ok() ? *interval : kDefaultCheckpointInterval;
  return version > 0 && version % n == 0;
}

Status WriteCheckpoint(ObjectStore& store, const Snapshot& snapshot,
                       const CheckpointOptions& options, CheckpointInfo* info) {
  CheckpointInfo local;
  CheckpointInfo& out = info ? *info : local;
  out = CheckpointInfo();
  const int64_t version = snapshot.version();
  out.version = version;
  out.key = CheckpointKey(version);
  SILT_RETURN_NOT_OK(CheckWritable(snapshot.protocol(), store.root()));

  const StringMap& config = snapshot.metadata().configuration;
  SILT_ASSIGN_OR_RETURN(int64_t tombstone_retention, GetDeletedFileRetentionMillis(config));
  SILT_ASSIGN_OR_RETURN(auto txn_retention, GetSetTransactionRetentionMillis(config));
  SILT_ASSIGN_OR_RETURN(bool stats_as_json, GetCheckpointWriteStatsAsJson(config));
  if (!options.clock) return Status::Internal("CheckpointOptions.clock is not set");
  const int64_t now = options.clock->NowMillis();
  const int64_t min_tombstone_ts = now - tombstone_retention;
  auto keep_tombstone = [&](const RemoveFile& r) {
    return r.deletion_timestamp.value_or(0) > min_tombstone_ts;
  };
  auto keep_txn = [&](const SetTransaction& t) {
    return !txn_retention || !t.last_updated || *t.last_updated > now - *txn_retention;
  };

  int64_t txns = 0;
  for (const auto& [app, t] : snapshot.transactions()) txns += keep_txn(t) ? 1 : 0;
  for (const RemoveFile& r : snapshot.tombstones()) out.num_tombstones += keep_tombstone(r) ? 1 : 0;
  out.num_add_files = static_cast<int64_t>(snapshot.files().size());
  out.num_actions = 2 + txns + static_cast<int64_t>(snapshot.domains().size()) + out.num_add_files +
                    out.num_tombstones;

  const bool v2 = WritesV2Checkpoint(snapshot.protocol(), snapshot.metadata());
  if (v2) {
    // V2 spec (PROTOCOL.md "V2 Checkpoint"): one UUID-named Parquet file with a
    // checkpointMetadata row and every action inline (no sidecars). A V2 checkpoint of this
    // version already there (any UUID) is kept.
    out.num_actions += 1;
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "%s%020lld.checkpoint.", kLogDir,
                  static_cast<long long>(version));
    SILT_ASSIGN_OR_RETURN(auto listing, store.ListFrom(prefix));
    for (const ObjectMeta& m : listing) {
      if (m.key.rfind(prefix, 0) != 0) break;
      auto f = ParseLogFileName(m);
      if (f && f->kind == LogFileKind::kUuidCheckpoint && m.size > 0) {
        out.key = m.key;
        out.part_keys = {m.key};
        out.size_in_bytes = m.size;
        out.already_existed = true;
        break;
      }
    }
    if (!out.already_existed)
      out.key = std::string(prefix) + Uuid::Random().ToString() + ".parquet";
  }
  // Multi-part: ceil(actions / part_size) parts. File actions go to the part of a stable hash
  // of their reconciliation key, so any writer of this version, whatever order its snapshot
  // lists files in, writes the same parts (a reader may combine parts from two writers); the
  // small actions go to part 1.
  const int64_t num_parts =
      options.part_size > 0 && !v2
          ? std::max<int64_t>(1, (out.num_actions + options.part_size - 1) / options.part_size)
          : 1;
  std::vector<uint32_t> add_part, remove_part;
  if (num_parts > 1) {
    auto part_of = [&](const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
      uint64_t h = 1469598103934665603ULL;  // FNV-1a: stable across processes and builds
      auto mix = [&](std::string_view bytes) {
        for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
      };
      mix(path);
      if (dv) mix(dv->UniqueId());
      return static_cast<uint32_t>(h % static_cast<uint64_t>(num_parts));
    };
    for (const AddFile& a : snapshot.files())
      add_part.push_back(part_of(a.path, a.deletion_vector));
    for (const RemoveFile& r : snapshot.tombstones())
      remove_part.push_back(part_of(r.path, r.deletion_vector));
  }
  if (!out.already_existed) {
    for (int64_t part = 0; part < num_parts; ++part) {
      std::string key =
          num_parts == 1 ? out.key : MultiPartCheckpointKey(version, part + 1, num_parts);
      out.part_keys.push_back(key);
    }
    out.key = out.part_keys[0];
  }

  const Schema schema = CheckpointSchema(stats_as_json, v2);
  int64_t rows_total = 0;
  size_t existing_parts = 0;
  for (int64_t part = 0; part < num_parts && !(v2 && out.already_existed); ++part) {
    const std::string& key = out.part_keys[static_cast<size_t>(part)];
    auto existing = store.Head(key);
    if (existing.ok() && existing->size > 0) {
      ++existing_parts;
      out.size_in_bytes += existing->size;
      continue;
    }
    if (!existing.ok() && !existing.status().IsNotFound()) return existing.status();
    SILT_ASSIGN_OR_RETURN(auto sink, store.OpenWrite(key));
    SILT_ASSIGN_OR_RETURN(auto writer,
                          parquet::ParquetWriter::Make(std::move(sink), schema, options.parquet));
    RowBuilder rows(schema, stats_as_json);
    const size_t per_chunk = static_cast<size_t>(std::max<int64_t>(1, options.rows_per_chunk));
    auto flush_if_full = [&](bool force) -> Status {
      if (rows.rows() == 0 || (!force && rows.rows() < per_chunk)) return Status::OK();
      SILT_RETURN_NOT_OK(writer->Write(rows.chunk()));
      rows.Reset();
      return Status::OK();
    };
    auto mine = [&](const std::vector<uint32_t>& parts, size_t i) {
      return num_parts == 1 || parts[i] == static_cast<uint32_t>(part);
    };
    if (part == 0) {
      if (v2) rows.CheckpointMeta(version);
      rows.Proto(snapshot.protocol());
      rows.Meta(snapshot.metadata());
      for (const auto& [app, t] : snapshot.transactions())
        if (keep_txn(t)) rows.Txn(t);
      for (const auto& [name, d] : snapshot.domains()) rows.Domain(d);
      // The small actions get a row group of their own: a reader that wants only protocol and
      // metadata (every statement's table resolution) skips the file-action row groups by their
      // null counts and decodes a few rows, not the 65k-row group the first adds would share.
      if (!snapshot.files().empty() || !snapshot.tombstones().empty()) {
        SILT_RETURN_NOT_OK(flush_if_full(true));
        SILT_RETURN_NOT_OK(writer->FlushRowGroup());
      }
    }
    for (size_t i = 0; i < snapshot.files().size(); ++i) {
      if (!mine(add_part, i)) continue;
      rows.Add(snapshot.files()[i]);
      SILT_RETURN_NOT_OK(flush_if_full(false));
    }
    for (size_t i = 0; i < snapshot.tombstones().size(); ++i) {
      const RemoveFile& r = snapshot.tombstones()[i];
      if (!keep_tombstone(r) || !mine(remove_part, i)) continue;
      rows.Remove(r);
      SILT_RETURN_NOT_OK(flush_if_full(false));
    }
    SILT_RETURN_NOT_OK(flush_if_full(true));
    rows_total += writer->num_rows();
    Status closed = writer->Close();
    if (!closed.ok()) return closed.WithContext("writing checkpoint " + key);
    out.size_in_bytes += writer->bytes_written();
  }
  if (!v2) out.already_existed = existing_parts == out.part_keys.size();
  if (!out.already_existed && existing_parts == 0 && rows_total != out.num_actions)
    return Status::Internal("checkpoint row count " + std::to_string(rows_total) +
                            " != " + std::to_string(out.num_actions));

  // Never move the hint back: a newer checkpoint may have been written meanwhile.
  std::optional<int64_t> hint = ReadLastCheckpointHint(store);
  if (hint && *hint > version) return Status::OK();
  std::string json =
      "{\"version\":" + std::to_string(version) + ",\"size\":" + std::to_string(out.num_actions) +
      ",\"sizeInBytes\":" + std::to_string(out.size_in_bytes) +
      ",\"numOfAddFiles\":" + std::to_string(out.num_add_files) +
      (num_parts > 1 ? ",\"parts\":" + std::to_string(num_parts) : std::string()) + "}";
  SILT_RETURN_NOT_OK(store.Put(std::string(kLogDir) + "_last_checkpoint", json));
  out.last_checkpoint_updated = true;
  // Temp files of crashed log writes (checkpoints, commits) would stay for ever otherwise.
  auto stale = DeleteStaleLogTempFiles(store, *options.clock);
  if (!stale.ok()) {
    SILT_LOG(kWarn) << "removing stale temp files of " << store.root()
                    << "_delta_log: " << stale.status().ToString();
  }
  return Status::OK();
}

}  // namespace silt::delta
