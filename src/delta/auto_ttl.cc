#include "delta/auto_ttl.h"

#include <charconv>
#include <limits>
#include <vector>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "delta/schema_json.h"
#include "delta/table_properties.h"

namespace silt::delta {

Result<std::optional<AutoTtlPolicy>> AutoTtlPolicyOf(const StringMap& configuration) {
  const std::string* days_text = configuration.Find(kAutoTtlExpireInDaysKey);
  const std::string* column = configuration.Find(kAutoTtlTimestampColumnKey);
  const bool has_days = days_text != nullptr;
  const bool has_column = column != nullptr;
  if (!has_days && !has_column) return std::optional<AutoTtlPolicy>();
  if (!has_days || !has_column) {
    return Status::InvalidArgument(
        std::string("Auto-TTL needs both '") + kAutoTtlExpireInDaysKey + "' and '" +
            kAutoTtlTimestampColumnKey + "'; only '" +
            (has_days ? kAutoTtlExpireInDaysKey : kAutoTtlTimestampColumnKey) + "' is set",
        kInvalidTablePropertyClass);
  }
  const std::string& text = *days_text;
  int64_t days = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), days);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || days < 0 ||
      days > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(std::string("'") + kAutoTtlExpireInDaysKey +
                                       "' must be a non-negative integer that fits INT, got '" +
                                       text + "'",
                                   errc::kAutoTtlInvalidExpirationDays);
  }
  if (column->empty()) {
    return Status::InvalidArgument(std::string("'") + kAutoTtlTimestampColumnKey + "' is empty",
                                   kInvalidTablePropertyClass);
  }
  return std::optional<AutoTtlPolicy>(AutoTtlPolicy{*column, static_cast<int32_t>(days)});
}

namespace {

bool NameMatches(std::string_view a, std::string_view b, bool case_sensitive) {
  return case_sensitive ? a == b : EqualsIgnoreCase(a, b);
}

int FindTopLevel(const Schema& schema, std::string_view name, bool case_sensitive) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (NameMatches(schema[i].name, name, case_sensitive)) return static_cast<int>(i);
  }
  return -1;
}

std::string TypeName(const DataType& type) {
  std::string name = PrimitiveTypeName(type);
  if (name.empty()) {
    name = type.id() == TypeId::kStruct ? "struct" : type.id() == TypeId::kList ? "array" : "map";
  }
  for (char& c : name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return name;
}

// The policy's column when both keys are set (validity of the number is not needed here).
const std::string* PolicyColumn(const StringMap& configuration) {
  if (!configuration.Contains(kAutoTtlExpireInDaysKey)) return nullptr;
  return configuration.Find(kAutoTtlTimestampColumnKey);
}

}  // namespace

std::vector<std::string> SplitDotted(const std::string& dotted) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1) {
    out.push_back(dotted.substr(start, dot - start));
  }
  out.push_back(dotted.substr(start));
  return out;
}

bool IsAutoTtlKey(std::string_view key) {
  return EqualsIgnoreCase(key, kAutoTtlExpireInDaysKey) ||
         EqualsIgnoreCase(key, kAutoTtlTimestampColumnKey) ||
         EqualsIgnoreCase(key, kAutoTtlTimestampColumnIdKey);
}

std::string CanonicalAutoTtlKey(std::string_view key) {
  for (const char* k :
       {kAutoTtlExpireInDaysKey, kAutoTtlTimestampColumnKey, kAutoTtlTimestampColumnIdKey}) {
    if (EqualsIgnoreCase(key, k)) return k;
  }
  return std::string(key);
}

bool IsAutoTtlTimeType(const DataType& type) {
  return type.id() == TypeId::kDate || type.id() == TypeId::kTimestamp ||
         type.id() == TypeId::kTimestampNtz;
}

Status ValidateAutoTtlExpireInDays(int64_t days) {
  if (days < 0 || days > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(
        "The expiration period must be a non-negative "
        "integer number of days that fits in INT, got " +
            std::to_string(days) + ".",
        errc::kAutoTtlInvalidExpirationDays);
  }
  return Status::OK();
}

Result<size_t> ValidateAutoTtlColumn(const Schema& schema, const std::string& column,
                                     bool case_sensitive) {
  const std::vector<std::string> parts = SplitDotted(column);
  const int i = FindTopLevel(schema, parts[0], case_sensitive);
  if (i < 0) {
    std::string names;
    for (size_t k = 0; k < schema.size(); ++k)
      names += (k ? ", " : "") + std::string("`") + schema[k].name + "`";
    return Status::InvalidArgument("The Auto-TTL time column `" + column +
                                       "` cannot be resolved among the table's columns: " + names +
                                       ".",
                                   errc::kAutoTtlColumnNotFound);
  }
  const Field& f = schema[static_cast<size_t>(i)];
  if (parts.size() > 1) {
    return Status::InvalidArgument(
        "The Auto-TTL time column must be a "
        "top-level column; `" +
            column + "` is nested in `" + f.name + "` (" + TypeName(*f.type) + ").",
        errc::kAutoTtlNestedColumnNotSupported);
  }
  if (!IsAutoTtlTimeType(*f.type)) {
    return Status::InvalidArgument("The Auto-TTL time column `" + f.name + "` has type " +
                                       TypeName(*f.type) +
                                       "; it must be DATE, TIMESTAMP or TIMESTAMP_NTZ.",
                                   errc::kAutoTtlInvalidColumnType);
  }
  return static_cast<size_t>(i);
}

