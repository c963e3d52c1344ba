#include "ops/vacuum.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/ascii.h"
#include "common/error_classes.h"
#include "common/key_filter.h"
#include "common/logging.h"
#include "common/thread_pool.h"
#include "delta/history.h"
#include "delta/iceberg_compat.h"
#include "delta/iceberg_metadata.h"
#include "delta/log_segment.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_features.h"
#include "delta/table_properties.h"
#include "delta/transaction.h"
#include "io/azure_blob_store.h"
#include "io/path.h"
#include "io/s3_object_store.h"
#include "ops/ops.h"

namespace silt::ops {
namespace {

using delta::DeletionVectorDescriptor;
using delta::RemoveFile;
using delta::Snapshot;
using delta::StringMap;

constexpr int64_t kMillisPerHour = 3600LL * 1000;
constexpr char kLastVacuumInfoField[] = "latestCommitVersionOutsideOfRetentionWindow";
// A FULL listing reports progress (VacuumProgress::Phase::kListing) every this many entries.
constexpr int64_t kProgressListEvery = 50000;

int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_sub_overflow(a, b, &out)) {
    return b > 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return out;
}

// A URI split into the parts Hadoop's makeQualified compares: scheme and authority must match the
// table's file system, then the path decides inside/outside.
struct Uri {
  std::string scheme;     // lower case
  std::string authority;  // "" for file: URIs (and "localhost")
  std::string path;       // decoded, no trailing '/'
};

// `text` is decoded already (a log path after ParseDeltaPath, or the decoded store root).
Uri ParseDecodedUri(std::string_view text) {
  Uri u;
  size_t colon = text.find(':');
  u.scheme = AsciiLower(text.substr(0, colon));
  std::string_view rest = text.substr(colon + 1);
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    size_t slash = rest.find('/');
    u.authority = std::string(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  if (u.scheme == "file" && u.authority == "localhost") u.authority.clear();
  u.path = std::string(rest);
  while (!u.path.empty() && u.path.back() == '/') u.path.pop_back();
  return u;
}

// The store (Azure account and container, S3 bucket) and key of a cloud location, whatever URL
// form names it (az:// and abfss://, s3:// and s3a://); nullopt for other locations.
std::optional<std::pair<std::string, std::string>> CloudStoreKey(std::string_view location) {
  if (IsAzureLocation(location)) {
    Result<AzureLocation> l = ParseAzureLocation(location);
    if (!l.ok()) return std::nullopt;
    return std::make_pair("azure:" + l->account + "/" + l->container, l->path);
  }
  if (IsS3Location(location)) {
    Result<S3Location> l = ParseS3Location(location);
    if (!l.ok()) return std::nullopt;
    return std::make_pair("s3:" + l->bucket, l->path);
  }
  return std::nullopt;
}

// "./a//b/" → "a/b": the canonical key form of a relative log path ([silt decision] §3.4).
std::string NormalizeKey(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  size_t i = 0;
  while (i < p.size()) {
    size_t end = p.find('/', i);
    if (end == std::string_view::npos) end = p.size();
    std::string_view seg = p.substr(i, end - i);
    if (!seg.empty() && seg != ".") {
      if (!out.empty()) out.push_back('/');
      out.append(seg);
    }
    i = end + 1;
  }
  return out;
}

// Whether a log path is its own key: relative, without escapes, scheme, or empty or "." segment
// (what silt, Spark and delta-rs write). Relativize gives such a path back unchanged, so the valid
// set of a 1M-file table skips decoding and normalising 1M strings. `unescaped`: the caller
// already knows p has no '%' or ':'. *last_slash is where p's parent ends (npos: none).
bool IsPlainKey(std::string_view p, bool unescaped, size_t* last_slash) {
  const size_t n = p.size();
  if (n == 0 || p.front() == '/' || p.back() == '/') return false;  // "" segment at an end
  // memchr scans a word at a time: a per-character loop here was a third of LITE's probe of a
  // 100k-file checkpoint (every live path passes through this test).
  if (!unescaped &&
      (std::memchr(p.data(), '%', n) != nullptr || std::memchr(p.data(), ':', n) != nullptr)) {
    return false;
  }
  if (p[0] == '.' && (n == 1 || p[1] == '/')) return false;  // leading "." segment
  *last_slash = std::string_view::npos;
  for (size_t i = p.find('/'); i != std::string_view::npos; i = p.find('/', i + 1)) {
    // i + 1 < n: p does not end in '/'.
    if (p[i + 1] == '/') return false;                                     // "" segment
    if (p[i + 1] == '.' && (i + 2 == n || p[i + 2] == '/')) return false;  // "." segment
    *last_slash = i;
  }
  return true;
}

// Calls fn(ancestor) for every directory strictly between the root and `key` (views into `key`).
template <typename Fn>
void ForEachAncestor(std::string_view key, Fn&& fn) {
  for (size_t pos = key.find('/'); pos != std::string_view::npos; pos = key.find('/', pos + 1)) {
    fn(key.substr(0, pos));
  }
}

// Heterogeneous lookup: the per-file ancestor lookups of 1M-file tables allocate no strings.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// The valid set: keys copied into large blocks, indexed by an open-addressing table of
// (hash, key) slots. A 1M-file table does ~3M lookups (build, listing metadata, counting); a probe
// here touches one slot and, on a hash match, the key bytes — std::unordered_set chases a bucket,
// a node and a heap string, and allocates twice per key.
class ValidSet {
 public:
  bool contains(std::string_view key) const {
    if (slots_.empty()) return false;
    const uint64_t h = KeyHash{}(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.data == nullptr) return false;
      if (s.hash == h && std::string_view(s.data, s.len) == key) return true;
    }
  }
  void insert(std::string_view key) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const uint64_t h = KeyHash{}(key);
    size_t i = h & mask_;
    for (; slots_[i].data != nullptr; i = (i + 1) & mask_) {
      if (slots_[i].hash == h && std::string_view(slots_[i].data, slots_[i].len) == key) return;
    }
    slots_[i] = Slot{h, Copy(key), static_cast<uint32_t>(key.size())};
    ++size_;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;  // null: empty slot
    uint32_t len = 0;
  };
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.data == nullptr) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].data != nullptr) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  const char* Copy(std::string_view key) {
    constexpr size_t kBlock = 1 << 20;
    if (key.size() > left_) {
      const size_t n = std::max(kBlock, key.size());
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(n));
      next_ = blocks_.back().get();
      left_ = n;
    }
    char* out = next_;
    std::memcpy(out, key.data(), key.size());
    next_ += key.size();
    left_ -= key.size();
    return out;
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
};
template <typename V>
using KeyMap = std::unordered_map<std::string, V, KeyHash, std::equal_to<>>;

