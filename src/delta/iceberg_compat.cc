#include "delta/iceberg_compat.h"

#include <algorithm>
#include <cstdlib>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"

namespace silt::delta {
namespace {

bool On(const StringMap& configuration, const char* key) {
  return GetBoolProperty(configuration, key, false).ValueOr(false);
}

// Delta's CheckTypeInV2AllowList (nested types walked) and CheckPartitionDataTypeInV2AllowList.
bool PrimitiveAllowed(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

// V1 refuses arrays and maps as well (Delta's CheckNoListMapNullType); silt holds V1 to V2's
// allow list too, since its Iceberg metadata has no other types.
Status CheckType(const TypePtr& type, int version, const std::string& schema_text) {
  const bool collection = type->id() == TypeId::kList || type->id() == TypeId::kMap;
  if (type->is_nested() && (version >= 2 || !collection)) {
    for (const auto& f : type->fields())
      SILT_RETURN_NOT_OK(CheckType(f.type, version, schema_text));
    return Status::OK();
  }
  if (collection || !PrimitiveAllowed(type->id())) {
    const std::string name = "IcebergCompatV" + std::to_string(version);
    return Status::InvalidArgument("The validation of " + name + " has failed. " + name +
                                       " does not support the data type " + type->ToString() +
                                       " in your schema. Your schema:\n" + schema_text,
                                   errc::kDeltaIcebergCompatViolationUnsupportedDataType);
  }
  return Status::OK();
}

std::string ModeName(const StringMap& configuration) {
  const std::string* m = configuration.Find("delta.columnMapping.mode");
  return m ? AsciiLower(*m) : "none";
}

}  // namespace

bool IcebergCompatV2Enabled(const StringMap& configuration) {
  return On(configuration, kIcebergCompatV2Key);
}

int IcebergCompatVersion(const StringMap& configuration) {
  if (IcebergCompatV2Enabled(configuration)) return 2;
  return On(configuration, kIcebergCompatV1Key) ? 1 : 0;
}

std::vector<std::string> UniversalFormats(std::string_view value) {
  std::vector<std::string> out;
  const std::string list = AsciiLower(value);
  for (size_t start = 0; start <= list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    std::string f = list.substr(start, end - start);
    f.erase(0, f.find_first_not_of(' '));
    f.erase(f.find_last_not_of(' ') + 1);
    if (!f.empty()) out.push_back(std::move(f));
    start = end + 1;
  }
  return out;
}

bool AssignIcebergNestedIds(Schema* schema, StringMap* configuration) {
  const std::string mode = ModeName(*configuration);
  if (!IcebergCompatV2Enabled(*configuration) || (mode != "name" && mode != "id")) return false;
  int64_t max_id = 0;
  const std::string* m = configuration->Find("delta.columnMapping.maxColumnId");
  if (m) max_id = std::atoll(m->c_str());
  Schema with = AssignNestedColumnIds(*schema, &max_id);
  bool changed = !SchemaEquals(with, *schema);
  if (changed) *schema = std::move(with);
  if (!m || std::to_string(max_id) != *m) {
    configuration->Set("delta.columnMapping.maxColumnId", std::to_string(max_id));
    changed = true;
  }
  return changed;
}

bool UniformIcebergEnabled(const StringMap& configuration) {
  const std::string* formats = configuration.Find(kUniversalFormatKey);
  if (!formats) return false;
  const std::vector<std::string> list = UniversalFormats(*formats);
  return std::find(list.begin(), list.end(), "iceberg") != list.end();
}

void ApplyIcebergCompatDefaults(StringMap* properties) {
  if (IcebergCompatVersion(*properties) == 0) return;
  if (!properties->Contains("delta.columnMapping.mode"))
    properties->Set("delta.columnMapping.mode", "name");
  if (!properties->Contains("delta.enableDeletionVectors"))
    properties->Set("delta.enableDeletionVectors", "false");
}

Result<std::optional<Protocol>> EnforceIcebergCompat(
    const Snapshot* previous, const Protocol& protocol, const Metadata& metadata,
    bool metadata_changed, const std::string& operation, const std::vector<AddFile>& adds) {
  const StringMap& conf = metadata.configuration;
  const int version = IcebergCompatVersion(conf);
  const std::string name = "IcebergCompatV" + std::to_string(version);
  // Every DELTA_ICEBERG_COMPAT_VIOLATION message starts so (Delta's parent message).
  const std::string failed = "The validation of " + name + " has failed. ";
  if (version == 0) {
    if (UniformIcebergEnabled(conf)) {
      return Status::InvalidArgument(
          "The validation of Universal Format (iceberg) has failed: Requires IcebergCompat to be "
          "explicitly enabled in order for Universal Format (Iceberg) to be enabled on an "
          "existing table. Supported versions are IcebergCompatV1 and IcebergCompatV2.",
          errc::kDeltaUniversalFormatViolationIcebergCompatRequired);
    }
    return std::optional<Protocol>();
  }
  // Every add (Delta's CheckAddFileHasStats): Iceberg's record_count is required.
  for (const AddFile& a : adds) {
    if (!a.stats || !StatsNumRecords(*a.stats)) {
      return Status::InvalidArgument(failed + name +
                                         " requires all AddFiles to contain the numRecords "
                                         "statistic. AddFile " +
                                         a.path + " is missing this statistic.",
                                     errc::kDeltaIcebergCompatViolation);
    }
    if (a.deletion_vector) {
      return Status::InvalidArgument(
          failed + name +
              " requires Deletion Vectors to be disabled on the table "
              "first. Then run REORG PURGE command to purge the Deletion Vectors on the "
              "table.",
          errc::kDeltaIcebergCompatViolationDeletionVectorsShouldBeDisabled);
    }
  }
  if (!metadata_changed) return std::optional<Protocol>();

  if ((version == 2 && On(conf, kIcebergCompatV1Key)) || On(conf, "delta.enableIcebergCompatV3")) {
    return Status::InvalidArgument(
        failed +
            "Only one IcebergCompat version can be enabled, please explicitly disable "
            "all other IcebergCompat versions that are not needed.",
        errc::kDeltaIcebergCompatViolationVersionMutualExclusive);
  }
  const std::string mode = ModeName(conf);
  if (mode != "name" && mode != "id") {
    return Status::InvalidArgument(failed + name +
                                       " requires table property 'delta.columnMapping.mode' to be "
                                       "set to 'name'. Current value: '" +
                                       mode + "'.",
                                   errc::kDeltaIcebergCompatViolationWrongRequiredTableProperty);
  }
  // Delta's CheckDeletionVectorDisabled: the feature may stay supported, but new deletion vectors
  // must be off — before this commit too (a concurrent writer may still add them), except for
  // REORG … UPGRADE UNIFORM, which turns them off and purges them in the same commit.
  const bool reorg = operation == kUpgradeUniformOperation;
  const bool dv_before = previous && !reorg &&
                         HasFeature(previous->protocol(), "deletionVectors") &&
                         On(previous->metadata().configuration, "delta.enableDeletionVectors");
  if (HasFeature(protocol, "deletionVectors") &&
      (On(conf, "delta.enableDeletionVectors") || dv_before)) {
    return Status::InvalidArgument(
        failed + name +
            " requires Deletion Vectors to be disabled on the table first. "
            "Then run REORG PURGE command to purge the Deletion Vectors on the table.",
        errc::kDeltaIcebergCompatViolationDeletionVectorsShouldBeDisabled);
  }
  const bool enabling =
      !previous || IcebergCompatVersion(previous->metadata().configuration) != version;
  if (enabling && previous && !reorg && previous->files_loaded()) {
    for (const AddFile& f : previous->files()) {
      if (f.deletion_vector) {
        return Status::InvalidArgument(
            failed + name +
                " requires Deletion Vectors to be completely purged from "
                "the table. Please run the REORG TABLE APPLY (PURGE) command.",
            errc::kDeltaIcebergCompatViolationDeletionVectorsNotPurged);
      }
    }
  }
  const std::string schema_text = metadata.schema_string.value_or("{}");
  SILT_ASSIGN_OR_RETURN(Schema schema, ParseSchemaString(schema_text));
  for (const Field& f : schema) SILT_RETURN_NOT_OK(CheckType(f.type, version, schema_text));
  // Delta's CheckNoPartitionEvolution: Iceberg-Spark cannot replace a partitioned table with a
  // differently partitioned one.
  if (previous && !previous->metadata().partition_columns.empty() &&
      previous->metadata().partition_columns != metadata.partition_columns) {
    auto list = [](const std::vector<std::string>& v) {
      std::string out;
      for (const auto& c : v) out += (out.empty() ? "" : ", ") + c;
      return "[" + out + "]";
    };
    return Status::InvalidArgument(
        failed + name +
            " doesn't support replacing partitioned tables with a "
            "differently-named partition spec, because Iceberg-Spark 1.1.0 doesn't. "
            "Prev Partition Spec: " +
            list(previous->metadata().partition_columns) +
            " New Partition Spec: " + list(metadata.partition_columns),
        errc::kDeltaIcebergCompatViolationReplaceTableChangePartitionNames);
  }
  Protocol with = WithFeatures(
      protocol, {"columnMapping", version == 1 ? "icebergCompatV1" : "icebergCompatV2"});
  if (with == protocol) return std::optional<Protocol>();
  return std::optional<Protocol>(std::move(with));
}

}  // namespace silt::delta
