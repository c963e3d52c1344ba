// io/read_confinement.h: absolute paths from a Delta log are read only inside the table root or
// the allowed prefixes, lexically and after symlinks.
#include "io/read_confinement.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace silt {
namespace {

std::string Class(const Status& s) { return s.ok() ? "OK" : std::string(s.error_class()); }

TEST(ReadConfinement, InsideTheRootOrAnAllowedPrefixOnly) {
  auto c = ReadConfinement::Make("");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "/data/t/part-0.parquet")), "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**c, "file:///data/t/", "file:///data/t/a=1/part-0.parquet")),
            "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**c, "file:///data/t/", "file:/data/t/deletion_vector_x.bin")),
            "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "/data/other/part-0.parquet")),
            kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "/data/t2/part-0.parquet")),
            kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "/data/t/../other/x.parquet")),
            kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "/etc/passwd")), kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "/data/t")), kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**c, "memory://a/t", "memory://a/t/x.parquet")), "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**c, "memory://a/t", "memory://b/t/x.parquet")),
            kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**c, "/data/t", "s3://bucket/x.parquet")),
            kReadOutsideTableRootClass);

  auto allowed = ReadConfinement::Make(" /data/source , file:///mnt/shared/ ");
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
  EXPECT_EQ((*allowed)->allowed_prefixes.size(), 2u);
  EXPECT_EQ(Class(CheckConfinedRead(**allowed, "/data/t", "/data/source/part-0.parquet")), "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**allowed, "/data/t", "file:///mnt/shared/x/part-0.parquet")),
            "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**allowed, "/data/t", "/data/sourcex/part-0.parquet")),
            kReadOutsideTableRootClass);
  EXPECT_EQ(Class(CheckConfinedRead(**allowed, "/data/t", "/mnt/other/x.parquet")),
            kReadOutsideTableRootClass);

  auto bad = ReadConfinement::Make("/ok, gs://bucket/x");
  EXPECT_FALSE(bad.ok());
}

TEST(ReadConfinement, SymlinksOutOfTheRootAreOutside) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "silt-confine-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const std::filesystem::path dir = tmpl;
  std::filesystem::create_directories(dir / "t");
  std::filesystem::create_directories(dir / "secret");
  std::ofstream(dir / "secret" / "x.parquet") << "PAR1";
  std::ofstream(dir / "t" / "own.parquet") << "PAR1";
  std::filesystem::create_symlink(dir / "secret", dir / "t" / "link");
  auto c = ReadConfinement::Make("");
  ASSERT_TRUE(c.ok());
  const std::string root = (dir / "t").string();
  EXPECT_EQ(Class(CheckConfinedRead(**c, root, root + "/own.parquet")), "OK");
  EXPECT_EQ(Class(CheckConfinedRead(**c, root, root + "/link/x.parquet")),
            kReadOutsideTableRootClass);
  // A root reached through a symlink still holds its own files.
  std::filesystem::create_symlink(dir / "t", dir / "t-alias");
  EXPECT_EQ(Class(CheckConfinedRead(**c, (dir / "t-alias").string(),
                                    (dir / "t-alias" / "own.parquet").string())),
            "OK");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace silt