std::string RetentionTooShortMessage(int64_t table_ms, int64_t specified_ms,
                                     const std::string& table) {
  // Whole hours, rounded up, as Spark prints them.
  int64_t hours = table_ms / kMillisPerHour + (table_ms % kMillisPerHour != 0 ? 1 : 0);
  return "The specified VACUUM retention period is too low and may corrupt this Delta table if any "
         "writes are in progress. If no operations (insert, upsert, delete, optimize) are running, "
         "you can disable this safety check by setting: delta.retentionDurationCheck.enabled = "
         "false. Otherwise, use a retention period of at least " +
         std::to_string(hours) + " hours. (table " + table + ", requested " +
         std::to_string(specified_ms / kMillisPerHour) + " hours)";
}

struct Group {
  int64_t count = 0;
  int64_t size = 0;
  bool is_dir = false;
};

class VacuumRun {
 public:
  VacuumRun(std::shared_ptr<ObjectStore> store, VacuumOptions options)
      : store_(std::move(store)), options_(std::move(options)) {}

  Result<VacuumResult> Run();

 private:
  Status InitRoot();
  Status LoadSnapshot();
  Status CatalogManagedError() const;
  Status ComputeRetention();
  Result<std::optional<std::string>> Relativize(std::string_view log_path, bool ignore_cross_fs);
  Result<std::optional<std::string>> DvKey(const DeletionVectorDescriptor& dv);
  Status BuildValidSet(bool only_listed);
  bool IsHiddenKey(std::string_view key) const;
  void Consider(const std::string& key, int64_t size, bool is_dir, int64_t mtime);
  Status ListFull();
  Status ListInventory();
  Status ListLite();
  Result<std::optional<int64_t>> ReadWatermark();
  Result<std::optional<int64_t>> WatermarkAtCutoff(std::vector<delta::CommitEntry>* commits);
  Result<std::optional<int64_t>> CapBeforeYoungRemoves(
      const std::vector<delta::CommitEntry>& commits, int64_t w);
  void PickCandidates();
  Status Report(VacuumProgress::Phase phase);
  // `after`: the START commit, for END (which reads on from it).
  Result<delta::CommitResult> CommitHistory(
      const std::string& operation, StringMap params,
      const std::vector<std::pair<std::string, int64_t>>& metrics,
      const std::optional<delta::CommitResult>& after);
  Status DeleteCandidates();
  void RecordWatermark();

  std::shared_ptr<ObjectStore> store_;
  VacuumOptions options_;
  VacuumResult result_;
  Uri root_;
  std::string root_text_;  // the decoded store root
  std::shared_ptr<const Snapshot> snapshot_;
  std::vector<std::string> partition_prefixes_;
  bool uniform_iceberg_ = false;
  int64_t now_ = 0;
  int64_t cutoff_ = 0;
  int64_t tombstone_floor_ = 0;  // removes at or before this are gone from Spark's state
  ValidSet valid_;
  bool valid_has_ancestors_ = false;  // valid_ holds every live key and its ancestors (not LITE)
  KeyMap<Group> groups_;
  int64_t listed_ = 0;
  int64_t listed_dirs_ = 0;
  std::optional<int64_t> lite_watermark_;  // W of a LITE run
  // FULL runs that record a LITE watermark: the keys of the tombstones not yet older than the
  // cutoff (this run keeps their files; the watermark must not pass their commits).
  bool collect_young_ = false;
  std::unordered_set<std::string> young_;
  VacuumProgress progress_;
};

Status VacuumRun::InitRoot() {
  SILT_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(store_->root()));
  if (!HasUriScheme(decoded)) decoded = "file://" + decoded;
  root_ = ParseDecodedUri(decoded);
  root_text_ = decoded;
  result_.table_path = root_.scheme + "://" + root_.authority + root_.path;
  return Status::OK();
}

Status VacuumRun::CatalogManagedError() const {
  return Status::Unsupported(
      "VACUUM is blocked by the catalog for Catalog-Managed tables. (" + result_.table_path + ")",
      kErrorCatalogManagedOperation);
}

Status VacuumRun::LoadSnapshot() {
  // Without files: BuildValidSet streams the file actions it needs (ForEachFileAction).
  auto loaded = options_.snapshot ? Result<std::shared_ptr<const Snapshot>>(options_.snapshot)
                                  : Snapshot::Load(store_, std::nullopt,
                                                   delta::SnapshotOptions{.load_files = false});
  if (!loaded.ok() && loaded.status().error_class() == errc::kDeltaUnsupportedFeaturesForRead) {
    // catalogManaged is a reader-writer feature, so the snapshot's read check refuses such a
    // table first; VACUUM owes the user the catalog's error instead.
    std::string_view msg = loaded.status().message();
    if (msg.find("catalogManaged") != std::string_view::npos ||
        msg.find("catalogOwned-preview") != std::string_view::npos) {
      return CatalogManagedError();
    }
  }
  if (!loaded.ok()) {
    if (loaded.status().error_class() != errc::kDeltaTableNotFound) return loaded.status();
    // A log directory with files but no commit: Spark's "no state defined" requirement.
    SILT_ASSIGN_OR_RETURN(auto log_entries, store_->ListFrom(delta::kLogDir));
    if (!log_entries.empty()) {
      return Status::InvalidArgument(
          "requirement failed: No state defined for this table. Is this really a Delta table? "
          "Refusing to garbage collect. (" +
              result_.table_path + ")",
          kErrorVacuumNoState);
    }
    return Status::InvalidArgument(
        "`" + result_.table_path +
            "` is not a Delta table. VACUUM is only supported for Delta tables.",
        kErrorTableOnlyOperation);
  }
  snapshot_ = loaded.MoveValue();
  result_.snapshot_version = snapshot_->version();
  const delta::Protocol& protocol = snapshot_->protocol();
  if (delta::HasFeature(protocol, "catalogManaged") ||
      delta::HasFeature(protocol, "catalogOwned-preview")) {
    return CatalogManagedError();
  }
  // The vacuumProtocolCheck rule: a vacuum must be able to write the table, not just read it.
  SILT_RETURN_NOT_OK(
      delta::CheckWriteSupported(protocol, snapshot_->metadata(), false, result_.table_path));

  for (const std::string& col : snapshot_->partition_columns()) {
    partition_prefixes_.push_back(col + "=");
    std::string escaped = EscapePathName(col);
    if (escaped != col) partition_prefixes_.push_back(escaped + "=");
    // [silt decision] column-mapped tables may name partition directories by physical name.
    int idx = FindField(snapshot_->schema(), col);
    if (idx >= 0) {
      if (auto physical = delta::PhysicalName(snapshot_->schema()[static_cast<size_t>(idx)])) {
        partition_prefixes_.push_back(*physical + "=");
      }
    }
  }
  uniform_iceberg_ = delta::UniformIcebergEnabled(snapshot_->metadata().configuration);
  return Status::OK();
}

