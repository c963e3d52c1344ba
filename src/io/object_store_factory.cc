#include "io/object_store_factory.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "common/error_classes.h"
#include "io/azure_blob_store.h"
#include "io/local_object_store.h"
#include "io/path.h"
#include "io/s3_object_store.h"

namespace silt {

namespace {

constexpr std::string_view kMemoryPrefix = "memory://";

// A view of `inner` below the directory `prefix` (non-empty, ends in '/'): keys given to it are
// relative to the prefix, keys it reports too. Used for "memory://<name>/<path>" locations.
class SubtreeObjectStore final : public ObjectStore {
 public:
  SubtreeObjectStore(std::shared_ptr<ObjectStore> inner, std::string prefix)
      : inner_(std::move(inner)), prefix_(std::move(prefix)), root_(inner_->root() + prefix_) {}

  const std::string& root() const override { return root_; }

  Result<std::vector<ObjectMeta>> ListFrom(const std::string& key) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key, /*allow_dir=*/true));
    SILT_ASSIGN_OR_RETURN(std::vector<ObjectMeta> out, inner_->ListFrom(prefix_ + key));
    for (ObjectMeta& m : out) m.key.erase(0, prefix_.size());
    return out;
  }
  Status ListRecursive(const std::string& dir, const ObjectVisitor& visit) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
    return inner_->ListRecursive(prefix_ + dir, Strip(visit));
  }
  Status ListRecursiveSomeMeta(const std::string& dir, const ObjectVisitor& visit,
                               const std::function<bool(std::string_view key)>& need_meta,
                               ThreadPool* pool) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
    size_t n = prefix_.size();
    return inner_->ListRecursiveSomeMeta(
        prefix_ + dir, Strip(visit),
        [&need_meta, n](std::string_view key) { return need_meta(key.substr(n)); }, pool);
  }
  Result<ObjectMeta> Head(const std::string& key) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    SILT_ASSIGN_OR_RETURN(ObjectMeta m, inner_->Head(prefix_ + key));
    m.key = key;
    return m;
  }
  Result<std::string> Get(const std::string& key) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->Get(prefix_ + key);
  }
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(const std::string& key) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->OpenRead(prefix_ + key);
  }
  Status Put(const std::string& key, std::string_view data) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->Put(prefix_ + key, data);
  }
  Status PutHint(const std::string& key, std::string_view data) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->PutHint(prefix_ + key, data);
  }
  Status PutIfAbsent(const std::string& key, std::string_view data) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->PutIfAbsent(prefix_ + key, data);
  }
  Status PutIfAbsentAfter(const std::string& key, std::string_view data,
                          const std::function<Status()>& before_publish) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->PutIfAbsentAfter(prefix_ + key, data, before_publish);
  }
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& key) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->OpenWrite(prefix_ + key);
  }
  Status Delete(const std::string& key) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    return inner_->Delete(prefix_ + key);
  }
  void DeleteKeys(std::span<const std::string_view> keys, std::span<Status> statuses) override {
    std::vector<std::string> full;
    std::vector<std::string_view> views;
    std::vector<size_t> index;
    full.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      statuses[i] = ValidateObjectKey(keys[i]);
      if (!statuses[i].ok()) continue;
      full.push_back(prefix_ + std::string(keys[i]));
      index.push_back(i);
    }
    views.assign(full.begin(), full.end());
    std::vector<Status> out(views.size());
    inner_->DeleteKeys(views, out);
    for (size_t j = 0; j < index.size(); ++j) statuses[index[j]] = std::move(out[j]);
  }
  Result<int64_t> DeleteEmptyDirs(const std::string& dir) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
    return inner_->DeleteEmptyDirs(prefix_ + dir);
  }
  Status DeleteDir(const std::string& dir) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
    if (dir.empty() || dir == "/")
      return Status::InvalidArgument("DeleteDir needs a directory below the root",
                                     kErrorInvalidObjectKey);
    return inner_->DeleteDir(prefix_ + dir);
  }
  Result<std::vector<std::string>> ListDirs(const std::string& dir) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
    return inner_->ListDirs(prefix_ + dir);
  }
  Result<bool> DirExists(const std::string& dir) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(dir, /*allow_dir=*/true));
    return inner_->DirExists(prefix_ + dir);
  }
  Status RenameDir(const std::string& from, const std::string& to) override {
    SILT_RETURN_NOT_OK(ValidateObjectKey(from, /*allow_dir=*/true));
    SILT_RETURN_NOT_OK(ValidateObjectKey(to, /*allow_dir=*/true));
    if (from.empty() || to.empty())
      return Status::InvalidArgument("cannot move the root of " + root_, kErrorInvalidObjectKey);
    return inner_->RenameDir(prefix_ + from, prefix_ + to);
  }

 private:
  ObjectVisitor Strip(const ObjectVisitor& visit) const {
    size_t n = prefix_.size();
    return [&visit, n](const ObjectMeta& m) -> Status {
      ObjectMeta rel = m;
      rel.key.erase(0, n);
      return visit(rel);
    };
  }

  std::shared_ptr<ObjectStore> inner_;
  std::string prefix_;
  std::string root_;
};

