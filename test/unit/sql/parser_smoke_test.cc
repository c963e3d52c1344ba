#include <gtest/gtest.h>
#include "sql/parser.h"
TEST(ParserSmoke, Select) { ASSERT_TRUE(silt::sql::ParseStatement("SELECT 1").ok()); }
