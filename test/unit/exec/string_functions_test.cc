// String family: Spark's documented examples plus NULL / empty / unicode / edge cases.
#include <gtest/gtest.h>

#include "unit/exec/function_test_util.h"

namespace silt::exec::fntest {
namespace {

std::string E(const std::string& name, const std::vector<Value>& args, const BindContext& b = {}) {
  return J(Eval(name, args, {}, b));
}
// The last argument must be a literal.
std::string EK(const std::string& name, const std::vector<Value>& args) {
  return J(Eval(name, args, {}, {}, args.size() - 1));
}
std::string Q(const std::string& s) { return "\"" + s + "\""; }

TEST(StringFunctions, ConcatAndConcatWs) {
  EXPECT_EQ(E("concat", {S("Spark"), S("SQL")}), Q("SparkSQL"));
  EXPECT_EQ(E("||", {S("a"), S("b")}), Q("ab"));
  EXPECT_EQ(E("concat", {S("a"), Null(DataType::String())}), "null");
  EXPECT_EQ(E("concat", {}), Q(""));
  EXPECT_EQ(E("concat", {Bin("ab"), Bin("c")}), Q("0x616263"));
  EXPECT_EQ(E("concat_ws", {S(" "), S("Spark"), S("SQL")}), Q("Spark SQL"));
  EXPECT_EQ(E("concat_ws", {S("s")}), Q(""));
  EXPECT_EQ(E("concat_ws", {S("/"), S("a"), Null(DataType::String()), S("b")}), Q("a/b"));
  EXPECT_EQ(E("concat_ws", {Null(DataType::String()), S("a")}), "null");
  Value arr =
      Value::Nested(DataType::List(DataType::String()), {S("x"), Null(DataType::String()), S("y")});
  EXPECT_EQ(E("concat_ws", {S(","), S("a"), arr}), Q("a,x,y"));
  Value a1 = Value::Nested(DataType::List(DataType::Int32()), {I(1), I(2)});
  Value a2 = Value::Nested(DataType::List(DataType::Int32()), {I(3)});
  EXPECT_EQ(E("concat", {a1, a2}), "[1,2,3]");
}

TEST(StringFunctions, CaseAndLength) {
  EXPECT_EQ(E("upper", {S("SparkSql")}), Q("SPARKSQL"));
  EXPECT_EQ(E("ucase", {S("abc")}), Q("ABC"));
  EXPECT_EQ(E("lower", {S("SparkSql")}), Q("sparksql"));
  EXPECT_EQ(E("lcase", {S("ÄÖÜ")}), Q("äöü"));
  EXPECT_EQ(E("upper", {S("straße")}), Q("STRASSE"));
  EXPECT_EQ(E("upper", {Null(DataType::String())}), "null");
  EXPECT_EQ(E("upper", {I(12)}), Q("12"));
  EXPECT_EQ(E("length", {S("Spark SQL ")}), "10");
  EXPECT_EQ(E("char_length", {S("héllo")}), "5");
  EXPECT_EQ(E("character_length", {S("")}), "0");
  EXPECT_EQ(E("octet_length", {S("héllo")}), "6");
  EXPECT_EQ(E("bit_length", {S("Spark SQL")}), "72");
  EXPECT_EQ(E("length", {Bin("ab")}), "2");
  EXPECT_EQ(E("length", {Null(DataType::String())}), "null");
  EXPECT_EQ(J(Eval("upper", {S("a"), S("b")})), "error:WRONG_NUM_ARGS");
  Value arr = Value::Nested(DataType::List(DataType::Int32()), {I(1)});
  EXPECT_EQ(J(Eval("upper", {arr})), "error:DATATYPE_MISMATCH");
}

TEST(StringFunctions, Substring) {
  EXPECT_EQ(E("substring", {S("Spark SQL"), I(5)}), Q("k SQL"));
  EXPECT_EQ(E("substring", {S("Spark SQL"), I(-3)}), Q("SQL"));
  EXPECT_EQ(E("substring", {S("Spark SQL"), I(5), I(1)}), Q("k"));
  EXPECT_EQ(E("substr", {S("Spark SQL"), I(0), I(2)}), Q("Sp"));
  EXPECT_EQ(E("substr", {S("Spark SQL"), I(-100), I(3)}), Q(""));
  EXPECT_EQ(E("substr", {S("Spark SQL"), I(-10), I(3)}), Q("Sp"));
  EXPECT_EQ(E("substr", {S("Spark SQL"), I(2), I(-1)}), Q(""));
  EXPECT_EQ(E("substr", {S("Spark SQL"), I(100)}), Q(""));
  EXPECT_EQ(E("substr", {S("héllo"), I(2), I(2)}), Q("él"));
  EXPECT_EQ(E("substr", {S("abc"), Null(DataType::Int32())}), "null");
  EXPECT_EQ(E("substr", {Bin("abcd"), I(-2)}), Q("0x6364"));
  EXPECT_EQ(E("left", {S("Spark SQL"), I(3)}), Q("Spa"));
  EXPECT_EQ(E("left", {S("Spark SQL"), I(-1)}), Q(""));
  EXPECT_EQ(E("right", {S("Spark SQL"), I(3)}), Q("SQL"));
  EXPECT_EQ(E("right", {S("ab"), I(5)}), Q("ab"));
  EXPECT_EQ(E("right", {S("ab"), I(0)}), Q(""));
}

TEST(StringFunctions, Trim) {
  EXPECT_EQ(E("trim", {S("    SparkSQL   ")}), Q("SparkSQL"));
  EXPECT_EQ(E("trim", {S("\tx ")}), Q("\\tx"));  // only spaces
  EXPECT_EQ(E("trim", {S("SL"), S("SSparkSQLS")}), Q("parkSQ"));
  EXPECT_EQ(E("ltrim", {S("    SparkSQL   ")}), Q("SparkSQL   "));
  EXPECT_EQ(E("ltrim", {S("Sp"), S("SSparkSQLS")}), Q("arkSQLS"));
  EXPECT_EQ(E("rtrim", {S("    SparkSQL   ")}), Q("    SparkSQL"));
  EXPECT_EQ(E("rtrim", {S("SLQ"), S("SSparkSQLS")}), Q("SSpark"));
  EXPECT_EQ(E("btrim", {S("SSparkSQLS"), S("SL")}), Q("parkSQ"));
  EXPECT_EQ(E("trim", {S("é"), S("ééaéé")}), Q("a"));
  EXPECT_EQ(E("trim", {Null(DataType::String()), S("x")}), "null");
  EXPECT_EQ(E("trim", {S("")}), Q(""));
}

TEST(StringFunctions, Pad) {
  EXPECT_EQ(E("lpad", {S("hi"), I(5), S("??")}), Q("???hi"));
  EXPECT_EQ(E("lpad", {S("hi"), I(1), S("??")}), Q("h"));
  EXPECT_EQ(E("lpad", {S("hi"), I(5)}), Q("   hi"));
  EXPECT_EQ(E("rpad", {S("hi"), I(5), S("??")}), Q("hi???"));
  EXPECT_EQ(E("rpad", {S("hi"), I(1), S("??")}), Q("h"));
  EXPECT_EQ(E("rpad", {S("hi"), I(5)}), Q("hi   "));
  EXPECT_EQ(E("lpad", {S("hi"), I(-1), S("x")}), Q(""));
  EXPECT_EQ(E("lpad", {S("hi"), I(5), S("")}), Q("hi"));
  EXPECT_EQ(E("lpad", {S("é"), I(3), S("ü")}), Q("üüé"));
  EXPECT_EQ(E("lpad", {Bin("\x01"), I(3)}), Q("0x000001"));
  EXPECT_EQ(E("rpad", {S("x"), Null(DataType::Int32())}), "null");
}

TEST(StringFunctions, Search) {
  EXPECT_EQ(E("instr", {S("SparkSQL"), S("SQL")}), "6");
  EXPECT_EQ(E("instr", {S("abc"), S("z")}), "0");
  EXPECT_EQ(E("instr", {S("abc"), S("")}), "1");
  EXPECT_EQ(E("instr", {S("héllo"), S("l")}), "3");
  EXPECT_EQ(E("locate", {S("bar"), S("foobarbar")}), "4");
  EXPECT_EQ(E("locate", {S("bar"), S("foobarbar"), I(5)}), "7");
  EXPECT_EQ(E("position", {S("bar"), S("foobarbar")}), "4");
  EXPECT_EQ(E("locate", {S("bar"), S("foobarbar"), I(0)}), "0");
  EXPECT_EQ(E("locate", {S("bar"), S("foobarbar"), Null(DataType::Int32())}), "0");
  EXPECT_EQ(E("locate", {Null(DataType::String()), S("foobarbar")}), "null");
  EXPECT_EQ(E("locate", {S(""), S("abc"), I(10)}), "1");
  EXPECT_EQ(E("startswith", {S("Spark SQL"), S("Spark")}), "true");
  EXPECT_EQ(E("startswith", {S("Spark SQL"), S("SQL")}), "false");
  EXPECT_EQ(E("startswith", {S("Spark SQL"), Null(DataType::String())}), "null");
  EXPECT_EQ(E("endswith", {S("Spark SQL"), S("SQL")}), "true");
  EXPECT_EQ(E("contains", {S("Spark SQL"), S("k S")}), "true");
  EXPECT_EQ(E("contains", {S("Spark SQL"), S("")}), "true");
  EXPECT_EQ(E("find_in_set", {S("ab"), S("abc,b,ab,c,def")}), "3");
  EXPECT_EQ(E("find_in_set", {S("a,b"), S("a,b")}), "0");
  EXPECT_EQ(E("substring_index", {S("www.apache.org"), S("."), I(2)}), Q("www.apache"));
  EXPECT_EQ(E("substring_index", {S("www.apache.org"), S("."), I(-2)}), Q("apache.org"));
  EXPECT_EQ(E("substring_index", {S("www.apache.org"), S("."), I(0)}), Q(""));
  EXPECT_EQ(E("substring_index", {S("www.apache.org"), S("."), I(5)}), Q("www.apache.org"));
}

TEST(StringFunctions, ReplaceTranslateReverseRepeat) {
  EXPECT_EQ(E("replace", {S("ABCabc"), S("abc"), S("DEF")}), Q("ABCDEF"));
  EXPECT_EQ(E("replace", {S("ABCabc"), S("abc")}), Q("ABC"));
  EXPECT_EQ(E("replace", {S("abc"), S(""), S("x")}), Q("abc"));
  EXPECT_EQ(E("translate", {S("AaBbCc"), S("abc"), S("123")}), Q("A1B2C3"));
  EXPECT_EQ(E("translate", {S("AaBbCc"), S("abc"), S("1")}), Q("A1BC"));
  EXPECT_EQ(E("translate", {S("aaa"), S("aa"), S("xy")}), Q("xxx"));
  EXPECT_EQ(E("translate", {S("héllo"), S("é"), S("e")}), Q("hello"));
  EXPECT_EQ(E("reverse", {S("Spark SQL")}), Q("LQS krapS"));
  EXPECT_EQ(E("reverse", {S("héllo")}), Q("olléh"));
  Value arr = Value::Nested(DataType::List(DataType::Int32()), {I(2), I(1), I(4), I(3)});
  EXPECT_EQ(E("reverse", {arr}), "[3,4,1,2]");
  EXPECT_EQ(E("repeat", {S("123"), I(2)}), Q("123123"));
  EXPECT_EQ(E("repeat", {S("123"), I(-1)}), Q(""));
  EXPECT_EQ(E("space", {I(2)}), Q("  "));
  EXPECT_EQ(E("initcap", {S("sPark sql")}), Q("Spark Sql"));
  EXPECT_EQ(E("initcap", {S("élan vital")}), Q("Élan Vital"));
  EXPECT_EQ(E("overlay", {S("Spark SQL"), S("_"), I(6)}), Q("Spark_SQL"));
  EXPECT_EQ(E("overlay", {S("Spark SQL"), S("CORE"), I(7)}), Q("Spark CORE"));
  EXPECT_EQ(E("overlay", {S("Spark SQL"), S("ANSI "), I(7), I(0)}), Q("Spark ANSI SQL"));
  EXPECT_EQ(E("overlay", {S("Spark SQL"), S("tructured"), I(2), I(4)}), Q("Structured SQL"));
  EXPECT_EQ(E("elt", {I(1), S("scala"), S("java")}), Q("scala"));
  EXPECT_EQ(E("elt", {I(3), S("scala"), S("java")}), "null");
  BindContext ansi;
  ansi.ansi = true;
  EXPECT_EQ(E("elt", {I(3), S("scala"), S("java")}, ansi), "error:INVALID_ARRAY_INDEX");
}

TEST(StringFunctions, SplitAndSplitPart) {
  EXPECT_EQ(E("split", {S("oneAtwoBthreeC"), S("[ABC]")}), R"(["one","two","three",""])");
  EXPECT_EQ(E("split", {S("oneAtwoBthreeC"), S("[ABC]"), I(-1)}), R"(["one","two","three",""])");
  EXPECT_EQ(E("split", {S("oneAtwoBthreeC"), S("[ABC]"), I(2)}), R"(["one","twoBthreeC"])");
  EXPECT_EQ(E("split", {S("abc"), S("")}), R"(["a","b","c"])");
  EXPECT_EQ(E("split", {S("abc"), S(""), I(2)}), R"(["a","bc"])");
  EXPECT_EQ(E("split", {S(""), S(",")}), R"([""])");
  EXPECT_EQ(E("split", {S("a,b"), S("x")}), R"(["a,b"])");
  EXPECT_EQ(E("split", {Null(DataType::String()), S(",")}), "null");
  EXPECT_EQ(E("split_part", {S("11.12.13"), S("."), I(3)}), Q("13"));
  EXPECT_EQ(E("split_part", {S("11.12.13"), S("."), I(-1)}), Q("13"));
  EXPECT_EQ(E("split_part", {S("11.12.13"), S("."), I(4)}), Q(""));
  EXPECT_EQ(E("split_part", {S("11.12.13"), S(""), I(1)}), Q("11.12.13"));
  EXPECT_EQ(E("split_part", {S("11.12.13"), S("."), I(0)}), "error:INVALID_INDEX_OF_ZERO");
}

TEST(StringFunctions, Regexp) {
  EXPECT_EQ(E("regexp_replace", {S("100-200"), S("(\\d+)"), S("num")}), Q("num-num"));
  EXPECT_EQ(E("regexp_replace", {S("100-200"), S("(\\d+)-(\\d+)"), S("$2-$1")}), Q("200-100"));
  EXPECT_EQ(E("regexp_replace", {S("abc"), S("x*"), S("-")}), Q("-a-b-c-"));
  EXPECT_EQ(E("regexp_replace", {S("a.b"), S("\\."), S("\\$")}), Q("a$b"));
  EXPECT_EQ(EK("regexp_replace", {S("aaa"), S("a"), S("b"), I(2)}), Q("abb"));
  EXPECT_EQ(E("regexp_replace", {S("abc"), S("b"), S("$2")}), "error:INVALID_PARAMETER_VALUE");
  EXPECT_EQ(E("regexp_extract", {S("100-200"), S("(\\d+)-(\\d+)"), I(1)}), Q("100"));
  EXPECT_EQ(E("regexp_extract", {S("100-200"), S("(\\d+)-(\\d+)")}), Q("100"));
  EXPECT_EQ(E("regexp_extract", {S("100-200"), S("(\\d+)-(\\d+)"), I(0)}), Q("100-200"));
  EXPECT_EQ(E("regexp_extract", {S("foo"), S("(\\d+)"), I(1)}), Q(""));
  EXPECT_EQ(E("regexp_extract", {S("a"), S("(a)|(b)"), I(2)}), Q(""));
  EXPECT_EQ(E("regexp_extract", {S("1-2"), S("(\\d)"), I(3)}),
            "error:INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX");
  EXPECT_EQ(E("regexp_extract_all", {S("100-200, 300-400"), S("(\\d+)-(\\d+)"), I(1)}),
            R"(["100","300"])");
  EXPECT_EQ(E("regexp_extract_all", {S("100-200, 300-400"), S("(\\d+)-(\\d+)"), I(2)}),
            R"(["200","400"])");
  EXPECT_EQ(E("rlike", {S("%SystemDrive%\\Users\\John"), S("%SystemDrive%\\\\Users.*")}), "true");
  EXPECT_EQ(E("regexp", {S("abc"), S("^b")}), "false");
  EXPECT_EQ(E("regexp_like", {S("abc"), S("b")}), "true");
  EXPECT_EQ(E("rlike", {S("ABC"), S("(?i)abc")}), "true");
  EXPECT_EQ(E("rlike", {S("abc"), S("[[:alpha:]]+")}), "true");
  EXPECT_EQ(E("rlike", {S("abc"), S("\\p{Alpha}+")}), "true");
  EXPECT_EQ(E("rlike", {Null(DataType::String()), S("a")}), "null");
  EXPECT_EQ(E("rlike", {S("abc"), S("(")}), "error:INVALID_PARAMETER_VALUE.PATTERN");
  EXPECT_EQ(E("rlike", {S("abc"), S("a(?=b)")}), "error:INVALID_PARAMETER_VALUE.PATTERN");
  EXPECT_EQ(E("rlike", {S("aa"), S("(a)\\1")}), "error:INVALID_PARAMETER_VALUE.PATTERN");
  EXPECT_EQ(E("rlike", {S("aa"), S("a++")}), "error:INVALID_PARAMETER_VALUE.PATTERN");
  EXPECT_EQ(E("regexp_count",
              {S("Steven Jones and Stephen Smith are the best players"), S("Ste(v|ph)en")}),
            "2");
  EXPECT_EQ(E("regexp_substr",
              {S("Steven Jones and Stephen Smith are the best players"), S("Ste(v|ph)en")}),
            Q("Steven"));
  EXPECT_EQ(E("regexp_substr", {S("abc"), S("x")}), "null");
  EXPECT_EQ(E("regexp_instr", {S("user@spark.apache.org"), S("@[^.]*")}), "5");
  EXPECT_EQ(E("regexp_instr", {S("abc"), S("x")}), "0");
}

TEST(StringFunctions, RegexpNonConstantPatternColumn) {
  auto rows =
      EvalRows("rlike", {Col(DataType::String(), {S("abc"), S("xyz"), Null(DataType::String())}),
                         Col(DataType::String(), {S("b"), S("b"), S("b")})});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)[0].ToJson(), "true");
  EXPECT_EQ((*rows)[1].ToJson(), "false");
  EXPECT_EQ((*rows)[2].ToJson(), "null");
}

