#include "vector/vector.h"

#include <gtest/gtest.h>

namespace silt {
namespace {

TEST(VectorTest, FixedWidthWithNulls) {
  Vector v(DataType::Int64());
  v.Append<int64_t>(1);
  v.AppendNull();
  v.Append<int64_t>(3);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(v.IsValid(0));
  EXPECT_TRUE(v.IsNull(1));
  EXPECT_EQ(v.data<int64_t>()[2], 3);
  EXPECT_EQ(v.CountNulls(), 1u);
  EXPECT_EQ(v.GetValue(1).ToJson(), "null");
  EXPECT_EQ(v.GetValue(2).ToJson(), "3");
}

TEST(VectorTest, NestedRoundTripThroughValues) {
  auto type = DataType::Struct(
      {{"id", DataType::Int32(), false, ""},
       {"tags", DataType::List(DataType::String()), true, ""},
       {"m", DataType::Map(DataType::String(), DataType::Decimal(10, 2)), true, ""}});
  Vector v(type);
  Value row = Value::Nested(
      type,
      {Value::Int32(7),
       Value::Nested(type->fields()[1].type, {Value::String("a"), Value::Null(DataType::String())}),
       Value::Nested(type->fields()[2].type, {Value::String("k"), Value::Decimal(10, 2, -1234)})});
  ASSERT_TRUE(v.AppendValue(row).ok());
  v.AppendNull();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v.GetValue(0), row);
  EXPECT_EQ(v.GetValue(0).ToJson(), R"({"id":7,"tags":["a",null],"m":[["k","-12.34"]]})");
  EXPECT_TRUE(v.GetValue(1).is_null());

  Vector copy(type);
  copy.AppendRange(v, 0, 2);
  EXPECT_EQ(copy.GetValue(0), row);
  EXPECT_TRUE(copy.IsNull(1));
  uint32_t sel[] = {1, 0};
  Vector picked(type);
  picked.AppendSelected(v, sel, 2);
  EXPECT_EQ(picked.GetValue(1), row);
}

TEST(ValueTest, Formatting) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(19000), "2022-01-08");
  EXPECT_EQ(FormatTimestampMicros(-1), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(FormatDecimal(5, 3), "0.005");
  EXPECT_EQ(FormatDecimal(-5, 3), "-0.005");
  int128_t big = 1;
  for (int i = 0; i < 37; ++i) big *= 10;
  EXPECT_EQ(Int128ToString(big), "1" + std::string(37, '0'));
  EXPECT_EQ(Value::Double(0.1).ToJson(), "0.1");
  EXPECT_EQ(Value::Binary("\x01\xff").ToJson(), "\"0x01ff\"");
}

TEST(TypesTest, ToStringAndEquality) {
  auto t = DataType::Map(DataType::String(), DataType::List(DataType::Decimal(38, 18)));
  EXPECT_EQ(t->ToString(), "map<string,array<decimal(38,18)>>");
  EXPECT_TRUE(
      t->Equals(*DataType::Map(DataType::String(), DataType::List(DataType::Decimal(38, 18)))));
  EXPECT_FALSE(
      t->Equals(*DataType::Map(DataType::String(), DataType::List(DataType::Decimal(38, 17)))));
  std::vector<Field> f = {{"Id", DataType::Int32(), true, ""}};
  EXPECT_EQ(FindField(f, "id"), 0);
  EXPECT_EQ(FindField(f, "x"), -1);
}

}  // namespace
}  // namespace silt
