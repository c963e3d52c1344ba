// The TPC-H generator (cli/tpch_gen.h): row counts, keys and their relationships, and dbgen's
// value domains that the 22 queries' validation parameters select on, checked with SQL over the
// generated Delta tables at SF 0.01.
#include "cli/tpch_gen.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "silt/silt.h"

namespace silt::cli {
namespace {

class TpchGenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "silt-tpchgen-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = new std::string(tmpl);
    TpchOptions opts;
    opts.scale = 0.01;
    auto tables = GenerateTpch(*dir_ + "/data", opts);
    ASSERT_TRUE(tables.ok()) << tables.status().ToString();
    ASSERT_EQ(tables->size(), 8u);
    DatabaseOptions dbo;
    dbo.warehouse = *dir_ + "/wh";
    dbo.threads = 1;
    auto db = Database::Open(dbo);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = new std::shared_ptr<Database>(*db);
    con_ = new Connection(*db_);
    for (const auto& t : *tables) {
      auto r =
          con_->Query("CREATE TABLE " + t + " USING DELTA LOCATION '" + *dir_ + "/data/" + t + "'");
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }
  static void TearDownTestSuite() {
    delete con_;
    delete db_;
    if (dir_) std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  // The single value of a one-row, one-column query, as text.
  static std::string Scalar(const std::string& sql) {
    auto r = con_->Query(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n" << r.status().ToString();
    if (!r.ok() || (*r)->num_rows() != 1) return "<no row>";
    return (*r)->Row(0)[0].ToString();
  }
  static std::string* dir_;
  static std::shared_ptr<Database>* db_;
  static Connection* con_;
};
std::string* TpchGenTest::dir_ = nullptr;
std::shared_ptr<Database>* TpchGenTest::db_ = nullptr;
Connection* TpchGenTest::con_ = nullptr;

TEST_F(TpchGenTest, RowCountsAndKeys) {
  EXPECT_EQ(Scalar("SELECT count(*) FROM region"), "5");
  EXPECT_EQ(Scalar("SELECT count(*) FROM nation"), "25");
  EXPECT_EQ(Scalar("SELECT count(*) FROM supplier"), "100");
  EXPECT_EQ(Scalar("SELECT count(*) FROM customer"), "1500");
  EXPECT_EQ(Scalar("SELECT count(*) FROM part"), "2000");
  EXPECT_EQ(Scalar("SELECT count(*) FROM partsupp"), "8000");
  EXPECT_EQ(Scalar("SELECT count(*) FROM orders"), "15000");
  // Keys are 1..N; order keys are sparse (8 of every 32); a third of customers have no orders.
  EXPECT_EQ(Scalar("SELECT count(DISTINCT s_suppkey) || ' ' || min(s_suppkey) || ' ' || "
                   "max(s_suppkey) FROM supplier"),
            "100 1 100");
  EXPECT_EQ(Scalar("SELECT count(DISTINCT o_orderkey) || ' ' || max(o_orderkey) FROM orders"),
            "15000 59976");
  EXPECT_EQ(Scalar("SELECT count(*) FROM orders WHERE o_custkey % 3 = 0 OR o_custkey > 1500"), "0");
  // Four distinct suppliers per part; each lineitem's (part, supplier) is a partsupp row.
  EXPECT_EQ(Scalar("SELECT count(*) FROM (SELECT ps_partkey FROM partsupp GROUP BY ps_partkey "
                   "HAVING count(DISTINCT ps_suppkey) <> 4)"),
            "0");
  EXPECT_EQ(Scalar("SELECT count(*) FROM lineitem LEFT ANTI JOIN partsupp "
                   "ON l_partkey = ps_partkey AND l_suppkey = ps_suppkey"),
            "0");
  EXPECT_EQ(Scalar("SELECT count(*) FROM (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey "
                   "HAVING count(*) > 7 OR max(l_linenumber) <> count(*))"),
            "0");
  EXPECT_EQ(
      Scalar("SELECT count(*) FROM lineitem LEFT ANTI JOIN orders ON l_orderkey = o_orderkey"),
      "0");
}

TEST_F(TpchGenTest, DatesAndFlagsFollowTheSpecification) {
  // o_orderdate in [1992-01-01, 1998-08-02]; ship 1..121 days after, commit 30..90, receipt 1..30
  // after shipping; flags from the current date 1995-06-17.
  EXPECT_EQ(
      Scalar(
          "SELECT min(o_orderdate) >= DATE '1992-01-01' AND max(o_orderdate) <= DATE '1998-08-02' "
          "AND max(o_orderdate) >= DATE '1998-07-01' FROM orders"),
      "true");
  EXPECT_EQ(Scalar("SELECT count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
                   "WHERE datediff(l_shipdate, o_orderdate) NOT BETWEEN 1 AND 121 "
                   "OR datediff(l_commitdate, o_orderdate) NOT BETWEEN 30 AND 90 "
                   "OR datediff(l_receiptdate, l_shipdate) NOT BETWEEN 1 AND 30"),
            "0");
  EXPECT_EQ(Scalar("SELECT count(*) FROM lineitem WHERE (l_receiptdate <= DATE '1995-06-17') <> "
                   "(l_returnflag IN ('R', 'A')) OR (l_shipdate > DATE '1995-06-17') <> "
                   "(l_linestatus = 'O')"),
            "0");
  EXPECT_EQ(
      Scalar(
          "SELECT count(*) FROM orders JOIN (SELECT l_orderkey, count_if(l_linestatus = 'F') AS f, "
          "count(*) AS n FROM lineitem GROUP BY l_orderkey) ON o_orderkey = l_orderkey "
          "WHERE o_orderstatus <> CASE WHEN f = n THEN 'F' WHEN f = 0 THEN 'O' ELSE 'P' END"),
      "0");
}

TEST_F(TpchGenTest, ValueDomainsOfTheValidationParameters) {
  // p_name: five distinct words of dbgen's colours; Q9 '%green%' and Q20 'forest%' select.
  EXPECT_EQ(Scalar("SELECT count(*) FROM part WHERE size(array_distinct(split(p_name, ' '))) <> 5"),
            "0");
  EXPECT_EQ(
      Scalar("SELECT count(DISTINCT w) FROM part LATERAL VIEW explode(split(p_name, ' ')) AS w"),
      "92");
  EXPECT_EQ(Scalar("SELECT count(*) > 50 FROM part WHERE p_name LIKE '%green%'"), "true");
  EXPECT_EQ(Scalar("SELECT count(*) > 5 FROM part WHERE p_name LIKE 'forest%'"), "true");
  // p_type: 6 × 5 × 5 syllables, p_container 5 × 8, p_brand Brand#MN from the manufacturer M.
  EXPECT_EQ(Scalar("SELECT count(DISTINCT p_type) FROM part"), "150");
  EXPECT_EQ(Scalar("SELECT count(DISTINCT p_container) FROM part"), "40");
  EXPECT_EQ(
      Scalar("SELECT count(*) FROM part WHERE substring(p_brand, 7, 1) <> substring(p_mfgr, 14, 1) "
             "OR p_brand NOT RLIKE '^Brand#[1-5][1-5]$' OR p_size NOT BETWEEN 1 AND 50"),
      "0");
  EXPECT_EQ(Scalar("SELECT count(*) FROM part WHERE p_type = 'ECONOMY ANODIZED STEEL' OR "
                   "(p_brand = 'Brand#23' AND p_container = 'MED BOX')") != "0",
            true);
  // p_retailprice = (90000 + (partkey / 10) mod 20001 + 100 × (partkey mod 1000)) / 100.
  EXPECT_EQ(Scalar("SELECT count(*) FROM part WHERE p_retailprice * 100 <> "
                   "90000 + (p_partkey DIV 10) % 20001 + 100 * (p_partkey % 1000)"),
            "0");
  EXPECT_EQ(
      Scalar(
          "SELECT count(*) FROM lineitem JOIN part ON l_partkey = p_partkey "
          "WHERE l_extendedprice <> l_quantity * p_retailprice OR l_quantity NOT BETWEEN 1 AND 50 "
          "OR l_discount NOT BETWEEN 0 AND 0.10 OR l_tax NOT BETWEEN 0 AND 0.08"),
      "0");
  EXPECT_EQ(
      Scalar(
          "SELECT min(ps_supplycost) >= 1 AND max(ps_supplycost) <= 1000 AND min(ps_availqty) >= 1 "
          "AND max(ps_availqty) <= 9999 FROM partsupp"),
      "true");
  // c_phone's country code is the nation key + 10 (Q22); c_acctbal in [-999.99, 9999.99].
  EXPECT_EQ(Scalar("SELECT count(*) FROM customer WHERE CAST(substring(c_phone, 1, 2) AS INT) <> "
                   "c_nationkey + 10 "
                   "OR c_phone NOT RLIKE '^[0-9]{2}-[0-9]{3}-[0-9]{3}-[0-9]{4}$' "
                   "OR c_acctbal NOT BETWEEN -999.99 AND 9999.99"),
            "0");
  EXPECT_EQ(Scalar("SELECT count(DISTINCT c_mktsegment) FROM customer"), "5");
  EXPECT_EQ(Scalar("SELECT count(DISTINCT l_shipmode) || ' ' || count(DISTINCT l_shipinstruct) "
                   "FROM lineitem"),
            "7 4");
  EXPECT_EQ(Scalar("SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR' AND l_shipinstruct = "
                   "'DELIVER IN PERSON'") != "0",
            true);
  // Nations and regions as in the specification (Q5 ASIA, Q7 FRANCE/GERMANY, Q8 BRAZIL/AMERICA …).
  EXPECT_EQ(
      Scalar(
          "SELECT concat_ws(',', collect_list(n_name)) FROM (SELECT n_name FROM nation JOIN region "
          "ON n_regionkey = r_regionkey WHERE r_name = 'AMERICA' ORDER BY n_name)"),
      "ARGENTINA,BRAZIL,CANADA,PERU,UNITED STATES");
  // Comments: Q13's '%special%requests%' selects some orders but few.
  EXPECT_EQ(
      Scalar("SELECT count_if(o_comment LIKE '%special%requests%') BETWEEN 1 AND 1500 FROM orders"),
      "true");
}

}  // namespace
}  // namespace silt::cli
