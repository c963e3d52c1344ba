// The error-class catalogue (silt/error_classes.def) against Spark's and Delta's reference
// catalogues, Spark's rendering of an error, and Result::status() on a temporary.
#include "common/error_classes.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "common/status.h"
#include "unit/shared_dir.h"

namespace silt {
namespace {

namespace fs = std::filesystem;

// class (or CLASS.SUBCLASS) → SQLSTATE of one reference catalogue file.
std::map<std::string, std::string> LoadReference(const fs::path& path) {
  std::map<std::string, std::string> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(path.string()).get(doc)) {
    ADD_FAILURE() << "cannot parse " << path;
    return out;
  }
  simdjson::dom::object classes;
  if (doc.get_object().get(classes)) return out;
  for (auto [name, body] : classes) {
    std::string_view state;
    if (body["sqlState"].get_string().get(state)) state = "";
    out[std::string(name)] = std::string(state);
    simdjson::dom::object subs;
    if (!body["subClass"].get_object().get(subs)) {
      for (auto [sub, ignored] : subs) {
        (void)ignored;
        out[std::string(name) + "." + std::string(sub)] = std::string(state);
      }
    }
  }
  return out;
}

fs::path ReferenceDir() {
  for (std::string base : {std::string(silt::testing::SharedDir())}) {
    fs::path p = fs::path(base) / "reference";
    if (fs::exists(p / "spark-error-conditions.json")) return p;
  }
  return {};
}

TEST(ErrorClassesTest, SparkAndDeltaEntriesMatchTheReferenceCatalogues) {
  fs::path dir = ReferenceDir();
  if (dir.empty()) GTEST_SKIP() << "SKIP: no reference catalogues (../shared/reference)";
  auto spark = LoadReference(dir / "spark-error-conditions.json");
  auto delta = LoadReference(dir / "delta-error-classes.json");
  ASSERT_GT(spark.size(), 1000u);
  ASSERT_GT(delta.size(), 500u);
  size_t checked = 0;
  for (const errc::ErrorClassInfo& e : errc::AllErrorClasses()) {
    std::string cls(e.error_class);
    if (e.origin == errc::Origin::kSpark || e.origin == errc::Origin::kDelta) {
      const auto& ref = e.origin == errc::Origin::kSpark ? spark : delta;
      auto it = ref.find(cls);
      if (it == ref.end()) {
        ADD_FAILURE() << cls << " is marked as "
                      << (e.origin == errc::Origin::kSpark ? "Spark's" : "Delta's")
                      << " but is not in that catalogue";
        continue;
      }
      EXPECT_EQ(e.sql_state, it->second) << cls;
      ++checked;
    } else {
      // Silt's own and the others must not shadow a reference class.
      EXPECT_FALSE(spark.count(cls) || delta.count(cls))
          << cls << " is in a reference catalogue: mark it kSpark/kDelta with its SQLSTATE";
      EXPECT_EQ(e.origin == errc::Origin::kSilt, cls.rfind("SILT_", 0) == 0) << cls;
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(ErrorClassesTest, LookupAndConstants) {
  EXPECT_STREQ(errc::kDeltaFileNotFound, "DELTA_FILE_NOT_FOUND");
  const errc::ErrorClassInfo* info = errc::FindErrorClass("TABLE_OR_VIEW_NOT_FOUND");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->sql_state, "42P01");
  EXPECT_EQ(info->origin, errc::Origin::kSpark);
  EXPECT_EQ(errc::FindErrorClass("NO_SUCH_CLASS_ANYWHERE"), nullptr);
  std::set<std::string_view> seen;
  for (const auto& e : errc::AllErrorClasses()) EXPECT_TRUE(seen.insert(e.error_class).second);
}

TEST(ErrorClassesTest, ToStringRendersTheClassOnceAsSparkDoes) {
  Status s = Status::NotFound("The table `t` cannot be found.", errc::kTableOrViewNotFound);
  EXPECT_EQ(s.sql_state(), "42P01");
  EXPECT_EQ(s.ToString(),
            "[TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found. SQLSTATE: 42P01");
  // A subclass has its class's SQLSTATE.
  EXPECT_EQ(Status::InvalidArgument("m", errc::kDatatypeMismatchCastWithoutSuggestion).ToString(),
            "[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] m SQLSTATE: 42K09");
  // Silt's own classes and code names have none.
  EXPECT_EQ(Status::Corruption("bad", errc::kSiltParquetCorrupt).ToString(),
            "[SILT_PARQUET_CORRUPT] bad");
  EXPECT_EQ(Status::Internal("oops").ToString(), "[INTERNAL_ERROR] oops SQLSTATE: XX000");
  EXPECT_EQ(Status::OK().sql_state(), "");
}

Result<int> Fails() { return Status::InvalidArgument("no", errc::kInvalidParameterValue); }

Status ReturnsTheStatusOfATemporary() {
  SILT_RETURN_NOT_OK(Fails().status());
  return Status::OK();
}

TEST(ErrorClassesTest, StatusOfATemporaryResultIsAValue) {
  static_assert(std::is_same_v<decltype(Fails().status()), Status>);
  Result<int> r = Fails();
  static_assert(std::is_same_v<decltype(r.status()), const Status&>);
  // Under ASan, a reference into the destroyed Result would be a stack-use-after-scope here.
  Status s = ReturnsTheStatusOfATemporary();
  EXPECT_EQ(s.error_class(), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(s.message(), "no");
  const Status& bound = Fails().status();  // lifetime-extended value
  EXPECT_EQ(bound.message(), "no");
  EXPECT_EQ(r.status().message(), "no");
}

}  // namespace
}  // namespace silt
