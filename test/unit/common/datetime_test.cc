#include "common/datetime.h"

#include <gtest/gtest.h>

#include <string>

namespace silt {
namespace {

TEST(CalendarTest, CivilRoundTrip) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  for (int64_t d : {-719468LL, -1LL, 0LL, 19782LL, 2932896LL}) {
    CivilDate c = CivilFromDays(d);
    EXPECT_EQ(DaysFromCivil(c.year, c.month, c.day), d) << d;
  }
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);
  EXPECT_EQ(DaysInMonth(2000, 2), 29);
  EXPECT_EQ(FloorDiv(-1, kMicrosPerDay), -1);
  EXPECT_EQ(FloorMod(-1, 7), 6);
}

TEST(IsoDateTimeTest, Dates) {
  int32_t d;
  ASSERT_TRUE(ParseIsoDate("2024-02-29", &d));
  EXPECT_EQ(d, 19782);
  ASSERT_TRUE(ParseIsoDate("-0001-01-01", &d));
  EXPECT_EQ(d, DaysFromCivil(-1, 1, 1));
  ASSERT_TRUE(ParseIsoDate("+12345-01-01", &d));
  EXPECT_EQ(d, DaysFromCivil(12345, 1, 1));
  EXPECT_FALSE(ParseIsoDate("2023-02-29", &d));
  EXPECT_FALSE(ParseIsoDate("2024-2-29", &d));    // fixed width
  EXPECT_FALSE(ParseIsoDate(" 2024-01-01", &d));  // no trimming
  EXPECT_FALSE(ParseIsoDate("2024-01", &d));
  EXPECT_FALSE(ParseIsoDate("2024-01-01T00:00", &d));
}

TEST(IsoDateTimeTest, Timestamps) {
  int64_t us;
  bool zone;
  ASSERT_TRUE(ParseIsoTimestamp("2024-06-15T19:30:45.123456Z", &us, &zone));
  EXPECT_TRUE(zone);
  EXPECT_EQ(us, 1718479845123456);
  ASSERT_TRUE(ParseIsoTimestamp("2024-06-15 19:30:45", &us, &zone));
  EXPECT_FALSE(zone);
  EXPECT_EQ(us, 1718479845000000);
  ASSERT_TRUE(ParseIsoTimestamp("2024-06-15T21:30:45+02:00", &us, &zone));
  EXPECT_EQ(us, 1718479845000000);
  ASSERT_TRUE(ParseIsoTimestamp("2024-06-15T19:30:45UTC", &us, &zone));
  EXPECT_EQ(us, 1718479845000000);
  ASSERT_TRUE(ParseIsoTimestamp("2024-06-15T19:30:45.123456789Z", &us, &zone));  // truncated
  EXPECT_EQ(us, 1718479845123456);
  ASSERT_TRUE(ParseIsoTimestamp("2024-06-15", &us, &zone));
  EXPECT_EQ(us, 19889 * kMicrosPerDay);
  EXPECT_FALSE(ParseIsoTimestamp("2024-06-15T19:30:45.1234567890Z", &us, &zone));
  EXPECT_FALSE(ParseIsoTimestamp("2024-06-15T19", &us, &zone));
  EXPECT_FALSE(ParseIsoTimestamp("2024-06-15T24:00", &us, &zone));
  EXPECT_FALSE(ParseIsoTimestamp("2024-06-15T19:30+19:00", &us, &zone));
  EXPECT_FALSE(ParseIsoTimestamp("2024-06-15T19:30 Z", &us, &zone));
  EXPECT_FALSE(ParseIsoTimestamp("2024-06-15T19:30Europe/Paris", &us, &zone));
}

