#include "delta/table_features.h"

#include <algorithm>

#include "common/error_classes.h"
#include "delta/schema_json.h"
#include "delta/table_properties.h"

namespace silt::delta {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// Features a legacy (pre-table-features) writer version implies.
std::vector<std::string> LegacyWriterFeatures(int version) {
  std::vector<std::string> f;
  if (version >= 2) f.insert(f.end(), {"appendOnly", "invariants"});
  if (version >= 3) f.push_back("checkConstraints");
  if (version >= 4) f.insert(f.end(), {"changeDataFeed", "generatedColumns"});
  if (version >= 5) f.push_back("columnMapping");
  if (version >= 6) f.push_back("identityColumns");
  return f;
}

}  // namespace

const std::vector<std::string>& SupportedReaderFeatures() {
  static const std::vector<std::string> kFeatures = {
      "columnMapping",        "deletionVectors", "timestampNtz",       "typeWidening",
      "typeWidening-preview", "v2Checkpoint",    "vacuumProtocolCheck"};
  return kFeatures;
}

const std::vector<std::string>& SupportedWriterFeatures() {
  // Features whose writer obligations silt meets (row tracking: Transaction assigns row ids;
  // NOT NULL, invariants, CHECK constraints and generated columns: WriteDataFiles, the last two
  // through the caller's RowValidator; identity columns and column defaults: the SQL commands,
  // see commands/column_values.h; icebergCompatV1/V2: Transaction's checks and the post-commit
  // Iceberg conversion, delta/iceberg_compat.h; checkpointProtection: log cleanup truncates
  // nothing on such a table and checkpoints are only written at the latest version,
  // log_cleanup.h). Others (icebergCompatV3, catalog-managed tables) are refused until built.
  static const std::vector<std::string> kFeatures = {
      "appendOnly",           "invariants",          "deletionVectors",     "timestampNtz",
      "domainMetadata",       "v2Checkpoint",        "vacuumProtocolCheck", "typeWidening",
      "typeWidening-preview", "changeDataFeed",      "columnMapping",       "inCommitTimestamp",
      "clustering",           "rowTracking",         "checkConstraints",    "generatedColumns",
      "identityColumns",      "allowColumnDefaults", "icebergCompatV1",     "icebergCompatV2",
      "checkpointProtection"};
  return kFeatures;
}

bool HasFeature(const Protocol& p, const std::string& feature) {
  if (p.reader_features && Contains(*p.reader_features, feature)) return true;
  if (p.writer_features) return Contains(*p.writer_features, feature);
  return Contains(LegacyWriterFeatures(p.min_writer_version), feature) ||
         (feature == "columnMapping" && p.min_reader_version >= 2);
}

Status CheckReadSupported(const Protocol& p, const std::string& table) {
  if (p.min_reader_version > 3 || p.min_reader_version < 1)
    return Status::Unsupported("table " + table + " requires reader version " +
                                   std::to_string(p.min_reader_version) +
                                   "; silt reads versions 1 to 3",
                               errc::kDeltaInvalidProtocolVersion);
  if (p.min_reader_version == 3) {
    if (!p.reader_features)
      return Status::Corruption("table " + table + " has reader version 3 but no readerFeatures",
                                errc::kDeltaInvalidProtocolVersion);
    std::vector<std::string> missing;
    for (const auto& f : *p.reader_features)
      if (!Contains(SupportedReaderFeatures(), f)) missing.push_back(f);
    if (!missing.empty())
      return Status::Unsupported(
          "table " + table + " requires reader features silt does not support: " + Join(missing),
          errc::kDeltaUnsupportedFeaturesForRead);
  }
  return Status::OK();
}

Status CheckWriteSupported(const Protocol& p, const Metadata& m, bool removes_data,
                           const std::string& table) {
  if (p.min_writer_version > 7 || p.min_writer_version < 1)
    return Status::Unsupported(
        "table " + table + " requires writer version " + std::to_string(p.min_writer_version),
        errc::kDeltaInvalidProtocolVersion);
  std::vector<std::string> features = p.min_writer_version == 7
                                          ? p.writer_features.value_or(std::vector<std::string>{})
                                          : LegacyWriterFeatures(p.min_writer_version);
  std::vector<std::string> missing;
  for (const auto& f : features)
    if (!Contains(SupportedWriterFeatures(), f)) {
      // Legacy versions imply features a table may not use, and upgrading a legacy protocol to
      // table features lists them: refuse only what is in effect.
      if (f == "checkConstraints" || f == "generatedColumns" || f == "identityColumns") {
        bool used = false;
        for (const auto& [k, v] : m.configuration.entries())
          used |= f == "checkConstraints" && k.rfind("delta.constraints.", 0) == 0;
        if (f != "checkConstraints" && m.schema_string)
          used |= m.schema_string->find(f == "generatedColumns"
                                            ? "delta.generationExpression"
                                            : "delta.identity") != std::string::npos;
        if (!used) continue;
      }
      missing.push_back(f);
    }
  if (!missing.empty())
    return Status::Unsupported(
        "table " + table + " requires writer features silt does not support yet: " + Join(missing),
        errc::kDeltaUnsupportedFeaturesForWrite);
  if (removes_data && GetBoolProperty(m.configuration, "delta.appendOnly", false).ValueOr(false))
    return Status::InvalidArgument(
        "table " + table +
            " is append-only (delta.appendOnly = true): rows cannot be deleted or updated",
        errc::kDeltaCannotModifyAppendOnly);
  return Status::OK();
}

}  // namespace silt::delta