TEST(StringFunctions, Like) {
  EXPECT_EQ(E("like", {S("Spark"), S("_park")}), "true");
  EXPECT_EQ(E("like", {S("Spark"), S("Sp%")}), "true");
  EXPECT_EQ(E("like", {S("Spark"), S("%rk")}), "true");
  EXPECT_EQ(E("like", {S("Spark"), S("%ar%")}), "true");
  EXPECT_EQ(E("like", {S("Spark"), S("S%a%k")}), "true");
  EXPECT_EQ(E("like", {S("Spark"), S("S%k%a")}), "false");
  EXPECT_EQ(E("like", {S("ab"), S("a%%b")}), "true");
  EXPECT_EQ(E("like", {S("a"), S("a%a")}), "false");
  EXPECT_EQ(E("like", {S("Spark"), S("spark")}), "false");
  EXPECT_EQ(E("like", {S(""), S("%")}), "true");
  EXPECT_EQ(E("like", {S(""), S("_")}), "false");
  EXPECT_EQ(E("like", {S("é"), S("_")}), "true");
  EXPECT_EQ(E("like", {S("a\nb"), S("a_b")}), "true");
  EXPECT_EQ(E("like", {S("%SystemDrive%\\Users\\John"), S("\\%SystemDrive\\%\\\\Users%")}), "true");
  EXPECT_EQ(EK("like", {S("%SystemDrive%/Users/John"), S("/%SystemDrive/%//Users%"), S("/")}),
            "true");
  EXPECT_EQ(E("like", {S("a_b"), S("a\\_b")}), "true");
  EXPECT_EQ(E("like", {S("axb"), S("a\\_b")}), "false");
  EXPECT_EQ(E("like", {S("ab"), S("a\\b")}), "error:INVALID_FORMAT.ESC_IN_THE_MIDDLE");
  EXPECT_EQ(E("like", {S("ab"), S("ab\\")}), "error:INVALID_FORMAT.ESC_AT_THE_END");
  EXPECT_EQ(E("like", {Null(DataType::String()), S("a")}), "null");
  EXPECT_EQ(E("like", {S("a"), Null(DataType::String())}), "null");
  EXPECT_EQ(E("ilike", {S("Spark"), S("_PARK")}), "true");
  EXPECT_EQ(E("ilike", {S("ÄBC"), S("äb%")}), "true");
  // A literal pattern over a column with NULLs (the hot path).
  auto rows = EvalRows(
      "like", {Col(DataType::String(), {S("apple"), Null(DataType::String()), S("banana")}),
               Lit(S("%an%"))});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].ToJson(), "false");
  EXPECT_EQ((*rows)[1].ToJson(), "null");
  EXPECT_EQ((*rows)[2].ToJson(), "true");
}