Status VacuumRun::ComputeRetention() {
  SILT_ASSIGN_OR_RETURN(int64_t table_ms,
                        delta::GetDeletedFileRetentionMillis(snapshot_->metadata().configuration));
  result_.default_retention_millis = table_ms;
  now_ = options_.clock->NowMillis();
  std::optional<int64_t> specified;
  if (options_.retain_hours) {
    double hours = *options_.retain_hours;
    if (!std::isfinite(hours)) {
      return Status::InvalidArgument("RETAIN must be a finite number of hours",
                                     kErrorVacuumRetentionNegative);
    }
    // Spark: Math.round (half up), then TimeUnit.HOURS.toMillis (saturating).
    double rounded = std::floor(hours + 0.5);
    constexpr double kMaxHours =
        static_cast<double>(std::numeric_limits<int64_t>::max() / kMillisPerHour);
    int64_t ms = rounded >= kMaxHours    ? std::numeric_limits<int64_t>::max()
                 : rounded <= -kMaxHours ? std::numeric_limits<int64_t>::min()
                                         : static_cast<int64_t>(rounded) * kMillisPerHour;
    if (options_.retain_argument_mode == RetainArgumentMode::kIgnoreNonZero && ms != 0) {
      SILT_LOG(kWarn)
          << "Vacuum with retention threshold other than 0 hours is ignored. Please set "
             "delta.deletedFileRetentionDuration table property to configure the "
             "retention period.";
      result_.retain_ignored = true;
    } else {
      specified = ms;
    }
  }
  if (specified && *specified < 0) {
    return Status::InvalidArgument("Retention period for Vacuum can't be less than 0 hours.",
                                   kErrorVacuumRetentionNegative);
  }
  if (options_.retention_check_enabled && specified && *specified < table_ms) {
    return Status::InvalidArgument(
        RetentionTooShortMessage(table_ms, *specified, result_.table_path),
        kErrorVacuumRetentionTooShort);
  }
  if (specified && *specified > table_ms) {
    // Tombstones older than the table's retention are gone from the state (§2.6), so a longer
    // RETAIN does not protect those files.
    SILT_LOG(kWarn) << "VACUUM RETAIN is longer than delta.deletedFileRetentionDuration of "
                    << result_.table_path << "; files removed earlier than the table's retention "
                    << "are not protected by it";
  }
  result_.specified_retention_millis = specified;
  cutoff_ = SaturatingSub(now_, specified.value_or(table_ms));
  tombstone_floor_ = SaturatingSub(now_, table_ms);
  result_.min_retained_timestamp_ms = cutoff_;
  return Status::OK();
}

// The object key of a log path, nullopt when it lies outside the table root. An absolute path of
// another file system (scheme or authority) is kErrorFailRelativizePath unless ignored.
Result<std::optional<std::string>> VacuumRun::Relativize(std::string_view log_path,
                                                         bool ignore_cross_fs) {
  SILT_ASSIGN_OR_RETURN(DeltaPath dp, ParseDeltaPath(log_path));
  if (!dp.absolute) {
    std::string key = NormalizeKey(dp.path);
    if (key.empty()) return std::optional<std::string>();
    return std::optional<std::string>(std::move(key));
  }
  Uri u;
  if (!HasUriScheme(dp.path)) {
    // A scheme-less absolute path is qualified with the table's file system.
    u = root_;
    u.path = dp.path;
    while (!u.path.empty() && u.path.back() == '/') u.path.pop_back();
  } else {
    u = ParseDecodedUri(dp.path);
    if (u.scheme != root_.scheme || u.authority != root_.authority) {
      // The table's own store under another spelling (a shallow clone names files by the form
      // Spark opens, abfss:// or s3a://, whatever form silt opened the table by): its keys.
      const auto path_store = CloudStoreKey(dp.path);
      const auto root_store = path_store ? CloudStoreKey(root_text_) : std::nullopt;
      if (root_store && path_store->first == root_store->first) {
        const std::string prefix = root_store->second.empty() ? "" : root_store->second + "/";
        if (!path_store->second.starts_with(prefix)) return std::optional<std::string>();
        std::string key = NormalizeKey(std::string_view(path_store->second).substr(prefix.size()));
        if (key.empty()) return std::optional<std::string>();
        return std::optional<std::string>(std::move(key));
      }
      if (ignore_cross_fs || options_.relativize_ignore_error) return std::optional<std::string>();
      return Status::InvalidArgument(
          "Failed to relativize the path (" + std::string(log_path) +
              "). This can happen when absolute paths make it into the transaction log, which "
              "start "
              "with the scheme s3://, wasbs:// or adls://. If this table is NOT USED IN "
              "PRODUCTION, "
              "you can set the SQL configuration "
              "spark.databricks.delta.vacuum.relativize.ignoreError "
              "to true. Using this SQL configuration could lead to accidental data loss, therefore "
              "we "
              "do not recommend the use of this flag unless this is a test table. (table " +
              result_.table_path + ")",
          kErrorFailRelativizePath);
    }
  }
  const std::string prefix = root_.path + "/";
  if (!u.path.starts_with(prefix)) return std::optional<std::string>();
  std::string key = NormalizeKey(std::string_view(u.path).substr(prefix.size()));
  if (key.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(key));
}