namespace silt::delta {
namespace {

bool TypeHas(const TypePtr& t, TypeId id) {
  if (t->id() == id) return true;
  for (const auto& f : t->fields()) {
    if (TypeHas(f.type, id)) return true;
  }
  return false;
}

void AddUnique(std::vector<std::string>* v, const std::string& x) {
  if (!Contains(*v, x)) v->push_back(x);
}

}  // namespace

bool IsReaderWriterFeature(const std::string& feature) {
  return Contains(SupportedReaderFeatures(), feature);
}

std::vector<std::string> FeaturesForMetadata(const Schema& schema, const StringMap& configuration) {
  std::vector<std::string> out;
  auto enabled = [&](const char* key) {
    return GetBoolProperty(configuration, key, false).ValueOr(false);
  };
  for (const auto& f : schema) {
    if (TypeHas(f.type, TypeId::kTimestampNtz)) AddUnique(&out, "timestampNtz");
  }
  if (enabled("delta.enableDeletionVectors")) out.push_back("deletionVectors");
  if (enabled("delta.enableChangeDataFeed")) out.push_back("changeDataFeed");
  if (enabled("delta.enableInCommitTimestamps")) out.push_back("inCommitTimestamp");
  if (enabled("delta.enableRowTracking")) out.insert(out.end(), {"domainMetadata", "rowTracking"});
  for (const auto& [k, v] : configuration) {
    if (k.rfind("delta.constraints.", 0) == 0) AddUnique(&out, "checkConstraints");
  }
  const std::string* policy = configuration.Find("delta.checkpointPolicy");
  if (policy && *policy == "v2") out.push_back("v2Checkpoint");
  const std::string* cm = configuration.Find("delta.columnMapping.mode");
  if (cm &&
      ParseColumnMappingMode(*cm).ValueOr(ColumnMappingMode::kNone) != ColumnMappingMode::kNone) {
    out.push_back("columnMapping");
  }
  return out;
}

Protocol WithFeatures(const Protocol& current, const std::vector<std::string>& features) {
  std::vector<std::string> missing;
  for (const auto& f : features) {
    if (!HasFeature(current, f)) AddUnique(&missing, f);
  }
  if (missing.empty()) return current;
  const bool legacy = !current.writer_features && !current.reader_features;
  if (legacy) {
    Protocol p = current;
    bool expressible = true;
    for (const auto& f : missing) {
      if (f == "appendOnly" || f == "invariants") {
        p.min_writer_version = std::max(p.min_writer_version, 2);
      } else if (f == "checkConstraints") {
        p.min_writer_version = std::max(p.min_writer_version, 3);
      } else if (f == "changeDataFeed" || f == "generatedColumns") {
        p.min_writer_version = std::max(p.min_writer_version, 4);
      } else if (f == "columnMapping") {
        p.min_writer_version = std::max(p.min_writer_version, 5);
        p.min_reader_version = std::max(p.min_reader_version, 2);
      } else if (f == "identityColumns") {
        p.min_writer_version = std::max(p.min_writer_version, 6);
      } else {
        expressible = false;
      }
    }
    if (expressible) return p;
  }
  std::vector<std::string> reader =
      current.reader_features ? *current.reader_features : std::vector<std::string>{};
  std::vector<std::string> writer = current.writer_features
                                        ? *current.writer_features
                                        : LegacyWriterFeatures(current.min_writer_version);
  if (!current.reader_features && current.min_reader_version >= 2)
    AddUnique(&reader, "columnMapping");
  for (const auto& f : missing) {
    AddUnique(&writer, f);
    if (IsReaderWriterFeature(f)) AddUnique(&reader, f);
  }
  Protocol p;
  p.min_writer_version = 7;
  p.writer_features = writer;
  if (reader.empty()) {
    p.min_reader_version = current.min_reader_version;
  } else {
    p.min_reader_version = 3;
    p.reader_features = reader;
  }
  return p;
}

std::vector<std::string> ProtocolFeatures(const Protocol& p) {
  if (!p.writer_features && !p.reader_features) {
    std::vector<std::string> out = LegacyWriterFeatures(p.min_writer_version);
    if (p.min_reader_version >= 2) AddUnique(&out, "columnMapping");
    return out;
  }
  std::vector<std::string> out = p.writer_features.value_or(std::vector<std::string>{});
  for (const auto& f : p.reader_features.value_or(std::vector<std::string>{})) AddUnique(&out, f);
  return out;
}

Protocol RemoveFeature(const Protocol& protocol, const std::string& feature) {
  std::vector<std::string> rest;
  for (const auto& f : ProtocolFeatures(protocol))
    if (f != feature) rest.push_back(f);
  // TableFeatureProtocolUtils.minimumRequiredVersions: legacy features keep their versions,
  // reader-writer features need (3, 7), writer features (1, 7).
  Protocol legacy;
  legacy.min_reader_version = 1;
  legacy.min_writer_version = 1;
  legacy = WithFeatures(legacy, rest);
  std::vector<std::string> implied = ProtocolFeatures(legacy);
  if (!legacy.writer_features && implied.size() == rest.size()) return legacy;  // same set
  Protocol p;
  p.min_writer_version = 7;
  p.writer_features = rest;
  std::vector<std::string> reader;
  for (const auto& f : rest)
    if (IsReaderWriterFeature(f)) reader.push_back(f);
  if (reader.empty()) {
    p.min_reader_version = 1;
  } else {
    p.min_reader_version = 3;
    p.reader_features = reader;
  }
  return p;
}

}  // namespace silt::delta
