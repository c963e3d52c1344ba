#include "io/path.h"

#include <gtest/gtest.h>

namespace silt {
namespace {

TEST(PathTest, DetectsUriSchemes) {
  EXPECT_TRUE(HasUriScheme("s3://bucket/t/p=1/f.parquet"));
  EXPECT_TRUE(HasUriScheme("abfss://c@acct.dfs.core.windows.net/t/f.parquet"));
  EXPECT_TRUE(HasUriScheme("file:/tmp/t/f.parquet"));
  EXPECT_TRUE(HasUriScheme("FILE:///tmp"));
  EXPECT_EQ(UriScheme("FILE:///tmp"), "file");
  EXPECT_FALSE(HasUriScheme("C:/data/t"));  // a drive letter, not a scheme
  EXPECT_FALSE(HasUriScheme("p=1/f.parquet"));
  EXPECT_FALSE(HasUriScheme("p=2024-06-15 12:30:45/f.parquet"));
  EXPECT_FALSE(HasUriScheme("part-00000.parquet"));
  EXPECT_FALSE(HasUriScheme("1ab:x"));
  EXPECT_FALSE(HasUriScheme(""));
  EXPECT_EQ(UriScheme("p=1/x"), "");
}

TEST(PathTest, PercentDecodeDecodesOnceAndRejectsMalformedEscapes) {
  EXPECT_EQ(*PercentDecode("a%20b"), "a b");
  EXPECT_EQ(*PercentDecode("%2f%2F"), "//");
  EXPECT_EQ(*PercentDecode("p=a%253Ab"), "p=a%3Ab");  // once, not twice
  EXPECT_EQ(*PercentDecode("a+b"), "a+b");
  EXPECT_EQ(*PercentDecode("%C3%A9"), "\xC3\xA9");
  EXPECT_EQ(*PercentDecode(""), "");
  for (const char* bad : {"%zz", "100%", "%4", "a%g1"}) {
    auto r = PercentDecode(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().error_class(), kErrorInvalidPath);
  }
}

TEST(PathTest, EncodePathUriQuotesLikeHadoop) {
  EXPECT_EQ(EncodePathUri("a b\"#%<>?[\\]^`{|}"),
            "a%20b%22%23%25%3C%3E%3F%5B%5C%5D%5E%60%7B%7C%7D");
  // Legal URI path characters stay raw.
  EXPECT_EQ(EncodePathUri("p=1/a:b@c&d+e$f,g;h!i~j*k'l(m)n-o_p.q"),
            "p=1/a:b@c&d+e$f,g;h!i~j*k'l(m)n-o_p.q");
  EXPECT_EQ(EncodePathUri(std::string("\x01\x1f\x7f", 3)), "%01%1F%7F");
  EXPECT_EQ(EncodePathUri("caf\xC3\xA9/\xE6\x97\xA5"), "caf\xC3\xA9/\xE6\x97\xA5");  // raw
  EXPECT_EQ(EncodePathUri("a\xC2\xA0"
                          "b"),
            "a%C2%A0b");                                  // NBSP: a space separator
  EXPECT_EQ(EncodePathUri("\xE3\x80\x80"), "%E3%80%80");  // U+3000
  EXPECT_EQ(EncodePathUri("\xC2\x85"), "%C2%85");         // U+0085: a control
  EXPECT_EQ(EncodePathUri("\xFF"
                          "a"),
            "%FFa");  // not UTF-8
  EXPECT_EQ(EncodePathUri(""), "");
}

TEST(PathTest, HiveEscapingMatchesSpark) {
  EXPECT_EQ(EscapePathName("\"#%'*/:=?\\{[]^"), "%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E");
  EXPECT_EQ(EscapePathName(std::string("\x00\x1f\x7f", 3)), "%00%1F%7F");
  // Not escaped: space, '}', non-ASCII and other punctuation.
  EXPECT_EQ(EscapePathName("a b}c\xC3\xA9<>|!@$&()-_.,;~`+"), "a b}c\xC3\xA9<>|!@$&()-_.,;~`+");
  EXPECT_EQ(UnescapePathName("%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E"), "\"#%'*/:=?\\{[]^");
  EXPECT_EQ(UnescapePathName("%3a"), ":");
  // Spark's unescape is lenient: a '%' without two hex digits stays literal.
  EXPECT_EQ(UnescapePathName("100%"), "100%");
  EXPECT_EQ(UnescapePathName("%zz%4"), "%zz%4");
}

TEST(PathTest, NullAndEmptyPartitionValuesUseTheHiveDefault) {
  EXPECT_EQ(EscapePartitionValue(std::nullopt), "__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(EscapePartitionValue(std::string()), "__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(UnescapePartitionValue("__HIVE_DEFAULT_PARTITION__"), std::nullopt);
  EXPECT_EQ(UnescapePartitionValue("a%3Ab"), std::optional<std::string>("a:b"));
  EXPECT_EQ(PartitionPath({{"a", "1"}, {"b", std::nullopt}}), "a=1/b=__HIVE_DEFAULT_PARTITION__");
}

TEST(PathTest, SpecExamples) {
  // Value a:b -> directory p=a%3Ab -> add.path p=a%253Ab (what Databricks writes).
  std::string dir = PartitionPath({{"p", "a:b"}});
  EXPECT_EQ(dir, "p=a%3Ab");
  EXPECT_EQ(ToDeltaPath(dir + "/part-0.parquet"), "p=a%253Ab/part-0.parquet");
  // Timestamp partition.
  dir = PartitionPath({{"p", "2024-06-15 12:30:45"}});
  EXPECT_EQ(dir, "p=2024-06-15 12%3A30%3A45");
  EXPECT_EQ(ToDeltaPath(dir + "/f.parquet"), "p=2024-06-15%2012%253A30%253A45/f.parquet");
  EXPECT_EQ(PartitionPath({{"a", "1"}, {"b", "x:y"}}), "a=1/b=x%3Ay");
  EXPECT_EQ(PartitionPath({}), "");
  // Column names are escaped too.
  EXPECT_EQ(PartitionPath({{"a=b", "c"}}), "a%3Db=c");
}

TEST(PathTest, PartitionValuesRoundTripThroughDirectoriesAndLogPaths) {
  const std::vector<std::string> values = {"/",
                                           ":",
                                           "%",
                                           " ",
                                           "=",
                                           "\xC3\xA9",
                                           "a b:c%d=e/f \xC3\xA9",
                                           "%25",
                                           "{}[]",
                                           "#?'*\\^\"",
                                           std::string("\x01\x7f", 2),
                                           "__HIVE",
                                           "100%"};
  for (const auto& v : values) {
    PartitionValues pv = {{"p", v}, {"q r", "x"}};
    std::string dir = PartitionPath(pv);
    EXPECT_EQ(dir.find('/'), dir.rfind('/')) << "exactly one separator: " << dir;
    std::string key = dir + "/part-0.parquet";
    std::string log_path = ToDeltaPath(key);
    auto back = DeltaPathToKey(log_path, "/tmp/t");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, key);
    auto parsed = ParsePartitionPath(dir);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, pv) << v;
  }
}

TEST(PathTest, ParsePartitionPath) {
  auto r = ParsePartitionPath("a=1/b=__HIVE_DEFAULT_PARTITION__/c=x%3Ay/");
  ASSERT_TRUE(r.ok());
  PartitionValues expected = {{"a", "1"}, {"b", std::nullopt}, {"c", "x:y"}};
  EXPECT_EQ(*r, expected);
  EXPECT_TRUE(ParsePartitionPath("")->empty());
  EXPECT_EQ(*ParsePartitionPath("a="), (PartitionValues{{"a", ""}}));
  for (const char* bad : {"a", "=1", "a=1//b=2", "a=1/b"}) {
    auto b = ParsePartitionPath(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().error_class(), kErrorInvalidPath);
  }
}

TEST(PathTest, TableRootsAsPathsAndFileUris) {
  EXPECT_EQ(*LocalPathFromUri("/tmp/t"), "/tmp/t");
  EXPECT_EQ(*LocalPathFromUri("/tmp/t//"), "/tmp/t");
  EXPECT_EQ(*LocalPathFromUri("rel/t"), "rel/t");
  EXPECT_EQ(*LocalPathFromUri("/tmp/a%20b"), "/tmp/a%20b");  // plain paths are not decoded
  EXPECT_EQ(*LocalPathFromUri("file:/tmp/t"), "/tmp/t");
  EXPECT_EQ(*LocalPathFromUri("file:///tmp/t/"), "/tmp/t");
  EXPECT_EQ(*LocalPathFromUri("file://localhost/tmp/t"), "/tmp/t");
  EXPECT_EQ(*LocalPathFromUri("FILE:///tmp/a%20b/%C3%A9"), "/tmp/a b/\xC3\xA9");
  EXPECT_EQ(*LocalPathFromUri("file:///"), "/");
  EXPECT_EQ(*LocalPathFromUri("file://"), "/");
  EXPECT_EQ(LocalPathFromUri("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LocalPathFromUri("file://otherhost/t").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LocalPathFromUri("file:rel").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LocalPathFromUri("file:///bad%zz").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LocalPathFromUri("s3://bucket/t").status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(LocalPathFromUri("abfss://c@a.dfs.core.windows.net/t").status().code(),
            StatusCode::kNotImplemented);

  EXPECT_EQ(LocalPathToFileUri("/tmp/a b/%x"), "file:///tmp/a%20b/%25x");
  EXPECT_EQ(*LocalPathFromUri(LocalPathToFileUri("/tmp/a b/%x#?\xC3\xA9")),
            "/tmp/a b/%x#?\xC3\xA9");
}

TEST(PathTest, JoinPath) {
  EXPECT_EQ(JoinPath("/tmp/t", "a/b"), "/tmp/t/a/b");
  EXPECT_EQ(JoinPath("/tmp/t/", "a"), "/tmp/t/a");
  EXPECT_EQ(JoinPath("/tmp/t//", "/a"), "/tmp/t/a");
  EXPECT_EQ(JoinPath("/", "a"), "/a");
  EXPECT_EQ(JoinPath("", "a"), "a");
  EXPECT_EQ(JoinPath("a", ""), "a");
  EXPECT_EQ(JoinPath("file:///tmp/t", "_delta_log"), "file:///tmp/t/_delta_log");
}

TEST(PathTest, DeltaPathsRelativeAndAbsolute) {
  auto rel = ParseDeltaPath("p=a%253Ab/part%200.parquet");
  ASSERT_TRUE(rel.ok());
  EXPECT_FALSE(rel->absolute);
  EXPECT_EQ(rel->path, "p=a%3Ab/part 0.parquet");

  auto abs = ParseDeltaPath("s3://bucket/t/p%3D1/f.parquet");
  ASSERT_TRUE(abs.ok());
  EXPECT_TRUE(abs->absolute);
  EXPECT_EQ(abs->path, "s3://bucket/t/p=1/f.parquet");

  EXPECT_EQ(*DeltaPathToKey("file:///tmp/t/p=1/f%20x.parquet", "/tmp/t"), "p=1/f x.parquet");
  EXPECT_EQ(*DeltaPathToKey("file:/tmp/t/f.parquet", "/tmp/t/"), "f.parquet");
  EXPECT_EQ(*DeltaPathToKey("/tmp/t/p%3D1/f.parquet", "/tmp/t"), "p=1/f.parquet");
  EXPECT_TRUE(ParseDeltaPath("/tmp/x")->absolute);
  EXPECT_EQ(DeltaPathToKey("/elsewhere/f.parquet", "/tmp/t").status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(DeltaPathToKey("file:///tmp/other/f.parquet", "/tmp/t").status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(DeltaPathToKey("file:///tmp/tt/f.parquet", "/tmp/t").status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(DeltaPathToKey("s3://b/t/f.parquet", "/tmp/t").status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(ParseDeltaPath("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseDeltaPath("a%zz").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace silt