// The key of a DV's file, nullopt for inline DVs and files outside the root.
Result<std::optional<std::string>> VacuumRun::DvKey(const DeletionVectorDescriptor& dv) {
  if (dv.IsInline()) return std::optional<std::string>();
  if (dv.storage_type == 'p') {
    // [silt decision] Spark ignores 'p' DVs; silt protects the ones inside the root. A 'p' DV of
    // another file system is outside by definition, never an error.
    SILT_RETURN_NOT_OK(dv.Validate());
    return Relativize(dv.path_or_inline_dv, /*ignore_cross_fs=*/true);
  }
  // 'u': "<prefix>/deletion_vector_<uuid>.bin" relative to the root. An undecodable descriptor
  // fails the run: a DV file silt cannot name is a DV file it cannot protect.
  SILT_ASSIGN_OR_RETURN(std::string rel, dv.AbsolutePath(""));
  return std::optional<std::string>(NormalizeKey(rel));
}

Status VacuumRun::BuildValidSet(bool only_listed) {
  // only_listed (LITE, which lists before this): only keys that are candidates can matter, so
  // the set stays at the size of the commits' removes instead of the table's. Every live path is
  // probed against the listed keys (the quick filter turns almost all probes away without hashing).
  valid_has_ancestors_ = !only_listed;
  // (FULL walks the state in this thread: young_ needs no lock.)
  collect_young_ = !only_listed && !options_.dry_run && !options_.inventory &&
                   options_.full_records_lite_watermark;
  ValidSet listed;
  KeyQuickFilter listed_filter;
  if (only_listed) {
    for (const auto& [key, g] : groups_) {
      listed.insert(key);
      listed_filter.Add(key);
    }
  }
  auto wanted = [&](std::string_view key) {
    return !only_listed || (listed_filter.MayContain(key) && listed.contains(key));
  };
  // LITE walks the checkpoint on log_pool: visitors run concurrently and insert under the lock.
  ThreadPool* pool = only_listed ? options_.log_pool : nullptr;
  std::mutex valid_mu;
  auto keep = [&](std::string_view key) {
    if (!wanted(key)) return;
    if (pool == nullptr) return valid_.insert(key);
    std::lock_guard<std::mutex> lock(valid_mu);
    valid_.insert(key);
  };
  Status walked = snapshot_->ForEachFileActionOn(pool, [&]() -> delta::FileActionVisitor {
    // Files come grouped by directory: a task's last directory has its ancestors in already.
    // `slash`: where key's parent ends (npos: in the root).
    auto protect = [&, last_parent = std::string(), have_parent = false](std::string_view key,
                                                                         size_t slash) mutable {
      keep(key);
      if (slash == std::string_view::npos) return;
      const std::string_view parent = key.substr(0, slash);
      if (have_parent && parent == last_parent) return;  // its ancestors are in already
      last_parent.assign(parent);
      have_parent = true;
      ForEachAncestor(key, keep);
    };
    return [&, protect](const delta::FileActionRef& fa) mutable -> Status {
      if (!fa.is_add) {
        int64_t ts = fa.deletion_timestamp.value_or(0);
        // Expired for this run (ts < cutoff), or already dropped from the state by the table's
        // own tombstone retention (Spark's minFileRetentionTimestamp, §2.6).
        if (ts < cutoff_ || ts <= tombstone_floor_) return Status::OK();
      }
      size_t slash = std::string_view::npos;
      if (IsPlainKey(fa.path, fa.unescaped, &slash)) {
        protect(fa.path, slash);
        if (collect_young_ && !fa.is_add) young_.emplace(fa.path);
      } else {
        SILT_ASSIGN_OR_RETURN(auto key, Relativize(fa.path, false));
        if (key) protect(*key, key->rfind('/'));
        if (key && collect_young_ && !fa.is_add) young_.insert(*key);
      }
      if (fa.deletion_vector) {
        SILT_ASSIGN_OR_RETURN(auto dv_key, DvKey(*fa.deletion_vector));
        // [silt decision] the DV's directories are protected too (Spark adds only the file).
        if (dv_key) protect(*dv_key, dv_key->rfind('/'));
      }
      return Status::OK();
    };
  });
  if (!walked.ok() || !uniform_iceberg_) return walked;
  // UniForm (Iceberg): the current Iceberg snapshot may still name a file Delta removed (its
  // conversion runs after the commit and may have failed); Iceberg readers must find it.
  SILT_ASSIGN_OR_RETURN(std::vector<std::string> iceberg, delta::IcebergReferencedFiles(*store_));
  for (const std::string& key : iceberg) {
    if (HasUriScheme(key)) continue;  // outside the table: never listed here
    keep(key);
    ForEachAncestor(key, keep);
  }
  return Status::OK();
}

bool VacuumRun::IsHiddenKey(std::string_view key) const {
  size_t i = 0;
  while (i <= key.size()) {
    size_t end = key.find('/', i);
    if (end == std::string_view::npos) end = key.size();
    if (IsHiddenName(key.substr(i, end - i), partition_prefixes_, uniform_iceberg_)) return true;
    i = end + 1;
  }
  return false;
}

// Delta's expansion (§3.3): an old file counts once for itself and once for each ancestor
// directory; a directory counts once for itself. Only entries counted exactly once can go.
void VacuumRun::Consider(const std::string& key, int64_t size, bool is_dir, int64_t mtime) {
  if (is_dir) {
    Group& g = groups_[key];
    ++g.count;
    g.is_dir = true;
    return;
  }
  if (mtime >= cutoff_) return;
  // A valid file is never a candidate. With the whole valid set (FULL, inventory) neither is any
  // of its ancestors (BuildValidSet protects them), so its counts change no outcome: skipping
  // them spares a 1M-file table's listing a directory lookup per live file. LITE's valid set
  // holds only the listed keys, so there its ancestors still need its count.
  const bool valid = valid_.contains(key);
  if (valid && valid_has_ancestors_) return;
  ForEachAncestor(key, [&](std::string_view dir) {
    auto it = groups_.find(dir);
    if (it == groups_.end()) it = groups_.emplace(std::string(dir), Group{}).first;
    ++it->second.count;
    it->second.is_dir = true;
  });
  if (valid) return;
  Group& g = groups_[key];
  ++g.count;
  g.size += size;
}