struct MemoryRegistry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<InMemoryObjectStore>, std::less<>> stores;
};

MemoryRegistry& Registry() {
  static MemoryRegistry* registry = new MemoryRegistry();  // never destroyed: used at exit too
  return *registry;
}

bool IsCloudScheme(const std::string& scheme) {
  for (const char* s : {"s3", "s3a", "s3n", "gs", "abfs", "abfss", "wasb", "wasbs", "az", "adl"}) {
    if (scheme == s) return true;
  }
  return false;
}

Status UnsupportedScheme(const std::string& scheme, std::string_view location) {
  if (IsCloudScheme(scheme)) {
    return Status::NotImplemented(
        "cloud storage (scheme '" + scheme + "') is not implemented yet: " + std::string(location),
        errc::kNotImplemented);
  }
  return Status::NotImplemented(
      "No FileSystem for scheme \"" + scheme + "\": " + std::string(location),
      errc::kNotImplemented);
}

// "memory://name/a/b/" -> {"name", "a/b"}; "memory://" -> {"", ""}.
Result<std::pair<std::string, std::string>> ParseMemoryLocation(std::string_view location) {
  std::string rest(location.substr(kMemoryPrefix.size()));
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t slash = rest.find('/');
  std::string name = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash + 1);
  if (name.empty() && !path.empty()) {
    return Status::InvalidArgument("memory location without a store name: " + std::string(location),
                                   kErrorInvalidPath);
  }
  if (!path.empty()) {
    Status st = ValidateObjectKey(path);
    if (!st.ok()) {
      return Status::InvalidArgument(
          "bad memory location " + std::string(location) + ": " + std::string(st.message()),
          kErrorInvalidPath);
    }
  }
  return std::pair<std::string, std::string>(std::move(name), std::move(path));
}

bool IsMemory(std::string_view location) {
  return location.size() >= kMemoryPrefix.size() && UriScheme(location) == "memory" &&
         location.substr(6, 3) == "://";
}

Result<std::string> AbsoluteLocalPath(std::string_view location) {
  SILT_ASSIGN_OR_RETURN(std::string local, LocalPathFromUri(location));
  std::error_code ec;
  std::string abs = std::filesystem::absolute(local, ec).lexically_normal().string();
  if (ec) return Status::IoError("bad local path " + std::string(location) + ": " + ec.message());
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  return abs;
}

}  // namespace

Result<std::shared_ptr<InMemoryObjectStore>> MemoryStore(const std::string& name,
                                                         std::shared_ptr<Clock> clock) {
  if (name.empty() || name.find('/') != std::string::npos) {
    return Status::InvalidArgument("bad in-memory store name '" + name + "'", kErrorInvalidPath);
  }
  MemoryRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.stores.find(name);
  if (it != r.stores.end()) return it->second;
  if (!clock) return Status::Internal("MemoryStore(" + name + "): no clock to create it with");
  auto store = std::make_shared<InMemoryObjectStore>(std::move(clock),
                                                     std::string(kMemoryPrefix) + name + "/");
  r.stores.emplace(name, store);
  return store;
}

bool DropMemoryStore(const std::string& name) {
  MemoryRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.stores.erase(name) > 0;
}

