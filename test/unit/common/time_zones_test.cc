#include "common/time_zones.h"

#include <gtest/gtest.h>

namespace silt {
namespace {

constexpr int64_t kSecondsPerHour = 3600;

TEST(TimeZoneTest, FixedOffsets) {
  for (const char* name : {"UTC", "Z", "GMT", "+00:00"}) {
    auto tz = TimeZone::Find(name);
    ASSERT_TRUE(tz.ok()) << name;
    EXPECT_EQ((*tz)->OffsetAt(0), 0) << name;
    EXPECT_TRUE((*tz)->fixed()) << name;
  }
  auto plus8 = TimeZone::Find("+08:00");
  ASSERT_TRUE(plus8.ok());
  EXPECT_EQ((*plus8)->OffsetAt(1718479845), 8 * kSecondsPerHour);
  auto gmt = TimeZone::Find("GMT-03:30");
  ASSERT_TRUE(gmt.ok());
  EXPECT_EQ((*gmt)->OffsetAt(0), -(3 * kSecondsPerHour + 1800));
  EXPECT_EQ(ParseOffset("+0530"), 5 * 3600 + 30 * 60);
  EXPECT_EQ(ParseOffset("-8"), -8 * 3600);
  EXPECT_FALSE(ParseOffset("08:00").has_value());  // sign required
}

TEST(TimeZoneTest, RegionsFollowDst) {
  auto paris = TimeZone::Find("Europe/Paris");
  ASSERT_TRUE(paris.ok()) << paris.status().ToString();
  EXPECT_EQ((*paris)->id(), "Europe/Paris");
  EXPECT_EQ((*paris)->OffsetAt(1704067200), 1 * kSecondsPerHour);  // 2024-01-01T00:00Z
  EXPECT_EQ((*paris)->OffsetAt(1718479845), 2 * kSecondsPerHour);  // 2024-06-15
  // Far past the last listed transition: the POSIX footer rule applies.
  EXPECT_EQ((*paris)->OffsetAt(4102444800 + 180 * 86400), 2 * kSecondsPerHour);  // 2100 summer
  // In the spring-forward gap the local time moves forward by the gap (java.time).
  int64_t gap_local = DaysFromCivil(2024, 3, 31) * 86400 + 2 * 3600 + 30 * 60;  // 02:30
  EXPECT_EQ((*paris)->LocalToUtc(gap_local), gap_local - 1 * kSecondsPerHour);
}

TEST(TimeZoneTest, UnknownNamesFail) {
  auto bad = TimeZone::Find("Mars/Olympus");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().error_class(), "INVALID_TIMEZONE");
}

TEST(TimeZoneTest, ParseHmsForms) {
  size_t i = 0;
  int32_t secs;
  ASSERT_TRUE(ParseHms("05:30", &i, &secs, false));
  EXPECT_EQ(secs, 5 * 3600 + 30 * 60);
  EXPECT_EQ(i, 5u);
  i = 0;
  ASSERT_TRUE(ParseHms("0530", &i, &secs, true));
  EXPECT_EQ(secs, 5 * 3600 + 30 * 60);
  i = 0;
  ASSERT_TRUE(ParseHms("0530", &i, &secs, false));  // not compact: "05" then stops
  EXPECT_EQ(secs, 5 * 3600);
  EXPECT_EQ(i, 2u);
  i = 0;
  EXPECT_FALSE(ParseHms("05:7", &i, &secs, false));
  i = 0;
  EXPECT_FALSE(ParseHms("05:60", &i, &secs, false));
}

}  // namespace
}  // namespace silt
