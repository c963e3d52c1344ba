#include "delta/auto_ttl.h"

#include <charconv>
#include <limits>

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
                                   "AUTO_TTL_INVALID_EXPIRATION_DAYS");
  }
  if (column->empty()) {
    return Status::InvalidArgument(std::string("'") + kAutoTtlTimestampColumnKey + "' is empty",
                                   kInvalidTablePropertyClass);
  }
  return std::optional<AutoTtlPolicy>(AutoTtlPolicy{*column, static_cast<int32_t>(days)});
}

}  // namespace silt::delta