Result<std::shared_ptr<ObjectStore>> OpenObjectStore(std::string_view location,
                                                     std::shared_ptr<Clock> clock) {
  if (location.empty()) return Status::InvalidArgument("empty storage location", kErrorInvalidPath);
  if (IsMemory(location)) {
    if (!clock) return Status::Internal("OpenObjectStore(" + std::string(location) + "): no clock");
    SILT_ASSIGN_OR_RETURN(auto parsed, ParseMemoryLocation(location));
    if (parsed.first.empty()) {
      return std::shared_ptr<ObjectStore>(std::make_shared<InMemoryObjectStore>(std::move(clock)));
    }
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<InMemoryObjectStore> store,
                          MemoryStore(parsed.first, std::move(clock)));
    if (parsed.second.empty()) return std::shared_ptr<ObjectStore>(store);
    return std::shared_ptr<ObjectStore>(
        std::make_shared<SubtreeObjectStore>(std::move(store), parsed.second + "/"));
  }
  if (IsAzureLocation(location)) {
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<AzureBlobStore> store, AzureBlobStore::Open(location));
    return std::shared_ptr<ObjectStore>(std::move(store));
  }
  if (IsS3Location(location)) {
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<S3ObjectStore> store, S3ObjectStore::Open(location));
    return std::shared_ptr<ObjectStore>(std::move(store));
  }
  std::string scheme = UriScheme(location);
  if (!scheme.empty() && scheme != "file") return UnsupportedScheme(scheme, location);
  SILT_ASSIGN_OR_RETURN(std::string abs, AbsoluteLocalPath(location));
  return std::shared_ptr<ObjectStore>(std::make_shared<LocalObjectStore>(std::move(abs)));
}

Result<std::string> CanonicalLocation(std::string_view location) {
  if (location.empty()) return Status::InvalidArgument("empty storage location", kErrorInvalidPath);
  if (IsMemory(location)) {
    SILT_ASSIGN_OR_RETURN(auto parsed, ParseMemoryLocation(location));
    std::string out = std::string(kMemoryPrefix) + parsed.first;
    if (!parsed.second.empty()) out += "/" + parsed.second;
    return out;
  }
  if (IsAzureLocation(location)) {
    SILT_ASSIGN_OR_RETURN(AzureLocation loc, ParseAzureLocation(location));
    return loc.canonical;
  }
  if (IsS3Location(location)) {
    SILT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    return loc.canonical;
  }
  std::string scheme = UriScheme(location);
  if (!scheme.empty() && scheme != "file") return UnsupportedScheme(scheme, location);
  return AbsoluteLocalPath(location);
}

std::string ChildLocation(std::string_view location, std::string_view child) {
  return JoinPath(location, child);
}

std::optional<std::string> RelativeLocation(std::string_view base, std::string_view location) {
  std::string prefix(base);
  if (prefix.empty()) return std::nullopt;
  if (prefix.back() != '/') prefix.push_back('/');
  if (location.size() <= prefix.size() || !location.starts_with(prefix)) return std::nullopt;
  std::string rel(location.substr(prefix.size()));
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  if (rel.empty() || !ValidateObjectKey(rel).ok()) return std::nullopt;
  return rel;
}

namespace {

// A store holding `location` and the location's key in it (never ""): the parent directory for
// a local path, the named store's root for memory://<name>/<path>. Memory locations without a
// path give the store and "".
// A named memory store that exists (NotFound otherwise): whole-location helpers never create one.
Result<std::shared_ptr<InMemoryObjectStore>> ExistingMemoryStore(const std::string& name) {
  MemoryRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.stores.find(name);
  if (it == r.stores.end()) {
    return Status::NotFound("no in-memory store named '" + name + "'", kErrorFileNotFound);
  }
  return it->second;
}

struct Parent {
  std::shared_ptr<ObjectStore> store;
  std::string key;
};

Result<Parent> OpenParent(std::string_view location) {
  SILT_ASSIGN_OR_RETURN(std::string canonical, CanonicalLocation(location));
  if (IsMemory(canonical)) {
    SILT_ASSIGN_OR_RETURN(auto parsed, ParseMemoryLocation(canonical));
    if (parsed.first.empty()) {
      return Status::InvalidArgument("an anonymous memory:// store has no parent",
                                     kErrorInvalidPath);
    }
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<InMemoryObjectStore> store,
                          ExistingMemoryStore(parsed.first));
    return Parent{std::move(store), parsed.second};
  }
  if (IsAzureLocation(canonical)) {
    // The container's root store, and the location's blob prefix in it.
    SILT_ASSIGN_OR_RETURN(AzureLocation loc, ParseAzureLocation(canonical));
    std::string key = loc.path;
    loc.canonical.resize(loc.canonical.size() - (key.empty() ? 0 : key.size() + 1));
    loc.path.clear();
    SILT_ASSIGN_OR_RETURN(AzureBlobStoreOptions options, AzureOptionsFromConfig(loc));
    return Parent{std::make_shared<AzureBlobStore>(std::move(loc), std::move(options)),
                  std::move(key)};
  }
  if (IsS3Location(canonical)) {
    // The bucket's root store, and the location's key prefix in it.
    SILT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(canonical));
    std::string key = loc.path;
    loc.canonical.resize(loc.canonical.size() - (key.empty() ? 0 : key.size() + 1));
    loc.path.clear();
    SILT_ASSIGN_OR_RETURN(S3StoreOptions options, S3OptionsFromConfig(loc));
    return Parent{std::make_shared<S3ObjectStore>(std::move(loc), std::move(options)),
                  std::move(key)};
  }
  size_t slash = canonical.rfind('/');
  std::string parent = slash == 0 ? "/" : canonical.substr(0, slash);
  Parent p{std::make_shared<LocalObjectStore>(parent), canonical.substr(slash + 1)};
  return p;
}

}  // namespace