Status VacuumRun::ListFull() {
  // Size and mtime of live files never matter (they are not candidates, and their directories
  // are valid anyway), so the store may skip them. Called on the listing's pool threads: valid_
  // is only read while listing.
  auto need_meta = [&](std::string_view key) { return !valid_.contains(key); };
  return store_->ListRecursiveSomeMeta(
      "",
      [&](const ObjectMeta& m) -> Status {
        // Per-component hidden rule: equivalent to not descending into hidden directories.
        if (IsHiddenKey(m.key)) return Status::OK();
        ++listed_;
        if (m.is_dir) ++listed_dirs_;
        Consider(m.key, m.size, m.is_dir, m.modification_time_ms);
        if (listed_ % kProgressListEvery == 0) {
          progress_.listed = listed_;
          return Report(VacuumProgress::Phase::kListing);
        }
        return Status::OK();
      },
      need_meta, options_.list_pool);
}

Status VacuumRun::ListInventory() {
  // Rows are raw (decoded) qualified URIs; keep those strictly below the root. file: roots also
  // match Hadoop's "file:/path" spelling.
  std::vector<std::string> bases = {result_.table_path + "/"};
  if (root_.scheme == "file") bases.push_back("file:" + root_.path + "/");
  std::unordered_map<std::string, InventoryEntry> rows;
  for (const InventoryEntry& e : *options_.inventory) {
    std::string_view rest;
    bool inside = false;
    for (const std::string& b : bases) {
      if (std::string_view(e.path).starts_with(b)) {
        rest = std::string_view(e.path).substr(b.size());
        inside = true;
        break;
      }
    }
    if (!inside) continue;
    std::string key = NormalizeKey(rest);
    // [silt decision] the per-component hidden rule of listings, not Spark's whole-path rule.
    if (key.empty() || IsHiddenKey(key)) continue;
    auto [it, fresh] = rows.try_emplace(key, e);
    if (!fresh && e.modification_time_ms > it->second.modification_time_ms) it->second = e;
  }
  for (const auto& [key, e] : rows) {
    ++listed_;
    if (e.is_dir) ++listed_dirs_;
    Consider(key, e.length, e.is_dir, e.modification_time_ms);
  }
  return Status::OK();
}

Result<std::optional<int64_t>> VacuumRun::ReadWatermark() {
  auto bytes = store_->Get(kLastVacuumInfoKey);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) return std::optional<int64_t>();
    return bytes.status();
  }
  // A corrupt file counts as absent (Spark: telemetry only).
  simdjson::dom::parser parser;
  simdjson::padded_string padded(*bytes);
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) return std::optional<int64_t>();
  int64_t v = 0;
  if (doc[kLastVacuumInfoField].get_int64().get(v) != simdjson::SUCCESS)
    return std::optional<int64_t>();
  return std::optional<int64_t>(v);
}

// W: the greatest version whose commit timestamp is <= the cutoff (nullopt when the cutoff is
// before every commit still in the log).
Result<std::optional<int64_t>> VacuumRun::WatermarkAtCutoff(
    std::vector<delta::CommitEntry>* commits) {
  // The ICT configuration of the snapshot this run uses (ListCommits would load it again).
  SILT_ASSIGN_OR_RETURN(delta::IctConfig ict, delta::IctConfigOf(snapshot_->metadata(), *store_));
  SILT_ASSIGN_OR_RETURN(*commits, delta::ListCommits(*store_, 0, false, &ict));
  std::optional<int64_t> w;
  for (const auto& c : *commits) {
    if (c.timestamp_ms <= cutoff_) w = c.version;
  }
  // Only commits the snapshot covers: a commit racing this run is not "outside the window".
  if (w && *w > snapshot_->version()) w = snapshot_->version();
  return w;
}

Status VacuumRun::ListLite() {
  std::vector<delta::CommitEntry> commits;
  SILT_ASSIGN_OR_RETURN(std::optional<int64_t> w, WatermarkAtCutoff(&commits));
  if (commits.empty()) return Status::OK();
  const int64_t earliest = commits.front().version;
  SILT_ASSIGN_OR_RETURN(std::optional<int64_t> last, ReadWatermark());
  auto cannot = [&]() {
    return Status::InvalidArgument(
        "VACUUM LITE cannot delete all eligible files as some files are not referenced by the "
        "Delta "
        "log. Please run VACUUM FULL. (table " +
            result_.table_path + ")",
        kErrorCannotVacuumLite);
  };
  if (!w) return Status::OK();  // nothing is older than the cutoff yet
  if (earliest != 0 && (!last || *last < earliest)) return cannot();
  const int64_t start = std::min(snapshot_->version(), last ? *last + 1 : earliest);
  const int64_t end = *w;
  lite_watermark_ = end;
  if (start > end) return Status::OK();
  result_.eligible_start_commit_version = start;
  result_.eligible_end_commit_version = end;
  // Candidates named by the commits in [start, end], deduplicated by key (newest mtime wins).
  struct Named {
    int64_t size;
    int64_t mtime;
  };
  std::unordered_map<std::string, Named> named;
  // The first commit of the range with a remove not yet older than the cutoff (its commit time
  // is, or it would not be in the range: a commit time from a lagging mtime or another writer's
  // clock can precede the remove's deletionTimestamp).
  std::optional<int64_t> first_young;
  int64_t version = start;
  auto add = [&](const std::string& key, int64_t size, int64_t mtime) {
    if (IsHiddenKey(key)) return;
    if (mtime >= cutoff_ && !first_young) first_young = version;
    auto [it, fresh] = named.try_emplace(key, Named{size, mtime});
    if (!fresh && mtime > it->second.mtime) it->second = Named{size, mtime};
  };
  int64_t expected = start;
  for (const auto& c : commits) {
    if (c.version < start || c.version > end) continue;
    if (c.version != expected) return cannot();  // a hole in the range: files we cannot see
    ++expected;
    version = c.version;
    SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(delta::CommitKey(c.version)));
    std::vector<delta::Action> actions;
    SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, delta::CommitKey(c.version)));
    for (const delta::Action& a : actions) {
      if (const RemoveFile* r = a.get_if<RemoveFile>()) {
        // LITE's eligibility is the tombstone's age, not the file's mtime.
        int64_t ts = r->deletion_timestamp.value_or(0);
        SILT_ASSIGN_OR_RETURN(auto key, Relativize(r->path, false));
        if (key) add(*key, r->size.value_or(0), ts);
        if (r->deletion_vector && r->deletion_vector->storage_type == 'u') {
          SILT_ASSIGN_OR_RETURN(auto dv_key, DvKey(*r->deletion_vector));
          if (dv_key) add(*dv_key, r->deletion_vector->size_in_bytes, ts);
        }
      } else if (const delta::AddCDCFile* cdc = a.get_if<delta::AddCDCFile>()) {
        SILT_ASSIGN_OR_RETURN(auto key, Relativize(cdc->path, false));
        if (key) add(*key, cdc->size, 0);
      }
    }
  }
  if (expected != end + 1) return cannot();
  // [silt decision] the watermark stops before that commit, so the next LITE run reads it again
  // and deletes its files once they are old enough. Spark records `end` regardless: no later
  // LITE run would look at those files again, and only a FULL run would delete them.
  if (first_young) {
    lite_watermark_ =
        *first_young > 0 ? std::optional<int64_t>(*first_young - 1) : std::optional<int64_t>();
  }
  for (const auto& [key, n] : named) {
    ++listed_;
    Consider(key, n.size, false, n.mtime);
  }
  return Status::OK();
}