TEST(StringFunctions, AsciiChrEncodings) {
  EXPECT_EQ(E("ascii", {S("222")}), "50");
  EXPECT_EQ(E("ascii", {I(2)}), "50");
  EXPECT_EQ(E("ascii", {S("")}), "0");
  EXPECT_EQ(E("ascii", {S("é")}), "233");
  EXPECT_EQ(E("chr", {L(65)}), Q("A"));
  EXPECT_EQ(E("char", {L(321)}), Q("A"));
  EXPECT_EQ(E("chr", {L(-1)}), Q(""));
  EXPECT_EQ(E("chr", {L(233)}), Q("é"));
  EXPECT_EQ(E("base64", {S("Spark SQL")}), Q("U3BhcmsgU1FM"));
  EXPECT_EQ(E("base64", {Bin("")}), Q(""));
  EXPECT_EQ(E("base64", {Bin("a")}), Q("YQ=="));
  EXPECT_EQ(E("unbase64", {S("U3BhcmsgU1FM")}), Q("0x537061726b2053514c"));
  EXPECT_EQ(E("hex", {L(17)}), Q("11"));
  EXPECT_EQ(E("hex", {L(-1)}), Q("FFFFFFFFFFFFFFFF"));
  EXPECT_EQ(E("hex", {S("Spark SQL")}), Q("537061726B2053514C"));
  EXPECT_EQ(E("unhex", {S("537061726B2053514C")}), Q("0x537061726b2053514c"));
  EXPECT_EQ(E("unhex", {S("F")}), Q("0x0f"));
  EXPECT_EQ(E("unhex", {S("GG")}), "null");
  EXPECT_EQ(EK("to_binary", {S("abc"), S("utf-8")}), Q("0x616263"));
  EXPECT_EQ(EK("to_binary", {S("4142")}), Q("0x4142"));
  EXPECT_EQ(EK("to_binary", {S("zz"), S("hex")}), "error:CONVERSION_INVALID_INPUT");
  EXPECT_EQ(EK("try_to_binary", {S("zz"), S("hex")}), "null");
  EXPECT_EQ(EK("to_binary", {S("abc"), S("bad")}), "error:DATATYPE_MISMATCH");
  EXPECT_EQ(E("encode", {S("abc"), S("utf-8")}), Q("0x616263"));
  EXPECT_EQ(E("decode", {Bin("abc"), S("UTF-8")}), Q("abc"));
}