Result<std::shared_ptr<RandomAccessFile>> OpenLocationForRead(std::string_view location) {
  SILT_ASSIGN_OR_RETURN(std::string canonical, CanonicalLocation(location));
  if (!IsMemory(canonical) && !IsAzureLocation(canonical) && !IsS3Location(canonical)) {
    return OpenLocalFile(canonical);
  }
  SILT_ASSIGN_OR_RETURN(Parent p, OpenParent(canonical));
  if (p.key.empty()) {
    return Status::NotFound("no object at " + canonical + ": it is a store's root",
                            kErrorFileNotFound);
  }
  return p.store->OpenRead(p.key);
}

Status DeleteLocation(std::string_view location) {
  Result<Parent> parent = OpenParent(location);
  if (!parent.ok() && parent.status().IsNotFound()) return Status::OK();  // no such memory store
  SILT_ASSIGN_OR_RETURN(Parent p, std::move(parent));
  if (!p.key.empty() && p.store->Head(p.key).ok()) return p.store->Delete(p.key);
  return DeleteTree(*p.store, p.key);
}

Result<bool> LocationExists(std::string_view location) {
  Result<Parent> parent = OpenParent(location);
  if (!parent.ok() && parent.status().IsNotFound()) return false;  // no such memory store
  SILT_ASSIGN_OR_RETURN(Parent p, std::move(parent));
  if (!p.key.empty() && p.store->Head(p.key).ok()) return true;
  return p.store->DirExists(p.key);
}

Status MoveLocation(std::string_view from, std::string_view to) {
  SILT_ASSIGN_OR_RETURN(std::string a, CanonicalLocation(from));
  SILT_ASSIGN_OR_RETURN(std::string b, CanonicalLocation(to));
  if (IsAzureLocation(a) || IsAzureLocation(b) || IsS3Location(a) || IsS3Location(b)) {
    SILT_ASSIGN_OR_RETURN(Parent pa, OpenParent(a));
    SILT_ASSIGN_OR_RETURN(Parent pb, OpenParent(b));
    if (pa.store->root() != pb.store->root()) {
      return Status::NotImplemented("cannot move " + a + " to " + b + ": different stores",
                                    errc::kNotImplemented);
    }
    return pa.store->RenameDir(pa.key, pb.key);
  }
  if (IsMemory(a) != IsMemory(b)) {
    return Status::NotImplemented("cannot move " + a + " to " + b + ": different stores",
                                  errc::kNotImplemented);
  }
  if (IsMemory(a)) {
    SILT_ASSIGN_OR_RETURN(auto pa, ParseMemoryLocation(a));
    SILT_ASSIGN_OR_RETURN(auto pb, ParseMemoryLocation(b));
    if (pa.first != pb.first || pa.first.empty()) {
      return Status::NotImplemented("cannot move " + a + " to " + b + ": different stores",
                                    errc::kNotImplemented);
    }
    SILT_ASSIGN_OR_RETURN(std::shared_ptr<InMemoryObjectStore> store,
                          ExistingMemoryStore(pa.first));
    return store->RenameDir(pa.second, pb.second);
  }
  // Local: a store at the deepest common ancestor directory.
  size_t common = 0;
  for (size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '/') common = i;
  }
  std::string root = common == 0 ? "/" : a.substr(0, common);
  LocalObjectStore store(root);
  return store.RenameDir(a.substr(common + 1), b.substr(common + 1));
}

}  // namespace silt
