// The CLI's progress line: nothing for quick statements or non-terminals, throttled redraws,
// erased at the end.
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace silt::cli {
namespace {

using std::chrono::milliseconds;

std::string Read(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  for (int c; (c = std::fgetc(f)) != EOF;) out += static_cast<char>(c);
  return out;
}

TEST(ProgressLineTest, DrawsAfterTheDelayAtABoundedRateAndErasesAtTheEnd) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ProgressLine p(f, true, milliseconds(1000), milliseconds(200));
  const auto t0 = ProgressLine::Clock::time_point{} + std::chrono::hours(1);
  p.Start(t0);
  EXPECT_FALSE(p.Update("early", t0 + milliseconds(500)));  // quick statements print nothing
  EXPECT_TRUE(p.Update("a", t0 + milliseconds(1000)));
  EXPECT_FALSE(p.Update("b", t0 + milliseconds(1100)));  // throttled
  EXPECT_TRUE(p.Update("c", t0 + milliseconds(1200)));
  p.Finish();
  EXPECT_EQ(Read(f), "\r\033[Ka\r\033[Kc\r\033[K");
  std::fclose(f);
}

TEST(ProgressLineTest, DisabledOrQuickStatementsLeaveNoTrace) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  const auto t0 = ProgressLine::Clock::time_point{} + std::chrono::hours(1);
  ProgressLine off(f, false);
  off.Start(t0);
  EXPECT_FALSE(off.Update("x", t0 + std::chrono::seconds(5)));
  off.Finish();
  ProgressLine quick(f, true);
  quick.Start(t0);
  EXPECT_FALSE(quick.Update("x", t0 + milliseconds(10)));
  quick.Finish();
  EXPECT_EQ(Read(f), "");
  std::fclose(f);
}

}  // namespace
}  // namespace silt::cli