// The lenient grammar under both callers' syntaxes: what both accept, and where they differ.
TEST(SparkDateTimeTest, DatesBothSyntaxes) {
  for (const SparkDateTimeSyntax* syntax : {&kSqlLiteralSyntax, &kCastDateTimeSyntax}) {
    SparkDateTime t;
    ASSERT_TRUE(ParseSparkDate(" 2024-1-5 anything", *syntax, &t));
    EXPECT_EQ(t.year, 2024);
    EXPECT_EQ(t.month, 1);
    EXPECT_EQ(t.day, 5);
    ASSERT_TRUE(ParseSparkDate("2024", *syntax, &t));
    EXPECT_EQ(t.month, 1);
    EXPECT_EQ(t.day, 1);
    ASSERT_TRUE(ParseSparkDate("2024-03", *syntax, &t));
    EXPECT_EQ(t.month, 3);
    ASSERT_TRUE(ParseSparkDate("-2024-03-01T", *syntax, &t));
    EXPECT_EQ(t.year, -2024);
    ASSERT_TRUE(ParseSparkDate("1234567-12-31", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("12345678-01-01", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("123-01-01", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("2024-13-01", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("2023-02-29", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("2024-01-001", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("2024-01T", *syntax, &t));  // a separator needs a full date
    EXPECT_FALSE(ParseSparkDate("2024-01-01Z", *syntax, &t));
    EXPECT_FALSE(ParseSparkDate("", *syntax, &t));
  }
}

TEST(SparkDateTimeTest, TimestampsBothSyntaxes) {
  for (const SparkDateTimeSyntax* syntax : {&kSqlLiteralSyntax, &kCastDateTimeSyntax}) {
    SparkDateTime t;
    ASSERT_TRUE(ParseSparkDateTime("2024-06-15 9:5:7.25 +02:00", *syntax, &t));
    EXPECT_TRUE(t.has_time);
    EXPECT_EQ(t.hour, 9);
    EXPECT_EQ(t.minute, 5);
    EXPECT_EQ(t.second, 7);
    EXPECT_EQ(t.micros, 250000);
    EXPECT_EQ(t.zone, "+02:00");
    ASSERT_TRUE(ParseSparkDateTime("2024-06-15T19:30Z", *syntax, &t));
    EXPECT_EQ(t.zone, "Z");
    EXPECT_EQ(t.second, 0);
    ASSERT_TRUE(ParseSparkDateTime("2024-06-15T19:30:45.123456789", *syntax, &t));
    EXPECT_EQ(t.micros, 123456);
    EXPECT_EQ(t.zone, "");
    ASSERT_TRUE(ParseSparkDateTime("2024-06-15T", *syntax, &t));  // midnight
    EXPECT_TRUE(t.has_time);
    EXPECT_EQ(t.hour, 0);
    ASSERT_TRUE(ParseSparkDateTime("2024-06-15", *syntax, &t));
    EXPECT_FALSE(t.has_time);
    ASSERT_TRUE(ParseSparkDateTime("2024-06-15 10:00 Europe/Paris", *syntax, &t));
    EXPECT_EQ(t.zone, "Europe/Paris");  // resolving the zone is the caller's job
    EXPECT_FALSE(ParseSparkDateTime("2024-06-15T19:30:45.1234567890", *syntax, &t));
    EXPECT_FALSE(ParseSparkDateTime("2024-06-15T24:00", *syntax, &t));
    EXPECT_FALSE(ParseSparkDateTime("2024-06-15T12:60", *syntax, &t));
    EXPECT_FALSE(ParseSparkDateTime("2024-06-15T12:", *syntax, &t));
    EXPECT_FALSE(ParseSparkDateTime("2024-06-15T 12:00", *syntax, &t));
    EXPECT_FALSE(ParseSparkDateTime("2024-06-15+01:00", *syntax, &t));
  }
}

TEST(SparkDateTimeTest, WhereTheSyntaxesDiffer) {
  SparkDateTime t;
  // An hour alone.
  EXPECT_FALSE(ParseSparkDateTime("2024-06-15 12", kSqlLiteralSyntax, &t));
  ASSERT_TRUE(ParseSparkDateTime("2024-06-15 12", kCastDateTimeSyntax, &t));
  EXPECT_EQ(t.hour, 12);
  EXPECT_EQ(t.minute, 0);
  // Three hour digits: the hour stops after two; an hour alone is malformed for the literal
  // syntax, and for the cast syntax the rest is zone text that the caller fails to resolve.
  EXPECT_FALSE(ParseSparkDateTime("2024-06-15T123:00", kSqlLiteralSyntax, &t));
  ASSERT_TRUE(ParseSparkDateTime("2024-06-15T123:00", kCastDateTimeSyntax, &t));
  EXPECT_EQ(t.hour, 12);
  EXPECT_EQ(t.zone, "3:00");
  // A '.' without fraction digits.
  ASSERT_TRUE(ParseSparkDateTime("2024-06-15 12:00:00.", kSqlLiteralSyntax, &t));
  EXPECT_EQ(t.micros, 0);
  EXPECT_FALSE(ParseSparkDateTime("2024-06-15 12:00:00.", kCastDateTimeSyntax, &t));
  // Control bytes other than whitespace around the text.
  EXPECT_FALSE(
      ParseSparkDate("\x01"
                     "2024-06-15",
                     kSqlLiteralSyntax, &t));
  EXPECT_TRUE(
      ParseSparkDate("\x01"
                     "2024-06-15",
                     kCastDateTimeSyntax, &t));
  // NUL and whitespace are trimmed by both.
  EXPECT_TRUE(ParseSparkDate(std::string_view("\t2024-06-15\0", 12), kSqlLiteralSyntax, &t));
  EXPECT_TRUE(ParseSparkDate(std::string_view("\t2024-06-15\0", 12), kCastDateTimeSyntax, &t));
}

TEST(SparkDateTimeTest, LocalMicros) {
  SparkDateTime t;
  ASSERT_TRUE(ParseSparkDateTime("2024-06-15 19:30:45.123456", kSqlLiteralSyntax, &t));
  int64_t us;
  ASSERT_TRUE(SparkDateTimeLocalMicros(t, &us));
  EXPECT_EQ(us, 1718479845123456);
  ASSERT_TRUE(ParseSparkDateTime("-1000-01-01", kSqlLiteralSyntax, &t));
  ASSERT_TRUE(SparkDateTimeLocalMicros(t, &us));
  EXPECT_EQ(us, DaysFromCivil(-1000, 1, 1) * kMicrosPerDay);
  ASSERT_TRUE(ParseSparkDateTime("9999999-01-01", kSqlLiteralSyntax, &t));
  EXPECT_FALSE(SparkDateTimeLocalMicros(t, &us));  // beyond int64 micros
}

}  // namespace
}  // namespace silt