TEST(StringFunctions, Base64ChunksLikeSpark35) {
  std::string s(60, 'a');
  auto r = Eval("base64", {Bin(s)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->str().size(), 82u);  // 80 symbols + CRLF after 76
  EXPECT_EQ(r->str().substr(76, 2), "\r\n");
  auto back = Eval("unbase64", {Value::String(r->str())});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->str(), s);
}

TEST(StringFunctions, Digests) {
  EXPECT_EQ(E("md5", {S("Spark")}), Q("8cde774d6f7333752ed72cacddb05126"));
  EXPECT_EQ(E("sha1", {S("Spark")}), Q("85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c"));
  EXPECT_EQ(E("sha", {S("Spark")}), Q("85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c"));
  EXPECT_EQ(E("sha2", {S("Spark"), I(256)}),
            Q("529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b"));
  EXPECT_EQ(E("sha2", {S("Spark"), I(0)}),
            Q("529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b"));
  EXPECT_EQ(E("sha2", {S("Spark"), I(100)}), "null");
  EXPECT_EQ(E("crc32", {S("Spark")}), "1557323817");
  EXPECT_EQ(E("md5", {Null(DataType::String())}), "null");
}

TEST(StringFunctions, FormatString) {
  EXPECT_EQ(E("format_string", {S("Hello World %d %s"), I(100), S("days")}),
            Q("Hello World 100 days"));
  EXPECT_EQ(E("printf", {S("Hello World %d %s"), I(100), S("days")}), Q("Hello World 100 days"));
  EXPECT_EQ(E("format_string",
              {S("%.2f|%5d|%-5s|%05d|%x|%X|%%"), D(0.125), I(42), S("ab"), I(-42), I(255), L(-1)}),
            Q("0.13|   42|ab   |-0042|ff|FFFFFFFFFFFFFFFF|%"));
  EXPECT_EQ(E("format_string", {S("%s %s"), D(1.0), D(1e10)}), Q("1.0 1.0E10"));
  EXPECT_EQ(E("format_string", {S("%,d"), L(1234567)}), Q("1,234,567"));
  EXPECT_EQ(E("format_string", {S("%2$s %1$s"), S("a"), S("b")}), Q("b a"));
  EXPECT_EQ(E("format_string", {S("%s"), Null(DataType::String())}), Q("null"));
  EXPECT_EQ(E("format_string", {S("%e"), D(12345.678)}), Q("1.234568e+04"));
  EXPECT_EQ(E("format_string", {S("%d"), S("x")}), "error:INVALID_PARAMETER_VALUE");
  EXPECT_EQ(E("format_string", {S("%s %s"), S("x")}), "error:INVALID_PARAMETER_VALUE");
  EXPECT_EQ(E("format_string", {Null(DataType::String()), S("x")}), "null");
}

