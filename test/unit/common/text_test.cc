// ASCII case folding, UTF-8 encoding and JSON string quoting (common/ascii.h, utf8.h,
// json_escape.h).
#include <gtest/gtest.h>

#include <string>

#include "common/ascii.h"
#include "common/json_escape.h"
#include "common/utf8.h"

namespace silt {
namespace {

TEST(AsciiTest, CaseFoldingLeavesNonAsciiAlone) {
  EXPECT_EQ(AsciiLower("SELECT Straße ÄB_1"), "select straße Äb_1");
  EXPECT_EQ(AsciiUpper("select straße äb_1"), "SELECT STRAßE äB_1");
  EXPECT_EQ(AsciiToLower('@'), '@');
  EXPECT_EQ(AsciiToUpper('{'), '{');
  EXPECT_EQ(AsciiToLower('Z'), 'z');
  EXPECT_EQ(AsciiToUpper('a'), 'A');
  EXPECT_TRUE(EqualsIgnoreCase("TrUe", "true"));
  EXPECT_FALSE(EqualsIgnoreCase("true ", "true"));
  EXPECT_FALSE(EqualsIgnoreCase("ä", "Ä"));  // ASCII only, as Spark's Locale.ROOT keywords
  EXPECT_TRUE(StartsWithIgnoreCase("NOT NULL", "not "));
  EXPECT_FALSE(StartsWithIgnoreCase("NO", "not"));
  static_assert(EqualsIgnoreCase("ABC", "abc"));
}

TEST(Utf8Test, EncodesEachLength) {
  std::string s;
  AppendUtf8(&s, 'A');
  AppendUtf8(&s, 0xE9);     // é
  AppendUtf8(&s, 0x20AC);   // €
  AppendUtf8(&s, 0x1F600);  // 😀
  EXPECT_EQ(s, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  s.clear();
  AppendUtf8(&s, 0x7F);
  AppendUtf8(&s, 0x80);
  AppendUtf8(&s, 0x7FF);
  AppendUtf8(&s, 0x800);
  AppendUtf8(&s, 0xFFFF);
  AppendUtf8(&s, 0x10000);
  EXPECT_EQ(s, "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80");
}

TEST(JsonEscapeTest, EscapesLikeJackson) {
  std::string s;
  AppendJsonString(&s, std::string_view("a\"b\\c\n\r\t\b\f\x01\x1f/é\0", 16), JsonHexCase::kLower);
  EXPECT_EQ(s, "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f/é\\u0000\"");
  s.clear();
  AppendJsonString(&s, "\x1f", JsonHexCase::kUpper);
  EXPECT_EQ(s, "\"\\u001F\"");
  s = "x";
  AppendJsonString(&s, "", JsonHexCase::kLower);
  EXPECT_EQ(s, "x\"\"");
}

}  // namespace
}  // namespace silt
