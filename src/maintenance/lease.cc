#include "maintenance/lease.h"

#include <simdjson.h>

#include <cstdio>
#include <string_view>

#include "common/json_escape.h"
#include "maintenance/state.h"

namespace silt::maintenance {
namespace {

constexpr char kLeasePrefix[] = "lease.";

std::string SerializeLease(const Lease& l) {
  std::string out = "{\"owner\":";
  AppendJsonString(&out, l.owner, JsonHexCase::kLower);
  out += ",\"expiresMs\":" + std::to_string(l.expires_ms);
  out += ",\"released\":";
  out += l.released ? "true" : "false";
  out += "}";
  return out;
}

Result<Lease> ParseLease(int64_t generation, std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element doc;
  Lease l;
  l.generation = generation;
  std::string_view owner;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS ||
      doc["owner"].get_string().get(owner) != simdjson::SUCCESS ||
      doc["expiresMs"].get_int64().get(l.expires_ms) != simdjson::SUCCESS) {
    // A torn or foreign object: treat it as expired so the table is not blocked forever.
    l.expires_ms = 0;
    return l;
  }
  l.owner = std::string(owner);
  bool released = false;
  if (doc["released"].get_bool().get(released) == simdjson::SUCCESS) l.released = released;
  return l;
}

}  // namespace

std::string LeaseKey(int64_t generation) {
  char buf[32];
  snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(generation));
  return std::string(kMaintenanceDir) + "/" + kLeasePrefix + buf;
}

Result<std::optional<Lease>> LeaseManager::Current(ObjectStore& table) {
  const std::string prefix = std::string(kMaintenanceDir) + "/" + kLeasePrefix;
  SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> entries, table.ListFrom(prefix));
  std::optional<int64_t> newest;
  for (const ObjectMeta& m : entries) {
    if (m.key.compare(0, prefix.size(), prefix) != 0) continue;
    std::string_view digits = std::string_view(m.key).substr(prefix.size());
    if (digits.size() != 20) continue;
    int64_t g = 0;
    bool ok = true;
    for (char c : digits) {
      if (c < '0' || c > '9') ok = false;
      g = g * 10 + (c - '0');
    }
    if (ok && (!newest || g > *newest)) newest = g;
  }
  if (!newest) return std::optional<Lease>();
  Result<std::string> bytes = table.Get(LeaseKey(*newest));
  if (!bytes.ok()) {
    // Deleted by a newer holder between list and get: that holder's lease is live.
    if (bytes.status().IsNotFound()) return Current(table);
    return bytes.status();
  }
  if (bytes->empty()) {
    // Release writes a hint (below); a crash during it may leave the object empty. Its holder
    // was letting go: released.
    Lease l;
    l.generation = *newest;
    l.released = true;
    return std::optional<Lease>(std::move(l));
  }
  SILT_ASSIGN_OR_RETURN(Lease l, ParseLease(*newest, *bytes));
  return std::optional<Lease>(std::move(l));
}

Result<std::optional<Lease>> LeaseManager::TryAcquire(ObjectStore& table) {
  SILT_ASSIGN_OR_RETURN(std::optional<Lease> current, Current(table));
  const int64_t now = clock_->NowMillis();
  if (current && !current->released && current->expires_ms > now && current->owner != owner_) {
    return std::optional<Lease>();
  }
  Lease mine;
  mine.generation = current ? current->generation + 1 : 1;
  mine.owner = owner_;
  mine.expires_ms = now + duration_ms_;
  Status put = table.PutIfAbsent(LeaseKey(mine.generation), SerializeLease(mine));
  if (put.IsAlreadyExists()) return std::optional<Lease>();
  SILT_RETURN_NOT_OK(put);
  // Older generations no longer count; a failed delete only leaves a stale object behind.
  if (current) (void)table.Delete(LeaseKey(current->generation));
  return std::optional<Lease>(std::move(mine));
}

Result<bool> LeaseManager::StillHeld(ObjectStore& table, const Lease& lease) {
  SILT_ASSIGN_OR_RETURN(std::optional<Lease> current, Current(table));
  return current && current->generation == lease.generation && current->owner == owner_ &&
         !current->released && current->expires_ms > clock_->NowMillis();
}

Result<bool> LeaseManager::CheckAndRenew(ObjectStore& table, Lease* lease) {
  const int64_t now = clock_->NowMillis();
  if (lease->owner != owner_ || lease->released || lease->expires_ms <= now) return false;
  if (lease->expires_ms - now >= duration_ms_ / 2) return true;
  Lease renewed = *lease;
  renewed.expires_ms = now + duration_ms_;
  SILT_RETURN_NOT_OK(table.PutHint(LeaseKey(renewed.generation), SerializeLease(renewed)));
  *lease = renewed;
  return true;
}

Status LeaseManager::Release(ObjectStore& table, const Lease& lease) {
  if (lease.expires_ms <= clock_->NowMillis()) {
    // Expired: another process may have taken the table over (and deleted our generation).
    SILT_ASSIGN_OR_RETURN(std::optional<Lease> current, Current(table));
    if (!current || current->generation != lease.generation || current->owner != owner_)
      return Status::OK();
  }
  // Unexpired, ours is the newest generation (see CheckAndRenew): no need to read it back.
  Lease released = lease;
  released.released = true;
  // A hint (no fsync on a local store): lost in a crash, the lease just runs to its expiry;
  // left empty, Current reads it as released.
  return table.PutHint(LeaseKey(lease.generation), SerializeLease(released));
}

}  // namespace silt::maintenance