TEST(StringFunctions, FormatNumber) {
  EXPECT_EQ(E("format_number", {Dec(12, 6, 12332123456), I(4)}), Q("12,332.1235"));
  EXPECT_EQ(E("format_number", {Dec(12, 6, 12332123456), S("##################.###")}),
            Q("12332.123"));
  EXPECT_EQ(E("format_number", {D(12332.123456), I(4)}), Q("12,332.1235"));
  EXPECT_EQ(E("format_number", {D(0.125), I(2)}), Q("0.12"));  // HALF_EVEN on the exact value
  EXPECT_EQ(E("format_number", {D(-1234.5), I(0)}), Q("-1,234"));
  EXPECT_EQ(E("format_number", {L(1234567), I(2)}), Q("1,234,567.00"));
  EXPECT_EQ(E("format_number", {D(1.5), I(-1)}), "null");
  EXPECT_EQ(E("format_number", {Null(DataType::Double()), I(2)}), "null");
}

TEST(StringFunctions, SoundexLevenshteinUuid) {
  EXPECT_EQ(E("soundex", {S("Miller")}), Q("M460"));
  EXPECT_EQ(E("soundex", {S("Robert")}), Q("R163"));
  EXPECT_EQ(E("soundex", {S("Tymczak")}), Q("T522"));
  EXPECT_EQ(E("soundex", {S("1abc")}), Q("1abc"));
  EXPECT_EQ(E("levenshtein", {S("kitten"), S("sitting")}), "3");
  EXPECT_EQ(E("levenshtein", {S("kitten"), S("sitting"), I(2)}), "-1");
  EXPECT_EQ(E("levenshtein", {S(""), S("abc")}), "3");
  auto rows = EvalRows("uuid", {}, {}, {}, 3);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].str().size(), 36u);
  EXPECT_EQ((*rows)[0].str()[14], '4');
  EXPECT_NE((*rows)[0].str(), (*rows)[1].str());
  auto e = Bind("uuid", {});
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE((*e)->deterministic);
}

TEST(StringFunctions, EmptyInput) {
  auto rows = EvalRows("upper", {Col(DataType::String(), {})});
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
  auto rows2 = EvalRows("like", {Col(DataType::String(), {}), Lit(S("a%"))});
  ASSERT_TRUE(rows2.ok());
  EXPECT_TRUE(rows2->empty());
}

}  // namespace
}  // namespace silt::exec::fntest