Status SetAutoTtlPolicy(StringMap* configuration, const Schema& schema, const std::string& column,
                        int64_t days, bool case_sensitive) {
  SILT_RETURN_NOT_OK(ValidateAutoTtlExpireInDays(days));
  SILT_ASSIGN_OR_RETURN(size_t i, ValidateAutoTtlColumn(schema, column, case_sensitive));
  const Field& f = schema[i];
  const std::string* mode = configuration->Find("delta.columnMapping.mode");
  SILT_ASSIGN_OR_RETURN(
      ColumnMappingMode cm,
      ParseColumnMappingMode(mode ? std::optional<std::string>(*mode) : std::nullopt));
  std::optional<int64_t> id;
  if (cm != ColumnMappingMode::kNone) {
    id = ColumnMappingId(f);
    if (!id) {
      return Status::Internal("the Auto-TTL column `" + f.name +
                              "` has no delta.columnMapping.id under column mapping");
    }
  }
  RemoveAutoTtlPolicy(configuration);
  configuration->Set(kAutoTtlExpireInDaysKey, std::to_string(days));
  configuration->Set(kAutoTtlTimestampColumnKey, f.name);
  if (id) configuration->Set(kAutoTtlTimestampColumnIdKey, std::to_string(*id));
  return Status::OK();
}

bool RemoveAutoTtlPolicy(StringMap* configuration) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : *configuration) {
    if (IsAutoTtlKey(k)) keys.push_back(k);
  }
  for (const auto& k : keys) configuration->Erase(k);
  return !keys.empty();
}

Status NormalizeAutoTtlConfiguration(StringMap* configuration, const Schema& schema,
                                     bool case_sensitive) {
  // Canonical key spelling first (a user may write 'autoTTL.expireInDays').
  StringMap canonical;
  bool any = false;
  for (const auto& [k, v] : *configuration) {
    if (IsAutoTtlKey(k)) {
      any = true;
      canonical.Set(CanonicalAutoTtlKey(k), v);
    }
  }
  if (!any) return Status::OK();
  SILT_ASSIGN_OR_RETURN(std::optional<AutoTtlPolicy> policy, AutoTtlPolicyOf(canonical));
  if (!policy) {
    // Only the id key: it is derived, never set on its own.
    return Status::InvalidArgument(std::string("'") + kAutoTtlTimestampColumnIdKey +
                                       "' is maintained by silt and cannot be set; use "
                                       "ALTER TABLE … DELETE ROWS n DAYS AFTER column.",
                                   kInvalidTablePropertyClass);
  }
  return SetAutoTtlPolicy(configuration, schema, policy->timestamp_column, policy->expire_in_days,
                          case_sensitive);
}

Status CheckAutoTtlColumnRename(const StringMap& old_configuration, const std::string& column,
                                bool case_sensitive) {
  const std::string* ttl = PolicyColumn(old_configuration);
  if (!ttl || !NameMatches(*ttl, column, case_sensitive)) return Status::OK();
  return Status::InvalidArgument(
      "Cannot rename column `" + column +
          "`: it is the time column of the table's Auto-TTL policy (DELETE ROWS … AFTER " + *ttl +
          "). Renaming it is not supported, also with column mapping.",
      errc::kAutoTtlColumnRenameNotSupported);
}

Status CheckAutoTtlColumnDrop(const StringMap& old_configuration, const std::string& column,
                              bool case_sensitive) {
  const std::string* ttl = PolicyColumn(old_configuration);
  if (!ttl || !NameMatches(*ttl, column, case_sensitive)) return Status::OK();
  return Status::InvalidArgument(
      "Cannot drop column `" + column +
          "`: it is the time column of the table's Auto-TTL policy. Remove the policy "
          "first with ALTER TABLE … DROP ROW DELETION.",
      errc::kAutoTtlColumnDropNotSupported);
}

Status CheckAutoTtlColumnType(const StringMap& old_configuration, const std::string& column,
                              const DataType& new_type, bool case_sensitive) {
  const std::string* ttl = PolicyColumn(old_configuration);
  if (!ttl || !NameMatches(*ttl, column, case_sensitive) || IsAutoTtlTimeType(new_type))
    return Status::OK();
  return Status::InvalidArgument(
      "Cannot change the type of column `" + column + "` to " + TypeName(new_type) +
          ": it is the time column of the table's Auto-TTL policy, which must stay DATE, "
          "TIMESTAMP or TIMESTAMP_NTZ.",
      errc::kAutoTtlInvalidColumnType);
}

}  // namespace silt::delta