// A FULL run's watermark W may not pass a commit whose removes this run kept as too young (a
// commit time at or before the cutoff, a deletionTimestamp after it): no later LITE run would
// read that commit again. Walks the commits from the newest down until every young tombstone of
// the state (young_) is found; returns W or the version before the oldest such commit at or
// below W (-1: none left), nullopt when some young tombstone's commit is no longer in the log.
Result<std::optional<int64_t>> VacuumRun::CapBeforeYoungRemoves(
    const std::vector<delta::CommitEntry>& commits, int64_t w) {
  int64_t cap = w;
  for (auto c = commits.rbegin(); c != commits.rend() && !young_.empty(); ++c) {
    if (c->version > snapshot_->version()) continue;
    SILT_ASSIGN_OR_RETURN(std::string bytes, store_->Get(delta::CommitKey(c->version)));
    std::vector<delta::Action> actions;
    SILT_RETURN_NOT_OK(delta::ParseCommit(bytes, &actions, delta::CommitKey(c->version)));
    for (const delta::Action& a : actions) {
      const RemoveFile* r = a.get_if<RemoveFile>();
      if (r == nullptr) continue;
      SILT_ASSIGN_OR_RETURN(auto key, Relativize(r->path, false));
      // The newest remove of a key is its tombstone in the state.
      if (!key || young_.erase(*key) == 0) continue;
      if (c->version <= cap) cap = c->version - 1;
    }
  }
  if (!young_.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(cap);
}

void VacuumRun::PickCandidates() {
  for (auto& [key, g] : groups_) {
    if (g.count != 1 || valid_.contains(key)) continue;
    VacuumCandidate c;
    c.key = key;
    c.path = result_.table_path + "/" + key;
    c.size = g.size;
    c.is_dir = g.is_dir;
    result_.size_of_data_to_delete += g.size;
    result_.candidates.push_back(std::move(c));
  }
  groups_.clear();
  std::sort(result_.candidates.begin(), result_.candidates.end(),
            [](const VacuumCandidate& a, const VacuumCandidate& b) { return a.key < b.key; });
  result_.num_files_to_delete = static_cast<int64_t>(result_.candidates.size());
  result_.num_vacuumed_directories = listed_dirs_ + 1;
  progress_.listed = listed_;
  progress_.to_delete = result_.num_files_to_delete;
}

Status VacuumRun::Report(VacuumProgress::Phase phase) {
  progress_.phase = phase;
  if (!options_.progress) return Status::OK();
  return options_.progress(progress_);
}

Result<delta::CommitResult> VacuumRun::CommitHistory(
    const std::string& operation, StringMap params,
    const std::vector<std::pair<std::string, int64_t>>& metrics,
    const std::optional<delta::CommitResult>& after) {
  std::shared_ptr<const Snapshot> read = snapshot_;
  // START only writes a commitInfo: END reads on from it without reloading the snapshot, unless
  // another commit came between this run's snapshot and START.
  const bool follows = after && after->version == snapshot_->version() + 1;
  if (after && !follows) {
    auto newer =
        Snapshot::Load(store_, after->version, delta::SnapshotOptions{.load_files = false});
    if (newer.ok()) read = newer.MoveValue();  // else the commit loop finds the newer versions
  }
  delta::TransactionOptions txn_options;
  txn_options.clock = options_.clock;
  txn_options.user_name = options_.commit_user_name;
  txn_options.user_metadata = options_.commit_user_metadata;
  delta::Transaction txn(store_, read, txn_options);
  if (follows) txn.ReadAfter(*after);
  txn.SetOperation(operation, std::move(params));
  for (const auto& [k, v] : metrics) txn.SetMetric(k, v);
  return txn.Commit();
}

Status VacuumRun::DeleteCandidates() {
  std::vector<const VacuumCandidate*> files, dirs;
  for (const auto& c : result_.candidates) (c.is_dir ? dirs : files).push_back(&c);
  auto note_failure = [&](const Status& st) {
    ++result_.num_failed_deletes;
    if (result_.first_delete_error.ok()) result_.first_delete_error = st;
  };
  const size_t batch = std::max<size_t>(1, options_.delete_batch_size);
  // Candidates are sorted by key, so a directory's files are adjacent: each DeleteKeys call (and
  // each pool task's slice of a batch) opens a directory once for its run of files.
  std::vector<std::string_view> keys;
  keys.reserve(files.size());
  for (const VacuumCandidate* f : files) keys.push_back(f->key);
  std::vector<Status> statuses;
  for (size_t begin = 0; begin < files.size(); begin += batch) {
    const size_t n = std::min(batch, files.size() - begin);
    statuses.assign(n, Status::OK());
    // A missing key is OK: a concurrent or earlier VACUUM got there first.
    std::span<const std::string_view> batch_keys(keys.data() + begin, n);
    if (options_.delete_files) {
      options_.delete_files(batch_keys, statuses);
    } else if (options_.delete_pool != nullptr) {
      const size_t slices =
          std::min(n, 4 * std::max<size_t>(1, options_.delete_pool->num_threads()));
      const size_t per = (n + slices - 1) / slices;
      SILT_RETURN_NOT_OK(options_.delete_pool->ParallelFor(slices, [&](size_t s) -> Status {
        const size_t lo = s * per, hi = std::min(n, lo + per);
        if (lo < hi) {
          store_->DeleteKeys(batch_keys.subspan(lo, hi - lo),
                             std::span<Status>(statuses.data() + lo, hi - lo));
        }
        return Status::OK();
      }));
    } else {
      store_->DeleteKeys(batch_keys, statuses);
    }
    for (size_t i = 0; i < n; ++i) {
      if (statuses[i].ok()) {
        result_.deleted.push_back(files[begin + i]->key);
      } else {
        note_failure(statuses[i]);
      }
    }
    progress_.attempted += static_cast<int64_t>(n);
    progress_.deleted = static_cast<int64_t>(result_.deleted.size());
    SILT_RETURN_NOT_OK(Report(VacuumProgress::Phase::kDeleting));
  }
  // [silt decision] directories after files, deepest first, so a directory emptied by this run's
  // deletes goes in the same run; each delete is non-recursive, so one that a writer refilled (or
  // that holds young or hidden files) stays.
  std::stable_sort(dirs.begin(), dirs.end(),
                   [](const VacuumCandidate* a, const VacuumCandidate* b) {
                     return std::count(a->key.begin(), a->key.end(), '/') >
                            std::count(b->key.begin(), b->key.end(), '/');
                   });
  for (const VacuumCandidate* d : dirs) {
    Status st = store_->DeleteDir(d->key);
    if (st.ok()) {
      result_.deleted.push_back(d->key);
    } else if (st.error_class() != kErrorDirectoryNotEmpty) {
      note_failure(st);
    }
    ++progress_.attempted;
  }
  result_.num_deleted_files = static_cast<int64_t>(result_.deleted.size());
  progress_.deleted = result_.num_deleted_files;
  if (!dirs.empty()) {
    SILT_RETURN_NOT_OK(Report(VacuumProgress::Phase::kDeleting));
  }
  return Status::OK();
}

// Best effort, as in Spark: a failed write only makes the next LITE run rescan.
void VacuumRun::RecordWatermark() {
  // [silt decision] a run whose deletes partly failed does not advance the watermark: the next
  // LITE run must see those files again.
  if (result_.num_failed_deletes > 0) return;
  std::optional<int64_t> w;
  std::string body;
  if (options_.mode == VacuumMode::kLite) {
    w = lite_watermark_;
  } else if (options_.inventory) {
    return;  // an inventory may be stale: it proves nothing about the log's files
  } else if (!options_.full_records_lite_watermark) {
    body = "{}";  // Spark parity: FULL erases the LITE watermark
  } else {
    std::vector<delta::CommitEntry> commits;
    auto at = WatermarkAtCutoff(&commits);
    if (!at.ok()) return;
    w = *at;
    if (w && !young_.empty()) {
      auto capped = CapBeforeYoungRemoves(commits, *w);
      if (!capped.ok()) return;
      if (!*capped) return;  // a young tombstone's commit is gone: keep the old watermark
      w = **capped >= 0 ? std::optional<int64_t>(**capped) : std::optional<int64_t>();
      if (!w) return;
    }
  }
  if (w) body = std::string("{\"") + kLastVacuumInfoField + "\":" + std::to_string(*w) + "}";
  if (body.empty()) return;
  // A hint (a lost or stale watermark only makes LITE rescan): not worth an fsync per run.
  Status st = store_->PutHint(kLastVacuumInfoKey, body);
  if (!st.ok()) {
    SILT_LOG(kWarn) << "could not write " << kLastVacuumInfoKey << ": " << st.ToString();
    return;
  }
  result_.recorded_watermark = w;
}

Result<VacuumResult> VacuumRun::Run() {
  SILT_RETURN_NOT_OK(RequireClock(options_.clock, "VacuumOptions"));
  result_.dry_run = options_.dry_run;
  result_.mode = options_.mode;
  result_.used_inventory = options_.inventory.has_value();
  SILT_RETURN_NOT_OK(InitRoot());
  SILT_RETURN_NOT_OK(LoadSnapshot());
  if (options_.inventory && options_.mode == VacuumMode::kLite) {
    return Status::InvalidArgument(
        "Operation not allowed: Inventory option is not compatible with LITE",
        errc::kLegacyErrorTemp0035);
  }
  SILT_RETURN_NOT_OK(ComputeRetention());
  if (options_.mode == VacuumMode::kLite) {
    // LITE names few files: list first, then look only those up in the snapshot.
    SILT_RETURN_NOT_OK(ListLite());
    SILT_RETURN_NOT_OK(BuildValidSet(/*only_listed=*/true));
  } else {
    // FULL lists the whole table: the valid set first keeps live files out of groups_.
    SILT_RETURN_NOT_OK(BuildValidSet(/*only_listed=*/false));
    if (options_.inventory) {
      SILT_RETURN_NOT_OK(ListInventory());
    } else {
      SILT_RETURN_NOT_OK(ListFull());
    }
  }
  PickCandidates();
  SILT_RETURN_NOT_OK(Report(VacuumProgress::Phase::kPlanned));
  if (options_.dry_run) {
    SILT_LOG(kInfo) << "Found " << result_.num_files_to_delete << " files ("
                    << result_.size_of_data_to_delete << " bytes) and directories in a total of "
                    << result_.num_vacuumed_directories << " directories that are safe to delete.";
    return std::move(result_);
  }

  std::optional<delta::CommitResult> start;
  if (options_.logging_enabled) {
    StringMap params;
    params.Set("retentionCheckEnabled", options_.retention_check_enabled ? "true" : "false");
    params.Set("defaultRetentionMillis", std::to_string(result_.default_retention_millis));
    if (result_.specified_retention_millis) {
      params.Set("specifiedRetentionMillis", std::to_string(*result_.specified_retention_millis));
    }
    SILT_ASSIGN_OR_RETURN(start,
                          CommitHistory("VACUUM START", std::move(params),
                                        {{"numFilesToDelete", result_.num_files_to_delete},
                                         {"sizeOfDataToDelete", result_.size_of_data_to_delete}},
                                        std::nullopt));
    result_.start_commit_version = start->version;
  }
  Status deleted = DeleteCandidates();
  if (options_.logging_enabled) {
    StringMap params;
    params.Set("status", deleted.ok() ? "\"COMPLETED\"" : "\"FAILED\"");
    std::vector<std::pair<std::string, int64_t>> metrics;
    if (deleted.ok()) {
      metrics = {{"numDeletedFiles", result_.num_deleted_files},
                 {"numVacuumedDirectories", result_.num_vacuumed_directories}};
    }
    auto end = CommitHistory("VACUUM END", std::move(params), metrics, start);
    if (!deleted.ok()) return deleted;
    if (!end.ok()) return end.status();
    result_.end_commit_version = end->version;
  }
  if (!deleted.ok()) return deleted;
  RecordWatermark();
  SILT_LOG(kInfo) << "Deleted " << result_.num_deleted_files
                  << " files and directories in a total of " << result_.num_vacuumed_directories
                  << " directories.";
  SILT_RETURN_NOT_OK(Report(VacuumProgress::Phase::kDone));
  return std::move(result_);
}

// --- inventory

std::string RequiredInventoryTree() {
  return "root\n"
         " |-- path: string (nullable = true)\n"
         " |-- length: long (nullable = true)\n"
         " |-- isDir: boolean (nullable = true)\n"
         " |-- modificationTime: long (nullable = true)\n";
}

bool IsIntegerType(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}

// Integer column value as int64 (the caller checked the type).
int64_t IntegerAt(const Vector& v, size_t row) {
  switch (v.id()) {
    case TypeId::kInt8:
      return v.Get<int8_t>(row);
    case TypeId::kInt16:
      return v.Get<int16_t>(row);
    case TypeId::kInt32:
      return v.Get<int32_t>(row);
    default:
      return v.Get<int64_t>(row);
  }
}

}  // namespace

