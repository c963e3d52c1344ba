// DictionaryVector: flattening (all rows, selected rows, nulls, an empty dictionary), validation
// of its invariants, and EncodedChunk's flattening of mixed columns.
#include "vector/dictionary.h"

#include <gtest/gtest.h>

namespace silt {
namespace {

std::shared_ptr<const Vector> Dict(const std::vector<std::string>& values) {
  auto v = std::make_shared<Vector>(DataType::String());
  for (const auto& s : values) v->AppendString(s);
  return v;
}

TEST(DictionaryVectorTest, FlattenGivesEachRowsValueAndKeepsNulls) {
  DictionaryVector d;
  // A long value (beyond the 16-byte fast copy) and an empty one among short ones.
  d.dictionary = Dict({"apple", "", "a value longer than sixteen bytes", "b"});
  d.indices = {0, 2, 0, 0, 3, 1, 2};
  d.validity = {1, 1, 0, 1, 1, 1, 1};
  ASSERT_TRUE(d.Validate().ok());
  Vector flat = Flatten(d);
  ASSERT_EQ(flat.size(), 7u);
  EXPECT_EQ(flat.GetString(0), "apple");
  EXPECT_EQ(flat.GetString(1), "a value longer than sixteen bytes");
  EXPECT_TRUE(flat.IsNull(2));
  EXPECT_EQ(flat.GetString(2), "");  // a null slot keeps a defined (empty) value
  EXPECT_EQ(flat.GetString(3), "apple");
  EXPECT_EQ(flat.GetString(4), "b");
  EXPECT_TRUE(flat.IsValid(5));
  EXPECT_EQ(flat.GetString(5), "");
  EXPECT_EQ(flat.GetString(6), "a value longer than sixteen bytes");
  EXPECT_EQ(flat.CountNulls(), 1u);

  // Appending to a vector that already holds rows (without validity) keeps those rows valid.
  Vector more(DataType::String());
  more.AppendString("x");
  const uint32_t sel[] = {2, 4, 6};
  AppendFlattenedSelected(d, sel, 3, &more);
  ASSERT_EQ(more.size(), 4u);
  EXPECT_EQ(more.GetString(0), "x");
  EXPECT_TRUE(more.IsValid(0));
  EXPECT_TRUE(more.IsNull(1));
  EXPECT_EQ(more.GetString(2), "b");
  EXPECT_EQ(more.GetString(3), "a value longer than sixteen bytes");
}

TEST(DictionaryVectorTest, WithoutNullsTheFlatVectorHasNoValidity) {
  DictionaryVector d;
  d.dictionary = Dict({"x", "y"});
  d.indices = {1, 0, 1};
  Vector flat = Flatten(d);
  EXPECT_FALSE(flat.may_have_nulls());
  EXPECT_EQ(flat.GetValue(0), Value::String("y"));
  EXPECT_EQ(flat.GetValue(1), Value::String("x"));
}

TEST(DictionaryVectorTest, AnEmptyDictionaryHoldsOnlyNulls) {
  DictionaryVector d;
  d.dictionary = Dict({});
  d.indices = {0, 0, 0};
  d.validity = {0, 0, 0};
  ASSERT_TRUE(d.Validate().ok());
  Vector flat = Flatten(d);
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_EQ(flat.CountNulls(), 3u);
  d.validity[1] = 1;  // a valid row cannot index an empty dictionary
  EXPECT_FALSE(d.Validate().ok());
}

TEST(DictionaryVectorTest, ValidateRejectsBrokenInvariants) {
  DictionaryVector d;
  EXPECT_FALSE(d.Validate().ok());  // no dictionary
  d.dictionary = Dict({"a", "b"});
  d.indices = {0, 2};
  EXPECT_FALSE(d.Validate().ok());  // index out of range
  d.indices = {0, -1};
  EXPECT_FALSE(d.Validate().ok());  // negative index
  d.indices = {0, 1};
  d.validity = {1};
  EXPECT_FALSE(d.Validate().ok());  // validity of the wrong size
  d.validity = {1, 1};
  EXPECT_TRUE(d.Validate().ok());
  auto ints = std::make_shared<Vector>(DataType::Int64());
  ints->Append<int64_t>(1);
  d.dictionary = ints;
  d.indices = {0};
  d.validity.clear();
  EXPECT_FALSE(d.Validate().ok());  // not a string/binary dictionary
}

TEST(DictionaryVectorTest, EncodedChunkFlattensDictionaryColumnsAndMovesTheOthers) {
  EncodedChunk c;
  c.num_rows = 2;
  Vector ints(DataType::Int64());
  ints.Append<int64_t>(7);
  ints.Append<int64_t>(8);
  c.flat.push_back(std::move(ints));
  c.dict.emplace_back();
  DictionaryVector d;
  d.dictionary = Dict({"p", "q"});
  d.indices = {1, 1};
  c.flat.emplace_back(DataType::String());
  c.dict.emplace_back(std::move(d));
  EXPECT_FALSE(c.is_dictionary(0));
  EXPECT_TRUE(c.is_dictionary(1));
  DataChunk out = Flatten(std::move(c));
  ASSERT_EQ(out.columns.size(), 2u);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out.columns[0].Get<int64_t>(1), 8);
  EXPECT_EQ(out.columns[1].GetString(0), "q");
  EXPECT_EQ(out.columns[1].GetString(1), "q");
}

}  // namespace
}  // namespace silt
