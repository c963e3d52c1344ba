#include "support/fault_injecting_object_store.h"

#include <chrono>
#include <mutex>
#include <random>
#include <thread>

namespace silt {

namespace {

// "a/b/c" -> {"a/b/", "c"}; "c" -> {"", "c"}.
std::pair<std::string, std::string> SplitKey(const std::string& key) {
  size_t slash = key.rfind('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash + 1), key.substr(slash + 1)};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// FaultInjectingObjectStore

const char* ObjectOpName(ObjectOp op) {
  switch (op) {
    case ObjectOp::kListFrom:
      return "ListFrom";
    case ObjectOp::kListRecursive:
      return "ListRecursive";
    case ObjectOp::kHead:
      return "Head";
    case ObjectOp::kGet:
      return "Get";
    case ObjectOp::kOpenRead:
      return "OpenRead";
    case ObjectOp::kReadAt:
      return "ReadAt";
    case ObjectOp::kPut:
      return "Put";
    case ObjectOp::kPutIfAbsent:
      return "PutIfAbsent";
    case ObjectOp::kOpenWrite:
      return "OpenWrite";
    case ObjectOp::kWriteClose:
      return "WriteClose";
    case ObjectOp::kDelete:
      return "Delete";
    case ObjectOp::kDeleteEmptyDirs:
      return "DeleteEmptyDirs";
    case ObjectOp::kDeleteDir:
      return "DeleteDir";
  }
  return "?";
}

struct FaultInjectingObjectStore::Injector {
  struct RuleState {
    FaultRule rule;
    int64_t matched = 0;
    int64_t fired = 0;
  };
  // What an operation must do after Check (delays already slept).
  struct Decision {
    bool fail = false;
    bool crash = false;
    int64_t crash_after_bytes = -1;
    bool crash_visible = false;
  };

  explicit Injector(uint64_t seed) : rng(seed) {}

  Decision Check(ObjectOp op, std::string_view key) {
    Decision d;
    int64_t delay_ms = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      ++counts[static_cast<int>(op)];
      for (auto& rs : rules) {
        const FaultRule& r = rs.rule;
        if (r.op && *r.op != op) continue;
        if (!r.key_contains.empty() && key.find(r.key_contains) == std::string_view::npos) continue;
        if (++rs.matched <= r.after) continue;
        if (r.max_faults >= 0 && rs.fired >= r.max_faults) continue;
        if (r.probability < 1.0 &&
            std::uniform_real_distribution<double>(0, 1)(rng) >= r.probability)
          continue;
        ++rs.fired;
        if (r.action == FaultRule::Action::kDelay) {
          delay_ms = r.delay_ms;
          break;
        }
        ++faults;
        bool is_write =
            op == ObjectOp::kPut || op == ObjectOp::kPutIfAbsent || op == ObjectOp::kOpenWrite;
        if (r.action == FaultRule::Action::kCrashMidWrite && is_write) {
          d.crash = true;
          d.crash_after_bytes = r.crash_after_bytes;
          d.crash_visible = r.crash_leaves_visible_partial && op == ObjectOp::kOpenWrite;
        } else {
          d.fail = true;
        }
        break;
      }
    }
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    return d;
  }

  std::string CrashTempKey(const std::string& key) {
    int64_t n;
    {
      std::lock_guard<std::mutex> lock(mu);
      n = ++crash_seq;
    }
    auto [dir, base] = SplitKey(key);
    return dir + "." + base.substr(0, 200) + ".crash-" + std::to_string(n) + ".tmp";
  }

  static Status Error(ObjectOp op, std::string_view key) {
    return Status::IoError(
        std::string("injected fault in ") + ObjectOpName(op) + " of " + std::string(key),
        kErrorInjectedFault);
  }

  std::mutex mu;
  std::vector<RuleState> rules;
  std::mt19937_64 rng;
  int64_t counts[kNumObjectOps] = {};
  int64_t faults = 0;
  int64_t crash_seq = 0;
};

namespace {

using Injector = FaultInjectingObjectStore::Injector;

class FaultReadFile final : public RandomAccessFile {
 public:
  FaultReadFile(std::shared_ptr<RandomAccessFile> inner, std::shared_ptr<Injector> injector,
                std::string key)
      : inner_(std::move(inner)), injector_(std::move(injector)), key_(std::move(key)) {}
  int64_t size() const override { return inner_->size(); }
  const std::string& name() const override { return inner_->name(); }
  Status ReadAt(int64_t offset, int64_t n, uint8_t* out) const override {
    if (injector_->Check(ObjectOp::kReadAt, key_).fail)
      return Injector::Error(ObjectOp::kReadAt, key_);
    return inner_->ReadAt(offset, n, out);
  }

 private:
  std::shared_ptr<RandomAccessFile> inner_;
  std::shared_ptr<Injector> injector_;
  std::string key_;
};

// A normal writer whose Close can be failed (then the write is abandoned).
class FaultWriter final : public WritableFile {
 public:
  FaultWriter(std::unique_ptr<WritableFile> inner, std::shared_ptr<Injector> injector,
              std::string key)
      : inner_(std::move(inner)), injector_(std::move(injector)), key_(std::move(key)) {}
  Status Append(std::string_view data) override {
    if (!inner_) return Status::IoError("write to closed object " + key_);
    return inner_->Append(data);
  }
  Status Close() override {
    if (!inner_) return Status::IoError("object " + key_ + " was abandoned");
    if (injector_->Check(ObjectOp::kWriteClose, key_).fail) {
      written_ = inner_->bytes_written();
      inner_.reset();
      return Injector::Error(ObjectOp::kWriteClose, key_);
    }
    return inner_->Close();
  }
  int64_t bytes_written() const override { return inner_ ? inner_->bytes_written() : written_; }

 private:
  std::unique_ptr<WritableFile> inner_;
  std::shared_ptr<Injector> injector_;
  std::string key_;
  int64_t written_ = 0;
};

// Writes to the crash target (a hidden temp key, or the key itself for non-atomic stores) until
// the crash point, then makes what it has durable there and fails.
class CrashingWriter final : public WritableFile {
 public:
  CrashingWriter(std::unique_ptr<WritableFile> inner, int64_t crash_after, std::string key)
      : inner_(std::move(inner)), crash_after_(crash_after), key_(std::move(key)) {}
  Status Append(std::string_view data) override {
    if (crashed_) return Injector::Error(ObjectOp::kOpenWrite, key_);
    int64_t size = static_cast<int64_t>(data.size());
    if (crash_after_ >= 0 && written_ + size >= crash_after_) {
      Status st = inner_->Append(data.substr(0, static_cast<size_t>(crash_after_ - written_)));
      written_ = crash_after_;
      return Crash(st);
    }
    written_ += size;
    return inner_->Append(data);
  }
  Status Close() override {
    if (crashed_) return Injector::Error(ObjectOp::kOpenWrite, key_);
    return Crash(Status::OK());
  }
  int64_t bytes_written() const override { return written_; }

 private:
  Status Crash(Status st) {
    crashed_ = true;
    if (st.ok()) st = inner_->Close();
    if (!st.ok()) return st;
    return Injector::Error(ObjectOp::kOpenWrite, key_);
  }
  std::unique_ptr<WritableFile> inner_;
  int64_t crash_after_;
  std::string key_;
  int64_t written_ = 0;
  bool crashed_ = false;
};

}  // namespace

FaultInjectingObjectStore::FaultInjectingObjectStore(std::shared_ptr<ObjectStore> inner,
                                                     uint64_t seed)
    : inner_(std::move(inner)), injector_(std::make_shared<Injector>(seed)) {}

void FaultInjectingObjectStore::AddRule(FaultRule rule) {
  std::lock_guard<std::mutex> lock(injector_->mu);
  injector_->rules.push_back({std::move(rule), 0, 0});
}

void FaultInjectingObjectStore::ClearRules() {
  std::lock_guard<std::mutex> lock(injector_->mu);
  injector_->rules.clear();
}

int64_t FaultInjectingObjectStore::op_count(ObjectOp op) const {
  std::lock_guard<std::mutex> lock(injector_->mu);
  return injector_->counts[static_cast<int>(op)];
}

int64_t FaultInjectingObjectStore::total_ops() const {
  std::lock_guard<std::mutex> lock(injector_->mu);
  int64_t total = 0;
  for (int64_t c : injector_->counts) total += c;
  return total;
}

int64_t FaultInjectingObjectStore::faults_injected() const {
  std::lock_guard<std::mutex> lock(injector_->mu);
  return injector_->faults;
}

void FaultInjectingObjectStore::ResetCounters() {
  std::lock_guard<std::mutex> lock(injector_->mu);
  for (int64_t& c : injector_->counts) c = 0;
  injector_->faults = 0;
}

Result<std::vector<ObjectMeta>> FaultInjectingObjectStore::ListFrom(const std::string& key) {
  if (injector_->Check(ObjectOp::kListFrom, key).fail)
    return Injector::Error(ObjectOp::kListFrom, key);
  return inner_->ListFrom(key);
}

Status FaultInjectingObjectStore::ListRecursive(const std::string& dir,
                                                const ObjectVisitor& visit) {
  if (injector_->Check(ObjectOp::kListRecursive, dir).fail)
    return Injector::Error(ObjectOp::kListRecursive, dir);
  return inner_->ListRecursive(dir, visit);
}

Result<ObjectMeta> FaultInjectingObjectStore::Head(const std::string& key) {
  if (injector_->Check(ObjectOp::kHead, key).fail) return Injector::Error(ObjectOp::kHead, key);
  return inner_->Head(key);
}

Result<std::string> FaultInjectingObjectStore::Get(const std::string& key) {
  if (injector_->Check(ObjectOp::kGet, key).fail) return Injector::Error(ObjectOp::kGet, key);
  return inner_->Get(key);
}

Result<std::shared_ptr<RandomAccessFile>> FaultInjectingObjectStore::OpenRead(
    const std::string& key) {
  if (injector_->Check(ObjectOp::kOpenRead, key).fail)
    return Injector::Error(ObjectOp::kOpenRead, key);
  SILT_ASSIGN_OR_RETURN(auto file, inner_->OpenRead(key));
  return std::shared_ptr<RandomAccessFile>(
      std::make_shared<FaultReadFile>(std::move(file), injector_, key));
}

namespace {

Status CrashPut(ObjectStore& inner, Injector& injector, ObjectOp op, const std::string& key,
                std::string_view data, int64_t after_bytes) {
  SILT_RETURN_NOT_OK(ValidateObjectKey(key));
  size_t cut =
      after_bytes < 0 ? data.size() / 2 : std::min(data.size(), static_cast<size_t>(after_bytes));
  SILT_RETURN_NOT_OK(inner.Put(injector.CrashTempKey(key), data.substr(0, cut)));
  return Injector::Error(op, key);
}

}  // namespace

Status FaultInjectingObjectStore::Put(const std::string& key, std::string_view data) {
  auto d = injector_->Check(ObjectOp::kPut, key);
  if (d.fail) return Injector::Error(ObjectOp::kPut, key);
  if (d.crash) return CrashPut(*inner_, *injector_, ObjectOp::kPut, key, data, d.crash_after_bytes);
  return inner_->Put(key, data);
}

Status FaultInjectingObjectStore::PutIfAbsent(const std::string& key, std::string_view data) {
  auto d = injector_->Check(ObjectOp::kPutIfAbsent, key);
  if (d.fail) return Injector::Error(ObjectOp::kPutIfAbsent, key);
  if (d.crash)
    return CrashPut(*inner_, *injector_, ObjectOp::kPutIfAbsent, key, data, d.crash_after_bytes);
  return inner_->PutIfAbsent(key, data);
}

Result<std::unique_ptr<WritableFile>> FaultInjectingObjectStore::OpenWrite(const std::string& key) {
  auto d = injector_->Check(ObjectOp::kOpenWrite, key);
  if (d.fail) return Injector::Error(ObjectOp::kOpenWrite, key);
  if (d.crash) {
    SILT_RETURN_NOT_OK(ValidateObjectKey(key));
    std::string target = d.crash_visible ? key : injector_->CrashTempKey(key);
    SILT_ASSIGN_OR_RETURN(auto inner, inner_->OpenWrite(target));
    return std::unique_ptr<WritableFile>(
        std::make_unique<CrashingWriter>(std::move(inner), d.crash_after_bytes, key));
  }
  SILT_ASSIGN_OR_RETURN(auto inner, inner_->OpenWrite(key));
  return std::unique_ptr<WritableFile>(
      std::make_unique<FaultWriter>(std::move(inner), injector_, key));
}

Status FaultInjectingObjectStore::Delete(const std::string& key) {
  if (injector_->Check(ObjectOp::kDelete, key).fail) return Injector::Error(ObjectOp::kDelete, key);
  return inner_->Delete(key);
}

Result<int64_t> FaultInjectingObjectStore::DeleteEmptyDirs(const std::string& dir) {
  if (injector_->Check(ObjectOp::kDeleteEmptyDirs, dir).fail)
    return Injector::Error(ObjectOp::kDeleteEmptyDirs, dir);
  return inner_->DeleteEmptyDirs(dir);
}

Status FaultInjectingObjectStore::DeleteDir(const std::string& dir) {
  if (injector_->Check(ObjectOp::kDeleteDir, dir).fail)
    return Injector::Error(ObjectOp::kDeleteDir, dir);
  return inner_->DeleteDir(dir);
}

// ---------------------------------------------------------------------------------------------
Result<std::vector<std::string>> FaultInjectingObjectStore::ListDirs(const std::string& dir) {
  if (injector_->Check(ObjectOp::kListRecursive, dir).fail)
    return Injector::Error(ObjectOp::kListRecursive, dir);
  return inner_->ListDirs(dir);
}

Result<bool> FaultInjectingObjectStore::DirExists(const std::string& dir) {
  if (injector_->Check(ObjectOp::kListRecursive, dir).fail)
    return Injector::Error(ObjectOp::kListRecursive, dir);
  return inner_->DirExists(dir);
}

}  // namespace silt