bool IsHiddenName(std::string_view name, const std::vector<std::string>& partition_prefixes,
                  bool uniform_iceberg) {
  if (uniform_iceberg && name == "metadata") return true;
  if (!name.starts_with('.') && !name.starts_with('_')) return false;
  if (name.starts_with("_delta_index") || name.starts_with("_change_data")) return false;
  for (const std::string& p : partition_prefixes) {
    if (name.starts_with(p)) return false;
  }
  return true;
}

Result<std::vector<int>> ValidateInventorySchema(const Schema& schema) {
  struct Want {
    const char* name;
    bool integer;
    TypeId id;
  };
  static const Want kWant[] = {{"path", false, TypeId::kString},
                               {"length", true, TypeId::kInt64},
                               {"isDir", false, TypeId::kBoolean},
                               {"modificationTime", true, TypeId::kInt64}};
  std::vector<int> out;
  std::string problems;
  for (const Want& w : kWant) {
    int idx = FindField(schema, w.name);
    if (idx < 0) {
      problems += std::string(problems.empty() ? "" : "; ") + "missing column " + w.name;
      continue;
    }
    TypeId id = schema[static_cast<size_t>(idx)].type->id();
    if (w.integer ? !IsIntegerType(id) : id != w.id) {
      problems += std::string(problems.empty() ? "" : "; ") + "column " + w.name + " is " +
                  schema[static_cast<size_t>(idx)].type->ToString();
    }
    out.push_back(idx);
  }
  if (!problems.empty()) {
    return Status::InvalidArgument(
        "The schema for the specified INVENTORY does not contain all of the required fields. "
        "Required fields are: \n" +
            RequiredInventoryTree() + "(" + problems + ")",
        kErrorInvalidInventorySchema);
  }
  return out;
}

