// Expressions: precedence, literal typing, special forms and Spark's column names.
#include <gtest/gtest.h>

#include "sql/parser.h"
#include "unit/sql/parser_test_util.h"

namespace silt::sql {
namespace {

using testing::Expr;
using testing::Name;

TEST(ExprParser, SparkColumnNames) {
  EXPECT_EQ(Name("a + 1"), "(a + 1)");
  EXPECT_EQ(Name("count(*)"), "count(1)");
  EXPECT_EQ(Name("COUNT(*)"), "count(1)");
  EXPECT_EQ(Name("sum(x)"), "sum(x)");
  EXPECT_EQ(Name("UPPER(s)"), "upper(s)");
  EXPECT_EQ(Name("CAST(a AS STRING)"), "CAST(a AS STRING)");
  EXPECT_EQ(Name("cast(a as decimal(10, 2))"), "CAST(a AS DECIMAL(10,2))");
  EXPECT_EQ(Name("try_cast(a as int)"), "TRY_CAST(a AS INT)");
  EXPECT_EQ(Name("a::bigint"), "CAST(a AS BIGINT)");
  EXPECT_EQ(Name("1 = 1"), "(1 = 1)");
  EXPECT_EQ(Name("a == 1"), "(a = 1)");
  EXPECT_EQ(Name("a != 1"), "(NOT (a = 1))");
  EXPECT_EQ(Name("a <> 1"), "(NOT (a = 1))");
  EXPECT_EQ(Name("t.a"), "a");
  EXPECT_EQ(Name("'x'"), "x");
  EXPECT_EQ(Name("NULL"), "NULL");
  EXPECT_EQ(Name("true"), "true");
  EXPECT_EQ(Name("1.50"), "1.50");
  EXPECT_EQ(Name("1.5e3"), "1500.0");
  EXPECT_EQ(Name("-1"), "-1");
  EXPECT_EQ(Name("-a"), "(- a)");
  EXPECT_EQ(Name("+a"), "(+ a)");
  EXPECT_EQ(Name("~a"), "~a");
  EXPECT_EQ(Name("NOT a"), "(NOT a)");
  EXPECT_EQ(Name("a AND b OR c"), "((a AND b) OR c)");
  EXPECT_EQ(Name("a || b"), "concat(a, b)");
  EXPECT_EQ(Name("a div b"), "(a div b)");
  EXPECT_EQ(Name("a % 2"), "(a % 2)");
  EXPECT_EQ(Name("a IS NULL"), "(a IS NULL)");
  EXPECT_EQ(Name("a IS NOT NULL"), "(a IS NOT NULL)");
  EXPECT_EQ(Name("a IS TRUE"), "(a <=> true)");
  EXPECT_EQ(Name("a IS NOT FALSE"), "(NOT (a <=> false))");
  EXPECT_EQ(Name("a IS DISTINCT FROM b"), "(NOT (a <=> b))");
  EXPECT_EQ(Name("a IS NOT DISTINCT FROM b"), "(a <=> b)");
  EXPECT_EQ(Name("a <=> b"), "(a <=> b)");
  EXPECT_EQ(Name("a IN (1, 2, 3)"), "(a IN (1, 2, 3))");
  EXPECT_EQ(Name("a NOT IN (1, 2)"), "(NOT (a IN (1, 2)))");
  EXPECT_EQ(Name("a LIKE 'x%'"), "a LIKE x%");
  EXPECT_EQ(Name("a NOT LIKE 'x%'"), "(NOT a LIKE x%)");
  EXPECT_EQ(Name("a BETWEEN 1 AND 2"), "between(a, 1, 2)");
  EXPECT_EQ(Name("CASE WHEN a > 1 THEN 'x' ELSE 'y' END"), "CASE WHEN (a > 1) THEN x ELSE y END");
  EXPECT_EQ(Name("CASE a WHEN 1 THEN 'x' END"), "CASE WHEN (a = 1) THEN x END");
  EXPECT_EQ(Name("count(DISTINCT a)"), "count(DISTINCT a)");
  EXPECT_EQ(Name("sum(x) FILTER (WHERE x > 1)"), "sum(x) FILTER (WHERE (x > 1))");
  EXPECT_EQ(Name("arr[0]"), "arr[0]");
  EXPECT_EQ(Name("m['k']"), "m[k]");
  EXPECT_EQ(Name("DATE '2024-01-02'"), "DATE '2024-01-02'");
  EXPECT_EQ(Name("TIMESTAMP '2024-01-02 03:04:05'"), "TIMESTAMP '2024-01-02 03:04:05'");
  EXPECT_EQ(Name("TIMESTAMP '2024-01-02 03:04:05.120'"), "TIMESTAMP '2024-01-02 03:04:05.12'");
  EXPECT_EQ(Name("TIMESTAMP_NTZ '2024-01-02'"), "TIMESTAMP_NTZ '2024-01-02 00:00:00'");
  EXPECT_EQ(Name("X'0a1B'"), "X'0A1B'");
  EXPECT_EQ(Name("current_date"), "current_date()");
  EXPECT_EQ(Name("current_timestamp()"), "current_timestamp()");
  EXPECT_EQ(Name("transform(arr, x -> x + 1)"),
            "transform(arr, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))");
  EXPECT_EQ(Name("row_number() OVER (PARTITION BY a ORDER BY b)"),
            "row_number() OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS BETWEEN UNBOUNDED "
            "PRECEDING AND CURRENT ROW)");
  EXPECT_EQ(Name("sum(x) OVER (ORDER BY b DESC)"),
            "sum(x) OVER (ORDER BY b DESC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND "
            "CURRENT ROW)");
  EXPECT_EQ(Name("sum(x) OVER ()"),
            "sum(x) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)");
  EXPECT_EQ(Name("INTERVAL 3 HOURS"), "INTERVAL '03' HOUR");
  EXPECT_EQ(Name("INTERVAL '1' DAY"), "INTERVAL '1' DAY");
  EXPECT_EQ(Name("INTERVAL '1-2' YEAR TO MONTH"), "INTERVAL '1-2' YEAR TO MONTH");
  EXPECT_EQ(Name("CAST(a AS array<struct<x:int,y string>>)"),
            "CAST(a AS ARRAY<STRUCT<x: INT, y: STRING>>)");
  EXPECT_EQ(Name("CAST(m AS map<string, bigint>)"), "CAST(m AS MAP<STRING, BIGINT>)");
}

TEST(ExprParser, ArithmeticPrecedence) {
  EXPECT_EQ(Name("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(Name("(1 + 2) * 3"), "((1 + 2) * 3)");
  EXPECT_EQ(Name("1 - 2 - 3"), "((1 - 2) - 3)");
  EXPECT_EQ(Name("a | b ^ c & d"), "(a | (b ^ (c & d)))");
  EXPECT_EQ(Name("a & b + c"), "(a & (b + c))");
  EXPECT_EQ(Name("a + b || c"), "concat((a + b), c)");
  EXPECT_EQ(Name("-a * b"), "((- a) * b)");
  EXPECT_EQ(Name("a * b % c / d"), "(((a * b) % c) / d)");
  EXPECT_EQ(Name("a = b + 1"), "(a = (b + 1))");
  EXPECT_EQ(Name("a < b = c"), "((a < b) = c)");
  EXPECT_EQ(Name("a << 2 + 1"), "shiftleft(a, (2 + 1))");
  EXPECT_EQ(Name("a >> 2"), "shiftright(a, 2)");
  EXPECT_EQ(Name("a >>> 2"), "shiftrightunsigned(a, 2)");
  EXPECT_EQ(Name("-a::int"), "(- CAST(a AS INT))");
  EXPECT_EQ(Name("a !> b"), "(a <= b)");
}

TEST(ExprParser, BooleanPrecedence) {
  EXPECT_EQ(Name("a OR b AND c"), "(a OR (b AND c))");
  EXPECT_EQ(Name("NOT a = b"), "(NOT (a = b))");
  EXPECT_EQ(Name("NOT a AND b"), "((NOT a) AND b)");
  EXPECT_EQ(Name("! a"), "(NOT a)");
  EXPECT_EQ(Name("a = 1 AND b IS NULL OR NOT c"), "(((a = 1) AND (b IS NULL)) OR (NOT c))");
  // Spark: comparisons are value expressions, the predicate applies to their result.
  EXPECT_EQ(Name("a = b IS NULL"), "((a = b) IS NULL)");
  EXPECT_EQ(Name("a BETWEEN 1 AND 2 AND b"), "(between(a, 1, 2) AND b)");
  EXPECT_EQ(Name("a NOT BETWEEN 1 + 1 AND 5"), "(NOT between(a, (1 + 1), 5))");
}

TEST(ExprParser, IntegerLiteralTyping) {
  auto lit = [](std::string_view s) { return Expr(s)->literal; };
  EXPECT_EQ(lit("1").type()->id(), TypeId::kInt32);
  EXPECT_EQ(lit("2147483647").type()->id(), TypeId::kInt32);
  EXPECT_EQ(lit("2147483648").type()->id(), TypeId::kInt64);
  EXPECT_EQ(lit("-2147483648").type()->id(), TypeId::kInt32);
  EXPECT_EQ(lit("-2147483648").integer(), -2147483648LL);
  EXPECT_EQ(lit("-2147483649").type()->id(), TypeId::kInt64);
  EXPECT_EQ(lit("9223372036854775807").type()->id(), TypeId::kInt64);
  EXPECT_EQ(lit("-9223372036854775808").integer(), INT64_MIN);
  Value big = lit("9223372036854775808");
  EXPECT_EQ(big.type()->id(), TypeId::kDecimal);
  EXPECT_EQ(big.type()->precision(), 19);
  EXPECT_EQ(big.type()->scale(), 0);
  EXPECT_EQ(lit("10L").type()->id(), TypeId::kInt64);
  EXPECT_EQ(lit("10l").integer(), 10);
  EXPECT_EQ(lit("10S").type()->id(), TypeId::kInt16);
  EXPECT_EQ(lit("10Y").type()->id(), TypeId::kInt8);
  EXPECT_EQ(lit("-128Y").integer(), -128);
  EXPECT_FALSE(ParseExpression("128Y").ok());
  EXPECT_EQ(ParseExpression("128Y").status().error_class(), "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_EQ(ParseExpression("32768S").status().error_class(), "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_EQ(ParseExpression("9223372036854775808L").status().error_class(),
            "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_TRUE(ParseExpression("-9223372036854775808L").ok());
  EXPECT_EQ(ParseExpression("123456789012345678901234567890123456789").status().error_class(),
            "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION");
}

TEST(ExprParser, DecimalAndDoubleLiteralTyping) {
  auto lit = [](std::string_view s) { return Expr(s)->literal; };
  Value d = lit("1.5");
  ASSERT_EQ(d.type()->id(), TypeId::kDecimal);
  EXPECT_EQ(d.type()->precision(), 2);
  EXPECT_EQ(d.type()->scale(), 1);
  EXPECT_EQ(static_cast<int64_t>(d.decimal()), 15);
  Value small = lit("0.001");
  EXPECT_EQ(small.type()->precision(), 3);
  EXPECT_EQ(small.type()->scale(), 3);
  Value dot = lit(".5");
  EXPECT_EQ(dot.type()->precision(), 1);
  EXPECT_EQ(dot.type()->scale(), 1);
  Value trailing = lit("1.");
  EXPECT_EQ(trailing.type()->precision(), 1);
  EXPECT_EQ(trailing.type()->scale(), 0);
  Value neg = lit("-12.345");
  EXPECT_EQ(static_cast<int64_t>(neg.decimal()), -12345);
  EXPECT_EQ(neg.type()->precision(), 5);
  EXPECT_EQ(lit("1.5e3").type()->id(), TypeId::kDouble);
  EXPECT_DOUBLE_EQ(lit("1.5e3").floating(), 1500.0);
  EXPECT_EQ(lit("1e10").type()->id(), TypeId::kDouble);
  EXPECT_EQ(lit("1.5D").type()->id(), TypeId::kDouble);
  EXPECT_EQ(lit("2d").type()->id(), TypeId::kDouble);
  EXPECT_EQ(lit("1.5F").type()->id(), TypeId::kFloat);
  Value bd = lit("1.25BD");
  EXPECT_EQ(bd.type()->id(), TypeId::kDecimal);
  EXPECT_EQ(bd.type()->scale(), 2);
  Value bdi = lit("7BD");
  EXPECT_EQ(bdi.type()->precision(), 1);
  EXPECT_EQ(bdi.type()->scale(), 0);
  EXPECT_EQ(ParseExpression("1e400").status().error_class(), "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_EQ(Name("1e10"), "1.0E10");
  EXPECT_EQ(Name("0.5D"), "0.5");
}

TEST(ExprParser, StringLiterals) {
  auto str = [](std::string_view s) { return Expr(s)->literal.str(); };
  EXPECT_EQ(str("'abc'"), "abc");
  EXPECT_EQ(str("\"abc\""), "abc");
  EXPECT_EQ(str("'a' 'b' \"c\""), "abc");
  EXPECT_EQ(str("'it\\'s'"), "it's");
  EXPECT_EQ(str("'a\\nb\\tc'"), "a\nb\tc");
  EXPECT_EQ(str("'\\u0041'"), "A");
  EXPECT_EQ(str("'\\101'"), "A");
  EXPECT_EQ(str("'100\\%'"), "100\\%");
  EXPECT_EQ(str("'\\\\'"), "\\");
  EXPECT_EQ(str("'\\x'"), "x");
  EXPECT_EQ(str("r'a\\nb'"), "a\\nb");
  EXPECT_EQ(str("''"), "");
  EXPECT_EQ(Expr("'a'")->literal.type()->id(), TypeId::kString);
}

TEST(ExprParser, DateAndTimestampLiterals) {
  auto e = Expr("DATE '1970-01-02'");
  EXPECT_EQ(e->literal.type()->id(), TypeId::kDate);
  EXPECT_EQ(e->literal.integer(), 1);
  EXPECT_EQ(Expr("DATE '2024-2'")->literal.integer(), Expr("DATE '2024-02-01'")->literal.integer());
  EXPECT_EQ(Expr("DATE '2024'")->literal.integer(), Expr("DATE '2024-01-01'")->literal.integer());
  EXPECT_EQ(Expr("date '2024-02-29 10:00'")->literal.integer(),
            Expr("DATE '2024-02-29'")->literal.integer());
  EXPECT_EQ(ParseExpression("DATE '2023-02-29'").status().error_class(), "INVALID_TYPED_LITERAL");
  EXPECT_EQ(ParseExpression("DATE 'x'").status().error_class(), "INVALID_TYPED_LITERAL");
  auto ts = Expr("TIMESTAMP '1970-01-01 00:00:01.5'");
  EXPECT_EQ(ts->literal.type()->id(), TypeId::kTimestamp);
  EXPECT_EQ(ts->literal.integer(), 1500000);
  EXPECT_EQ(Expr("TIMESTAMP '1970-01-01T01:00:00+01:00'")->literal.integer(), 0);
  EXPECT_EQ(Expr("TIMESTAMP '1970-01-01 00:00:00Z'")->literal.integer(), 0);
  EXPECT_EQ(Expr("TIMESTAMP '1970-01-01 00:00:00 UTC'")->literal.integer(), 0);
  EXPECT_EQ(Expr("TIMESTAMP '1970-01-02'")->literal.integer(), 86400000000LL);
  EXPECT_EQ(Expr("TIMESTAMP_LTZ '1970-01-01 00:00:01'")->literal.type()->id(), TypeId::kTimestamp);
  auto ntz = Expr("TIMESTAMP_NTZ '1970-01-01 00:01:00'");
  EXPECT_EQ(ntz->literal.type()->id(), TypeId::kTimestampNtz);
  EXPECT_EQ(ntz->literal.integer(), 60000000);
  EXPECT_EQ(ParseExpression("TIMESTAMP_NTZ '1970-01-01 00:00:00+01:00'").status().error_class(),
            "INVALID_TYPED_LITERAL");
  EXPECT_EQ(ParseExpression("TIMESTAMP '2024-01-01 25:00:00'").status().error_class(),
            "INVALID_TYPED_LITERAL");
  // A region id is resolved with the time-zone database: 10:00 PST is 18:00 UTC.
  auto la = Expr("TIMESTAMP '2024-01-01 10:00:00 America/Los_Angeles'");
  EXPECT_EQ(la->literal.integer(), int64_t{1704132000} * 1000000);
  EXPECT_FALSE(la->local_timestamp);
  EXPECT_EQ(ParseExpression("TIMESTAMP '2024-01-01 10:00:00 Mars/Olympus'").status().error_class(),
            "INVALID_TYPED_LITERAL");
  // DATE / TIMESTAMP not followed by a string are identifiers (non-reserved).
  auto col = Expr("date");
  EXPECT_EQ(col->type, ExprType::kColumnRef);
  EXPECT_EQ(Expr("timestamp + 1")->children[0]->type, ExprType::kColumnRef);
}

TEST(ExprParser, IntervalLiterals) {
  auto iv = Expr("INTERVAL '1' DAY");
  EXPECT_EQ(iv->type, ExprType::kInterval);
  EXPECT_EQ(iv->interval_micros, 86400000000LL);
  EXPECT_EQ(iv->interval_qualifier, "DAY");
  auto multi = Expr("INTERVAL 3 HOURS 2 MINUTES");
  EXPECT_EQ(multi->interval_micros, 3 * 3600000000LL + 2 * 60000000LL);
  EXPECT_EQ(multi->interval_qualifier, "HOUR TO MINUTE");
  EXPECT_EQ(multi->ToString(), "INTERVAL '03:02' HOUR TO MINUTE");
  auto ym = Expr("INTERVAL '1-2' YEAR TO MONTH");
  EXPECT_EQ(ym->interval_months, 14);
  EXPECT_EQ(Expr("INTERVAL '-1-2' YEAR TO MONTH")->interval_months, -14);
  auto dts = Expr("INTERVAL '1 02:03:04.5' DAY TO SECOND");
  EXPECT_EQ(dts->interval_micros, 86400000000LL + 2 * 3600000000LL + 3 * 60000000LL + 4500000);
  EXPECT_EQ(dts->ToString(), "INTERVAL '1 02:03:04.5' DAY TO SECOND");
  // Spark 4 has no literal mixing year-month and day-time units.
  EXPECT_EQ(ParseExpression("INTERVAL 1 MONTH 2 DAYS").status().error_class(),
            "_LEGACY_ERROR_TEMP_0029");
  auto str = Expr("INTERVAL '2 weeks 1 hour'");
  EXPECT_EQ(str->interval_micros, 14 * 86400000000LL + 3600000000LL);
  EXPECT_EQ(Expr("INTERVAL -3 DAYS")->interval_micros, -3 * 86400000000LL);
  EXPECT_EQ(Expr("INTERVAL 1.5 SECONDS")->interval_micros, 1500000);
  EXPECT_EQ(Expr("INTERVAL 2 YEARS")->interval_months, 24);
  EXPECT_EQ(Expr("INTERVAL 2 YEARS")->interval_qualifier, "YEAR");
  EXPECT_EQ(Expr("ts + INTERVAL 1 DAY")->children[1]->type, ExprType::kInterval);
  EXPECT_FALSE(ParseExpression("INTERVAL '1-13' YEAR TO MONTH").ok());
  EXPECT_FALSE(ParseExpression("INTERVAL 1 FORTNIGHT").ok());
  // `interval` alone is a column.
  EXPECT_EQ(Expr("interval")->type, ExprType::kColumnRef);
}

TEST(ExprParser, ColumnsStarsAndAccess) {
  auto c = Expr("db.t.a");
  EXPECT_EQ(c->type, ExprType::kColumnRef);
  EXPECT_EQ(c->names, (std::vector<std::string>{"db", "t", "a"}));
  auto q = Expr("`weird col`.`x``y`");
  EXPECT_EQ(q->names, (std::vector<std::string>{"weird col", "x`y"}));
  auto sub = Expr("a[0].b");
  EXPECT_EQ(sub->type, ExprType::kFieldAccess);
  EXPECT_EQ(sub->field, "b");
  EXPECT_EQ(sub->children[0]->type, ExprType::kSubscript);
  auto fa = Expr("f(x).y");
  EXPECT_EQ(fa->type, ExprType::kFieldAccess);
  EXPECT_EQ(fa->ToString(), "f(x).y");
  auto st = Expr("t.*");
  EXPECT_EQ(st->type, ExprType::kStar);
  EXPECT_EQ(st->names, std::vector<std::string>{"t"});
  auto ex = Expr("* EXCEPT (a, b.c)");
  EXPECT_EQ(ex->except_columns, (std::vector<std::string>{"a", "b.c"}));
  // Non-reserved keywords as column names.
  for (const char* kw :
       {"key",      "value",   "year",     "month",  "type",   "data",  "comment",
        "location", "version", "history",  "vacuum", "full",   "lite",  "retain",
        "first",    "last",    "order_id", "window", "values", "limit", "user_id"}) {
    auto e = Expr(kw);
    ASSERT_TRUE(e) << kw;
    EXPECT_EQ(e->type, ExprType::kColumnRef) << kw;
  }
}

TEST(ExprParser, Functions) {
  auto f = Expr("db.my_func(1, 'a')");
  EXPECT_EQ(f->type, ExprType::kFunction);
  EXPECT_EQ(f->names, (std::vector<std::string>{"db", "my_func"}));
  EXPECT_EQ(f->children.size(), 2u);
  auto cnt = Expr("count(*)");
  EXPECT_TRUE(cnt->star_arg);
  EXPECT_TRUE(cnt->children.empty());
  auto d = Expr("count(DISTINCT a, b)");
  EXPECT_TRUE(d->distinct);
  EXPECT_EQ(d->children.size(), 2u);
  auto ign = Expr("first_value(x) IGNORE NULLS OVER (ORDER BY t)");
  EXPECT_TRUE(ign->ignore_nulls);
  ASSERT_TRUE(ign->over);
  auto ign2 = Expr("first(x IGNORE NULLS)");
  EXPECT_TRUE(ign2->ignore_nulls);
  auto wg = Expr("percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)");
  ASSERT_EQ(wg->within_group.size(), 1u);
  EXPECT_FALSE(wg->within_group[0].ascending);
  auto w = Expr("sum(x) OVER w");
  ASSERT_TRUE(w->over);
  EXPECT_EQ(w->over->name, "w");
  auto frame =
      Expr("avg(x) OVER (PARTITION BY a, b ORDER BY c ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING)");
  ASSERT_TRUE(frame->over && frame->over->frame);
  EXPECT_EQ(frame->over->partition_by.size(), 2u);
  EXPECT_EQ(frame->over->frame->unit, WindowFrame::Unit::kRows);
  EXPECT_EQ(frame->over->frame->start, WindowFrame::BoundType::kPreceding);
  EXPECT_EQ(frame->over->frame->end, WindowFrame::BoundType::kFollowing);
  EXPECT_EQ(frame->over->frame->start_offset->literal.integer(), 2);
  auto range =
      Expr("sum(x) OVER (ORDER BY d RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)");
  EXPECT_EQ(range->over->frame->unit, WindowFrame::Unit::kRange);
  EXPECT_EQ(range->over->frame->end, WindowFrame::BoundType::kUnboundedFollowing);
  auto single = Expr("sum(x) OVER (ORDER BY d ROWS 3 PRECEDING)");
  EXPECT_EQ(single->over->frame->end, WindowFrame::BoundType::kCurrentRow);
  auto named = Expr("f(a => 1, b => 'x')");
  EXPECT_EQ(named->children[0]->type, ExprType::kNamedArgument);
  EXPECT_EQ(named->children[0]->field, "a");
  auto left = Expr("left(s, 2)");
  EXPECT_EQ(left->type, ExprType::kFunction);
  auto extract = Expr("EXTRACT(YEAR FROM d)");
  EXPECT_EQ(extract->names, std::vector<std::string>{"extract"});
  EXPECT_EQ(extract->children[0]->literal.str(), "YEAR");
  auto substr = Expr("SUBSTRING(s FROM 2 FOR 3)");
  EXPECT_EQ(substr->children.size(), 3u);
  EXPECT_EQ(Expr("substring(s, 2)")->children.size(), 2u);
  auto pos = Expr("POSITION('a' IN s)");
  EXPECT_EQ(pos->names, std::vector<std::string>{"position"});
  auto trim = Expr("TRIM(LEADING 'x' FROM s)");
  EXPECT_EQ(trim->names, std::vector<std::string>{"ltrim"});
  ASSERT_EQ(trim->children.size(), 2u);  // trim(trimStr, srcStr), Spark's function order
  EXPECT_EQ(trim->children[0]->literal.str(), "x");
  EXPECT_EQ(trim->children[1]->type, ExprType::kColumnRef);
  EXPECT_EQ(Expr("trim(s)")->children.size(), 1u);
  auto cd = Expr("current_date");
  EXPECT_TRUE(cd->no_parens);
  EXPECT_FALSE(Expr("current_date()")->no_parens);
  auto lam2 = Expr("aggregate(a, 0, (acc, x) -> acc + x)");
  EXPECT_EQ(lam2->children[2]->type, ExprType::kLambda);
  EXPECT_EQ(lam2->children[2]->lambda_params, (std::vector<std::string>{"acc", "x"}));
  auto row = Expr("(a, b) IN ((1, 2))");
  EXPECT_EQ(row->type, ExprType::kInList);
  EXPECT_EQ(row->children[0]->names, std::vector<std::string>{"struct"});
}

TEST(ExprParser, PredicatesAndSubqueries) {
  auto like = Expr("s LIKE 'a!%' ESCAPE '!'");
  EXPECT_EQ(like->type, ExprType::kLike);
  EXPECT_EQ(like->children.size(), 3u);
  EXPECT_EQ(like->children[2]->literal.str(), "!");
  EXPECT_EQ(like->ToString(), "s LIKE a!% ESCAPE '!'");
  EXPECT_EQ(ParseExpression("s LIKE 'a' ESCAPE 'xy'").status().error_class(),
            "INVALID_ESCAPE_CHAR");
  auto any = Expr("s LIKE ANY ('a%', 'b%')");
  EXPECT_EQ(any->quantifier, "any");
  EXPECT_EQ(any->children.size(), 3u);
  EXPECT_EQ(Expr("s NOT ILIKE ALL ('a%')")->quantifier, "all");
  EXPECT_TRUE(Expr("s NOT ILIKE ALL ('a%')")->negated);
  EXPECT_EQ(Expr("s LIKE SOME ('a%')")->quantifier, "any");
  auto rl = Expr("s RLIKE '^a'");
  EXPECT_EQ(rl->op, "rlike");
  EXPECT_EQ(Expr("s REGEXP '^a'")->op, "rlike");
  EXPECT_EQ(Expr("s ilike 'A%'")->ToString(), "ilike(s, A%)");
  auto in = Expr("a IN (SELECT b FROM t)");
  EXPECT_EQ(in->type, ExprType::kInSubquery);
  ASSERT_TRUE(in->subquery);
  auto nin = Expr("a NOT IN (SELECT b FROM t)");
  EXPECT_TRUE(nin->negated);
  auto ex = Expr("EXISTS (SELECT 1 FROM t WHERE t.a = s.a)");
  EXPECT_EQ(ex->type, ExprType::kExists);
  EXPECT_FALSE(ex->negated);
  auto nex = Expr("NOT EXISTS (SELECT 1)");
  EXPECT_EQ(nex->type, ExprType::kExists);
  EXPECT_TRUE(nex->negated);
  auto sc = Expr("(SELECT max(a) FROM t) + 1");
  EXPECT_EQ(sc->children[0]->type, ExprType::kScalarSubquery);
  auto un = Expr("b IS UNKNOWN");
  EXPECT_EQ(un->type, ExprType::kIsNull);
}

TEST(ExprParser, CaseForms) {
  auto simple = Expr("CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END");
  EXPECT_TRUE(simple->has_operand);
  EXPECT_TRUE(simple->has_else);
  EXPECT_EQ(simple->children.size(), 6u);
  auto searched = Expr("CASE WHEN a THEN 1 END");
  EXPECT_FALSE(searched->has_operand);
  EXPECT_FALSE(searched->has_else);
  EXPECT_EQ(searched->children.size(), 2u);
  EXPECT_FALSE(ParseExpression("CASE END").ok());
  EXPECT_FALSE(ParseExpression("CASE WHEN a THEN 1").ok());
}

TEST(ExprParser, DataTypes) {
  auto type = [](std::string_view s) {
    auto r = ParseDataType(s);
    EXPECT_TRUE(r.ok()) << s << ": " << r.status().ToString();
    return r.ok() ? (*r)->ToString() : std::string("?");
  };
  EXPECT_EQ(type("int"), "int");
  EXPECT_EQ(type("INTEGER"), "int");
  EXPECT_EQ(type("tinyint"), "tinyint");
  EXPECT_EQ(type("byte"), "tinyint");
  EXPECT_EQ(type("smallint"), "smallint");
  EXPECT_EQ(type("short"), "smallint");
  EXPECT_EQ(type("bigint"), "bigint");
  EXPECT_EQ(type("long"), "bigint");
  EXPECT_EQ(type("float"), "float");
  EXPECT_EQ(type("real"), "float");
  EXPECT_EQ(type("double"), "double");
  EXPECT_EQ(type("decimal"), "decimal(10,0)");
  EXPECT_EQ(type("dec(5)"), "decimal(5,0)");
  EXPECT_EQ(type("numeric(38, 10)"), "decimal(38,10)");
  EXPECT_EQ(type("string"), "string");
  EXPECT_EQ(type("varchar(10)"), "string");
  EXPECT_EQ(type("char(3)"), "string");
  EXPECT_EQ(type("binary"), "binary");
  EXPECT_EQ(type("boolean"), "boolean");
  EXPECT_EQ(type("date"), "date");
  EXPECT_EQ(type("timestamp"), "timestamp");
  EXPECT_EQ(type("timestamp_ltz"), "timestamp");
  EXPECT_EQ(type("timestamp_ntz"), "timestamp_ntz");
  EXPECT_EQ(type("array<int>"), "array<int>");
  EXPECT_EQ(type("map<string,array<int>>"), "map<string,array<int>>");
  EXPECT_EQ(type("array<array<int>>"), "array<array<int>>");
  EXPECT_EQ(type("struct<a:int, b string>"), "struct<a:int,b:string>");
  EXPECT_EQ(type("struct<>"), "struct<>");
  auto nn = ParseDataType("struct<a: int NOT NULL COMMENT 'x'>");
  ASSERT_TRUE(nn.ok());
  EXPECT_FALSE((*nn)->fields()[0].nullable);
  EXPECT_NE((*nn)->fields()[0].metadata_json.find("\"comment\""), std::string::npos);
  EXPECT_EQ(ParseDataType("decimal(39,0)").status().error_class(),
            "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION");
  EXPECT_EQ(ParseDataType("decimal(5,6)").status().error_class(), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ParseDataType("varchar").status().error_class(), "DATATYPE_MISSING_SIZE");
  EXPECT_EQ(ParseDataType("foo").status().error_class(), "UNSUPPORTED_DATATYPE");
  EXPECT_FALSE(ParseDataType("array<int").ok());
  EXPECT_FALSE(ParseDataType("int int").ok());
}

TEST(ExprParser, DepthLimit) {
  std::string deep(3000, '(');
  deep += "1";
  deep += std::string(3000, ')');
  auto r = ParseExpression(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error_class(), "PARSE_SYNTAX_ERROR");
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_FALSE(ParseExpression(chain).ok());
  std::string ok_chain = "1";
  for (int i = 0; i < 500; ++i) ok_chain += " OR a = 1";
  EXPECT_TRUE(ParseExpression(ok_chain).ok());
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_FALSE(ParseExpression(nots + "a").ok());
  std::string minus(5000, '-');
  EXPECT_FALSE(ParseExpression(minus + "a").ok());
  std::string types;
  for (int i = 0; i < 2000; ++i) types += "array<";
  types += "int";
  for (int i = 0; i < 2000; ++i) types += ">";
  EXPECT_FALSE(ParseDataType(types).ok());
  std::string fns;
  for (int i = 0; i < 2000; ++i) fns += "f(";
  fns += "1";
  for (int i = 0; i < 2000; ++i) fns += ")";
  EXPECT_FALSE(ParseExpression(fns).ok());
  std::string moderate;
  for (int i = 0; i < 50; ++i) moderate += "f(";
  moderate += "1";
  for (int i = 0; i < 50; ++i) moderate += ")";
  EXPECT_TRUE(ParseExpression(moderate).ok());
}

TEST(ExprParser, Errors) {
  EXPECT_FALSE(ParseExpression("").ok());
  EXPECT_FALSE(ParseExpression("1 +").ok());
  EXPECT_FALSE(ParseExpression("(1").ok());
  EXPECT_FALSE(ParseExpression("a b").ok());
  EXPECT_FALSE(ParseExpression("f(1,)").ok());
  EXPECT_FALSE(ParseExpression("CAST(a)").ok());
  EXPECT_FALSE(ParseExpression("'unterminated").ok());
  EXPECT_FALSE(ParseExpression("a IS 1").ok());
  EXPECT_FALSE(ParseExpression("X'zz'").ok());
  EXPECT_EQ(ParseExpression("X'zz'").status().error_class(), "INVALID_TYPED_LITERAL");
}

}  // namespace
}  // namespace silt::sql
