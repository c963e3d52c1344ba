// Row hashes and key matching of string columns: short strings (hashed inline, compared without a
// libc call) give exactly HashBytes' hash and the same matches as long ones, with NULLs, empty
// strings, and strings that differ only in their last byte or in length.
#include "exec/row_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/hash.h"

namespace silt::exec {
namespace {

TEST(RowHashTest, StringHashIsHashBytesAtEveryLength) {
  Vector v(DataType::String());
  std::vector<std::string> values;
  for (size_t n = 0; n <= 20; ++n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + (i * 7 + n) % 26));
    values.push_back(s);
    v.AppendString(s);
  }
  v.AppendNull();
  std::vector<uint64_t> h(v.size());
  HashColumn(v, v.size(), h.data(), false);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(h[i], HashBytes(values[i].data(), values[i].size())) << "length " << i;
    EXPECT_EQ(h[i], HashValueAt(v, i)) << "length " << i;
  }
  EXPECT_EQ(h.back(), HashValueAt(v, values.size()));  // NULL
  // through a selection, combined with a first column
  std::vector<uint32_t> sel = {3, 0, 7};
  std::vector<uint64_t> hs(sel.size(), 42);
  HashColumnSelected(v, sel.data(), sel.size(), hs.data(), true);
  for (size_t k = 0; k < sel.size(); ++k) EXPECT_EQ(hs[k], HashCombine(42, h[sel[k]]));
  // strings that differ in one byte or in length hash apart
  Vector w(DataType::String());
  for (const char* s : {"A", "R", "AB", "ABC", "ABD", "ABCD", "ABCE", "ABCDEFG", "ABCDEFH"})
    w.AppendString(s);
  std::vector<uint64_t> hw(w.size());
  HashColumn(w, w.size(), hw.data(), false);
  for (size_t i = 0; i < hw.size(); ++i) {
    for (size_t j = i + 1; j < hw.size(); ++j) EXPECT_NE(hw[i], hw[j]) << i << " " << j;
  }
}

TEST(RowHashTest, MatchColumnOnShortAndLongStrings) {
  Vector a(DataType::String()), b(DataType::String());
  const std::vector<std::pair<std::string, std::string>> pairs = {{"A", "A"},
                                                                  {"A", "R"},
                                                                  {"", ""},
                                                                  {"", "A"},
                                                                  {"ABCDEFGH", "ABCDEFGH"},
                                                                  {"ABCDEFGH", "ABCDEFGX"},
                                                                  {"ABC", "ABCD"},
                                                                  {"ABCDEFGHIJ", "ABCDEFGHIJ"},
                                                                  {"ABCDEFGHIJ", "ABCDEFGHIK"},
                                                                  {"N", "N"}};
  for (const auto& [x, y] : pairs) {
    a.AppendString(x);
    b.AppendString(y);
  }
  a.AppendNull();
  b.AppendNull();
  a.AppendNull();
  b.AppendString("A");
  const size_t n = a.size();
  std::vector<uint32_t> rows(n), cand(n), miss(n);
  for (size_t i = 0; i < n; ++i) rows[i] = cand[i] = static_cast<uint32_t>(i);
  size_t nmiss = 0;
  size_t keep = MatchColumn(a, rows.data(), b, rows.data(), cand.data(), n,
                            NullEquality::kNullsEqual, miss.data(), &nmiss);
  std::vector<uint32_t> matched(cand.begin(), cand.begin() + keep);
  EXPECT_EQ(matched, (std::vector<uint32_t>{0, 2, 4, 7, 9, 10}));
  EXPECT_EQ(nmiss, n - keep);
  for (size_t i = 0; i < n; ++i) rows[i] = cand[i] = static_cast<uint32_t>(i);
  nmiss = 0;
  keep = MatchColumn(a, rows.data(), b, rows.data(), cand.data(), n, NullEquality::kNullsNeverEqual,
                     miss.data(), &nmiss);
  EXPECT_EQ(std::vector<uint32_t>(cand.begin(), cand.begin() + keep),
            (std::vector<uint32_t>{0, 2, 4, 7, 9}));
}

}  // namespace
}  // namespace silt::exec