Result<std::vector<InventoryEntry>> InventoryFromChunks(const Schema& schema,
                                                        const std::vector<DataChunk>& chunks) {
  SILT_ASSIGN_OR_RETURN(std::vector<int> cols, ValidateInventorySchema(schema));
  std::vector<InventoryEntry> out;
  for (const DataChunk& chunk : chunks) {
    if (chunk.columns.size() != schema.size()) {
      return Status::InvalidArgument("inventory chunk has " + std::to_string(chunk.columns.size()) +
                                     " columns, the schema " + std::to_string(schema.size()));
    }
    const Vector& path = chunk.columns[static_cast<size_t>(cols[0])];
    const Vector& length = chunk.columns[static_cast<size_t>(cols[1])];
    const Vector& is_dir = chunk.columns[static_cast<size_t>(cols[2])];
    const Vector& mtime = chunk.columns[static_cast<size_t>(cols[3])];
    for (size_t r = 0; r < chunk.size(); ++r) {
      if (path.IsNull(r)) continue;
      InventoryEntry e;
      e.path = std::string(path.GetString(r));
      e.length = length.IsNull(r) ? 0 : IntegerAt(length, r);
      e.is_dir = !is_dir.IsNull(r) && is_dir.Get<uint8_t>(r) != 0;
      e.modification_time_ms =
          mtime.IsNull(r) ? std::numeric_limits<int64_t>::max() : IntegerAt(mtime, r);
      out.push_back(std::move(e));
    }
  }
  return out;
}

Result<VacuumResult> Vacuum(std::shared_ptr<ObjectStore> table_store, VacuumOptions options) {
  if (!table_store) return Status::InvalidArgument("Vacuum needs a table store");
  VacuumRun run(std::move(table_store), std::move(options));
  return run.Run();
}

}  // namespace silt::ops
