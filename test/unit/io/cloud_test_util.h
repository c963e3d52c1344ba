// Helpers of the cloud store tests (azure_blob_store_test.cc, s3_object_store_test.cc,
// cloud_store_test.cc): environment overrides, unique names and SQL shorthands.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>

#include "io/object_store.h"
#include "silt/silt.h"

namespace silt::cloudtest {

// A name no other test (or process) uses: "<what>-<pid>-<n>".
inline std::string Unique(const char* what) {
  static std::atomic<int> n{0};
  return std::string(what) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

// Sets (or, with nullptr, unsets) an environment variable; restores it on destruction.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The first value of the first row of `sql`, "<no rows>", or "ERROR <status>".
inline std::string Scalar(Connection& con, const std::string& sql) {
  auto r = con.Query(sql);
  if (!r.ok()) return "ERROR " + r.status().ToString();
  if ((*r)->num_rows() == 0) return "<no rows>";
  return (*r)->Row(0)[0].ToString();
}

inline void Exec(Connection& con, const std::string& sql) {
  auto r = con.Query(sql);
  ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
}

// The objects (not directories) below `dir`.
inline int64_t CountObjects(ObjectStore& store, const std::string& dir) {
  int64_t n = 0;
  EXPECT_TRUE(store
                  .ListRecursive(dir,
                                 [&](const ObjectMeta& m) {
                                   n += m.is_dir ? 0 : 1;
                                   return Status::OK();
                                 })
                  .ok());
  return n;
}

}  // namespace silt::cloudtest
