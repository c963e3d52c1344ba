#include "delta/table_features.h"

#include <algorithm>

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
      "columnMapping", "deletionVectors", "timestampNtz", "typeWidening", "typeWidening-preview",
      "v2Checkpoint",  "vacuumProtocolCheck"};
  return kFeatures;
}

const std::vector<std::string>& SupportedWriterFeatures() {
  // Features whose writer obligations silt meets (row tracking: Transaction assigns row ids;
  // NOT NULL, invariants and CHECK constraints: WriteDataFiles, the last through the caller's
  // RowValidator). Others (generated/identity columns, icebergCompat, catalog-managed tables)
  // are refused until built.
  static const std::vector<std::string> kFeatures = {
      "appendOnly",   "invariants", "deletionVectors", "timestampNtz", "domainMetadata", "v2Checkpoint",
      "vacuumProtocolCheck", "typeWidening", "typeWidening-preview", "changeDataFeed", "columnMapping",
      "inCommitTimestamp", "clustering", "rowTracking", "checkConstraints"};
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
    return Status::Unsupported("table " + table + " requires reader version " + std::to_string(p.min_reader_version) +
                                   "; silt reads versions 1 to 3",
                               "DELTA_INVALID_PROTOCOL_VERSION");
  if (p.min_reader_version == 3) {
    if (!p.reader_features)
      return Status::Corruption("table " + table + " has reader version 3 but no readerFeatures",
                                "DELTA_INVALID_PROTOCOL_VERSION");
    std::vector<std::string> missing;
    for (const auto& f : *p.reader_features)
      if (!Contains(SupportedReaderFeatures(), f)) missing.push_back(f);
    if (!missing.empty())
      return Status::Unsupported("table " + table + " requires reader features silt does not support: " + Join(missing),
                                 "DELTA_UNSUPPORTED_FEATURES_FOR_READ");
  }
  return Status::OK();
}

Status CheckWriteSupported(const Protocol& p, const Metadata& m, bool removes_data, const std::string& table) {
  if (p.min_writer_version > 7 || p.min_writer_version < 1)
    return Status::Unsupported("table " + table + " requires writer version " + std::to_string(p.min_writer_version),
                               "DELTA_INVALID_PROTOCOL_VERSION");
  std::vector<std::string> features =
      p.min_writer_version == 7 ? p.writer_features.value_or(std::vector<std::string>{}) : LegacyWriterFeatures(p.min_writer_version);
  std::vector<std::string> missing;
  for (const auto& f : features)
    if (!Contains(SupportedWriterFeatures(), f)) {
      // Legacy versions imply features a table may not use: refuse only what is in effect.
      if (p.min_writer_version < 7 && (f == "checkConstraints" || f == "generatedColumns" || f == "identityColumns")) {
        bool used = false;
        for (const auto& [k, v] : m.configuration.entries()) used |= f == "checkConstraints" && k.rfind("delta.constraints.", 0) == 0;
        if (f != "checkConstraints" && m.schema_string)
          used |= m.schema_string->find(f == "generatedColumns" ? "delta.generationExpression" : "delta.identity") !=
                  std::string::npos;
        if (!used) continue;
      }
      missing.push_back(f);
    }
  if (!missing.empty())
    return Status::Unsupported("table " + table + " requires writer features silt does not support yet: " + Join(missing),
                               "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  if (removes_data && GetBoolProperty(m.configuration, "delta.appendOnly", false).ValueOr(false))
    return Status::InvalidArgument("table " + table + " is append-only (delta.appendOnly = true): rows cannot be deleted or updated",
                                   "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  return Status::OK();
}

}  // namespace silt::delta
