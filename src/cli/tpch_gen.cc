#include "cli/tpch_gen.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "delta/table_writer.h"
#include "io/object_store.h"
#include "io/object_store_factory.h"

namespace silt::cli {

namespace {

// splitmix64: fast, deterministic, good enough for data generation.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

// dbgen's text grammar (dists.dss): comments are substrings of a pseudo-text built from these
// word classes, so LIKE patterns such as '%special%requests%' (Q13) select about as often.
const char* kNouns[] = {
    "foxes",     "ideas",     "theodolites", "pinto beans", "instructions",   "dependencies",
    "excuses",   "platelets", "asymptotes",  "courts",      "dolphins",       "multipliers",
    "sauternes", "warthogs",  "frets",       "dinos",       "attainments",    "somas",
    "Tiresias",  "patterns",  "forges",      "braids",      "hockey players", "frays",
    "warhorses", "dugouts",   "notornis",    "epitaphs",    "pearls",         "tithes",
    "waters",    "orbits",    "gifts",       "sheaves",     "depths",         "sentiments",
    "decoys",    "realms",    "pains",       "grouches",    "escapades",      "packages",
    "requests",  "accounts",  "deposits"};
const char* kVerbs[] = {"sleep",  "wake",    "are",    "cajole",    "haggle",   "nag",     "use",
                        "boost",  "affix",   "detect", "integrate", "maintain", "nod",     "was",
                        "lose",   "sublate", "solve",  "thrash",    "promise",  "engage",  "hinder",
                        "print",  "x-ray",   "breach", "eat",       "grow",     "impress", "mold",
                        "poach",  "serve",   "run",    "dazzle",    "snooze",   "doze",    "unwind",
                        "kindle", "play",    "hang",   "believe",   "doubt"};
const char* kAdjectives[] = {"furious", "sly",     "careful",  "blithe",    "quick",    "fluffy",
                             "slow",    "quiet",   "ruthless", "thin",      "close",    "dogged",
                             "daring",  "brave",   "stealthy", "permanent", "enticing", "idle",
                             "busy",    "regular", "final",    "ironic",    "even",     "bold",
                             "silent",  "pending", "express",  "special",   "unusual"};
const char* kAdverbs[] = {
    "sometimes", "always",    "never",   "furiously",  "slyly",       "carefully",  "blithely",
    "quickly",   "fluffily",  "slowly",  "quietly",    "ruthlessly",  "thinly",     "closely",
    "doggedly",  "daringly",  "bravely", "stealthily", "permanently", "enticingly", "idly",
    "busily",    "regularly", "finally", "ironically", "evenly",      "boldly",     "silently"};
const char* kPrepositions[] = {
    "about",        "above",   "according to", "across",  "after",       "against", "along",
    "alongside of", "among",   "around",       "at",      "atop",        "before",  "behind",
    "beneath",      "beside",  "besides",      "between", "beyond",      "by",      "despite",
    "during",       "except",  "for",          "from",    "in place of", "inside",  "instead of",
    "into",         "near",    "of",           "on",      "outside",     "over",    "past",
    "since",        "through", "throughout",   "to",      "toward",      "under",   "until",
    "up",           "upon",    "without",      "with",    "within"};
const char* kAuxiliaries[] = {
    "do",           "may",          "might",         "shall",         "will",
    "would",        "can",          "could",         "should",        "ought to",
    "must",         "will have to", "shall have to", "could have to", "should have to",
    "must have to", "need to",      "try to"};
const char* kTerminators[] = {".", ";", ":", "?", "!", "--"};
const char* kRegions[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
const char* kNations[] = {
    "ALGERIA", "ARGENTINA", "BRAZIL",         "CANADA",       "EGYPT", "ETHIOPIA", "FRANCE",
    "GERMANY", "INDIA",     "INDONESIA",      "IRAN",         "IRAQ",  "JAPAN",    "JORDAN",
    "KENYA",   "MOROCCO",   "MOZAMBIQUE",     "PERU",         "CHINA", "ROMANIA",  "SAUDI ARABIA",
    "VIETNAM", "RUSSIA",    "UNITED KINGDOM", "UNITED STATES"};
const int kNationRegion[] = {0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2,
                             4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1};
const char* kSegments[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
const char* kPriorities[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
const char* kShipInstruct[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
const char* kShipModes[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
const char* kTypes1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
const char* kTypes2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
const char* kTypes3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
const char* kContainers1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
const char* kContainers2[] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
// dbgen's 92 colours; p_name is five distinct ones (Q9 '%green%', Q20 'forest%').
const char* kColors[] = {
    "almond",   "antique",   "aquamarine", "azure",      "beige",     "bisque",    "black",
    "blanched", "blue",      "blush",      "brown",      "burlywood", "burnished", "chartreuse",
    "chiffon",  "chocolate", "coral",      "cornflower", "cornsilk",  "cream",     "cyan",
    "dark",     "deep",      "dim",        "dodger",     "drab",      "firebrick", "floral",
    "forest",   "frosted",   "gainsboro",  "ghost",      "goldenrod", "green",     "grey",
    "honeydew", "hot",       "indian",     "ivory",      "khaki",     "lace",      "lavender",
    "lawn",     "lemon",     "light",      "lime",       "linen",     "magenta",   "maroon",
    "medium",   "metallic",  "midnight",   "mint",       "misty",     "moccasin",  "navajo",
    "navy",     "olive",     "orange",     "orchid",     "pale",      "papaya",    "peach",
    "peru",     "pink",      "plum",       "powder",     "puff",      "purple",    "red",
    "rose",     "rosy",      "royal",      "saddle",     "salmon",    "sandy",     "seashell",
    "sienna",   "sky",       "slate",      "smoke",      "snow",      "spring",    "steel",
    "tan",      "thistle",   "tomato",     "turquoise",  "violet",    "wheat",     "white",
    "yellow"};
static_assert(sizeof(kColors) / sizeof(kColors[0]) == 92);

template <size_t N>
const char* Pick(Rng& r, const char* (&a)[N]) {
  return a[r.Next() % N];
}

// The text pool comments are cut from, as dbgen's TEXT(): sentences of the grammar
//   noun phrase, verb phrase, [prepositional phrase], terminator
// (noun phrase: [adverb] [adjective[,] adjective] noun; verb phrase: [auxiliary] verb [adverb]).
class TextPool {
 public:
  explicit TextPool(uint64_t seed, size_t size = 1 << 20) {
    Rng r(seed);
    while (text_.size() < size) {
      NounPhrase(r);
      text_ += ' ';
      if (r.Next() % 3 == 0) text_ += std::string(Pick(r, kAuxiliaries)) + ' ';
      text_ += Pick(r, kVerbs);
      if (r.Next() % 2 == 0) text_ += std::string(" ") + Pick(r, kAdverbs);
      if (r.Next() % 2 == 0) {
        text_ += std::string(" ") + Pick(r, kPrepositions) + " the ";
        NounPhrase(r);
      }
      text_ += Pick(r, kTerminators);
      text_ += ' ';
    }
  }
  // A substring of the pool of a length uniform in [0.4, 1.6] × avg (dbgen's TEXT(avg)).
  std::string Comment(Rng& r, int avg) const {
    const int64_t len = r.Uniform(std::max(1, avg * 4 / 10), avg * 16 / 10);
    const int64_t start = r.Uniform(0, static_cast<int64_t>(text_.size()) - len - 1);
    return text_.substr(static_cast<size_t>(start), static_cast<size_t>(len));
  }

 private:
  void NounPhrase(Rng& r) {
    switch (r.Next() % 4) {
      case 0:
        break;
      case 1:
        text_ += std::string(Pick(r, kAdjectives)) + ' ';
        break;
      case 2:
        text_ += std::string(Pick(r, kAdjectives)) + ", " + Pick(r, kAdjectives) + ' ';
        break;
      default:
        text_ += std::string(Pick(r, kAdverbs)) + ' ' + Pick(r, kAdjectives) + ' ';
        break;
    }
    text_ += Pick(r, kNouns);
  }
  std::string text_;
};

// dbgen's V-string: random alphanumerics (addresses), length uniform in [0.4, 1.6] × avg.
std::string RandomString(Rng& r, int avg) {
  static const char kChars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,";
  const int64_t len = r.Uniform(avg * 4 / 10, avg * 16 / 10);
  std::string s(static_cast<size_t>(len), ' ');
  for (auto& c : s) c = kChars[r.Next() % (sizeof(kChars) - 1)];
  return s;
}

// Days since epoch of 1992-01-01 and the TPC-H order date range end (1998-08-02).
constexpr int32_t kStartDate = 8035;
constexpr int32_t kEndOrderDate = 10440;
constexpr int32_t kCurrentDate = 9298;  // 1995-06-17: flags derive from it

Field F(const char* name, TypePtr t) { return {name, std::move(t), false, "{}"}; }
TypePtr Dec() { return DataType::Decimal(15, 2); }

class TableWriter {
 public:
  TableWriter(std::string dir, std::string name, Schema schema, int64_t rows_per_file)
      : path_(dir + "/" + name),
        name_(std::move(name)),
        schema_(std::move(schema)),
        rows_per_file_(rows_per_file) {}

  Status Begin() {
    (void)DeleteLocation(path_);  // a fresh table each run
    SILT_ASSIGN_OR_RETURN(store_, OpenObjectStore(path_, SystemClock::Default()));
    delta::CreateTableOptions opts;
    opts.name = name_;
    opts.write.clock = SystemClock::Default();  // the CLI picks the system clock
    opts.txn.clock = SystemClock::Default();
    Result<delta::CommitResult> r = delta::CreateTable(store_, schema_, {}, opts);
    SILT_RETURN_NOT_OK(r.status());
    NewChunk();
    return Status::OK();
  }
  DataChunk& chunk() { return chunk_; }
  // Call after each row; flushes a file's worth of rows.
  Status RowDone() {
    ++rows_;
    if (chunk_.columns[0].size() >= static_cast<size_t>(rows_per_file_)) return Flush();
    return Status::OK();
  }
  Status Flush() {
    if (chunk_.columns[0].size() == 0) return Status::OK();
    std::vector<DataChunk> rows;
    rows.push_back(std::move(chunk_));
    delta::DataWriteOptions w;
    w.max_rows_per_file = rows_per_file_;
    w.clock = SystemClock::Default();
    delta::TransactionOptions txn;
    txn.clock = SystemClock::Default();
    Result<delta::CommitResult> r = delta::AppendRows(store_, rows, w, txn);
    SILT_RETURN_NOT_OK(r.status());
    NewChunk();
    return Status::OK();
  }
  int64_t rows() const { return rows_; }

 private:
  void NewChunk() { chunk_ = DataChunk::FromSchema(schema_); }
  std::string path_, name_;
  Schema schema_;
  int64_t rows_per_file_;
  std::shared_ptr<ObjectStore> store_;
  DataChunk chunk_;
  int64_t rows_ = 0;
};

// s_comment: 10 in 10000 suppliers get "Customer … Complaints" or "Customer … Recommends" (half
// each) as dbgen's S_CMNT_BBB (Q16 excludes the complaints).
std::string SupplierComment(Rng& r, const TextPool& pool) {
  std::string c = pool.Comment(r, 63);
  if (r.Uniform(1, 10000) > 10) return c;
  const char* kind = r.Next() % 2 ? "Complaints" : "Recommends";
  const size_t head = static_cast<size_t>(r.Uniform(0, static_cast<int64_t>(c.size()) / 2));
  const size_t gap = static_cast<size_t>(r.Uniform(0, 10));
  return c.substr(0, head) + "Customer " + c.substr(head, gap) + kind +
         c.substr(std::min(c.size(), head + gap));
}

int128_t Cents(int64_t c) { return static_cast<int128_t>(c); }

}  // namespace

Result<std::vector<std::string>> GenerateTpch(const std::string& dir, const TpchOptions& o) {
  const double sf = o.scale;
  const int64_t n_supp = std::max<int64_t>(1, static_cast<int64_t>(10000 * sf));
  const int64_t n_cust = std::max<int64_t>(1, static_cast<int64_t>(150000 * sf));
  const int64_t n_part = std::max<int64_t>(1, static_cast<int64_t>(200000 * sf));
  const int64_t n_orders = std::max<int64_t>(1, static_cast<int64_t>(1500000 * sf));
  Rng r(o.seed);
  const TextPool pool(o.seed ^ 0x7e57u);
  std::vector<std::string> names;

  {
    TableWriter t(dir, "region",
                  {F("r_regionkey", DataType::Int32()), F("r_name", DataType::String()),
                   F("r_comment", DataType::String())},
                  o.rows_per_file);
    SILT_RETURN_NOT_OK(t.Begin());
    for (int i = 0; i < 5; ++i) {
      auto& c = t.chunk().columns;
      c[0].Append<int32_t>(i);
      c[1].AppendString(kRegions[i]);
      c[2].AppendString(pool.Comment(r, 72));
      SILT_RETURN_NOT_OK(t.RowDone());
    }
    SILT_RETURN_NOT_OK(t.Flush());
    names.push_back("region");
  }
  {
    TableWriter t(dir, "nation",
                  {F("n_nationkey", DataType::Int32()), F("n_name", DataType::String()),
                   F("n_regionkey", DataType::Int32()), F("n_comment", DataType::String())},
                  o.rows_per_file);
    SILT_RETURN_NOT_OK(t.Begin());
    for (int i = 0; i < 25; ++i) {
      auto& c = t.chunk().columns;
      c[0].Append<int32_t>(i);
      c[1].AppendString(kNations[i]);
      c[2].Append<int32_t>(kNationRegion[i]);
      c[3].AppendString(pool.Comment(r, 72));
      SILT_RETURN_NOT_OK(t.RowDone());
    }
    SILT_RETURN_NOT_OK(t.Flush());
    names.push_back("nation");
  }
  auto phone = [&](int nation) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02d-%03d-%03d-%04d", nation + 10,
                  static_cast<int>(r.Uniform(100, 999)), static_cast<int>(r.Uniform(100, 999)),
                  static_cast<int>(r.Uniform(1000, 9999)));
    return std::string(buf);
  };
  {
    TableWriter t(dir, "supplier",
                  {F("s_suppkey", DataType::Int64()), F("s_name", DataType::String()),
                   F("s_address", DataType::String()), F("s_nationkey", DataType::Int32()),
                   F("s_phone", DataType::String()), F("s_acctbal", Dec()),
                   F("s_comment", DataType::String())},
                  o.rows_per_file);
    SILT_RETURN_NOT_OK(t.Begin());
    for (int64_t i = 1; i <= n_supp; ++i) {
      auto& c = t.chunk().columns;
      int nation = static_cast<int>(r.Uniform(0, 24));
      char buf[32];
      std::snprintf(buf, sizeof buf, "Supplier#%09lld", static_cast<long long>(i));
      c[0].Append<int64_t>(i);
      c[1].AppendString(buf);
      c[2].AppendString(RandomString(r, 25));
      c[3].Append<int32_t>(nation);
      c[4].AppendString(phone(nation));
      c[5].Append<int128_t>(Cents(r.Uniform(-99999, 999999)));
      c[6].AppendString(SupplierComment(r, pool));
      SILT_RETURN_NOT_OK(t.RowDone());
    }
    SILT_RETURN_NOT_OK(t.Flush());
    names.push_back("supplier");
  }
  {
    TableWriter t(dir, "customer",
                  {F("c_custkey", DataType::Int64()), F("c_name", DataType::String()),
                   F("c_address", DataType::String()), F("c_nationkey", DataType::Int32()),
                   F("c_phone", DataType::String()), F("c_acctbal", Dec()),
                   F("c_mktsegment", DataType::String()), F("c_comment", DataType::String())},
                  o.rows_per_file);
    SILT_RETURN_NOT_OK(t.Begin());
    for (int64_t i = 1; i <= n_cust; ++i) {
      auto& c = t.chunk().columns;
      int nation = static_cast<int>(r.Uniform(0, 24));
      char buf[32];
      std::snprintf(buf, sizeof buf, "Customer#%09lld", static_cast<long long>(i));
      c[0].Append<int64_t>(i);
      c[1].AppendString(buf);
      c[2].AppendString(RandomString(r, 25));
      c[3].Append<int32_t>(nation);
      c[4].AppendString(phone(nation));
      c[5].Append<int128_t>(Cents(r.Uniform(-99999, 999999)));
      c[6].AppendString(Pick(r, kSegments));
      c[7].AppendString(pool.Comment(r, 73));
      SILT_RETURN_NOT_OK(t.RowDone());
    }
    SILT_RETURN_NOT_OK(t.Flush());
    names.push_back("customer");
  }
  std::vector<int64_t> retail(static_cast<size_t>(n_part) + 1);
  std::vector<const char*> colors(std::begin(kColors), std::end(kColors));
  {
    TableWriter t(dir, "part",
                  {F("p_partkey", DataType::Int64()), F("p_name", DataType::String()),
                   F("p_mfgr", DataType::String()), F("p_brand", DataType::String()),
                   F("p_type", DataType::String()), F("p_size", DataType::Int32()),
                   F("p_container", DataType::String()), F("p_retailprice", Dec()),
                   F("p_comment", DataType::String())},
                  o.rows_per_file);
    SILT_RETURN_NOT_OK(t.Begin());
    for (int64_t i = 1; i <= n_part; ++i) {
      auto& c = t.chunk().columns;
      // Five distinct colours: a partial Fisher-Yates shuffle of the 92.
      std::string name;
      for (int w = 0; w < 5; ++w) {
        std::swap(colors[static_cast<size_t>(w)], colors[static_cast<size_t>(r.Uniform(w, 91))]);
        name += (w ? " " : "") + std::string(colors[static_cast<size_t>(w)]);
      }
      int m = static_cast<int>(r.Uniform(1, 5));
      int64_t price = (90000 + ((i / 10) % 20001) + 100 * (i % 1000));
      retail[static_cast<size_t>(i)] = price;
      c[0].Append<int64_t>(i);
      c[1].AppendString(name);
      c[2].AppendString("Manufacturer#" + std::to_string(m));
      c[3].AppendString("Brand#" + std::to_string(m) + std::to_string(r.Uniform(1, 5)));
      c[4].AppendString(std::string(Pick(r, kTypes1)) + " " + Pick(r, kTypes2) + " " +
                        Pick(r, kTypes3));
      c[5].Append<int32_t>(static_cast<int32_t>(r.Uniform(1, 50)));
      c[6].AppendString(std::string(Pick(r, kContainers1)) + " " + Pick(r, kContainers2));
      c[7].Append<int128_t>(Cents(price));
      c[8].AppendString(pool.Comment(r, 14));
      SILT_RETURN_NOT_OK(t.RowDone());
    }
    SILT_RETURN_NOT_OK(t.Flush());
    names.push_back("part");
  }
  {
    TableWriter t(dir, "partsupp",
                  {F("ps_partkey", DataType::Int64()), F("ps_suppkey", DataType::Int64()),
                   F("ps_availqty", DataType::Int32()), F("ps_supplycost", Dec()),
                   F("ps_comment", DataType::String())},
                  o.rows_per_file);
    SILT_RETURN_NOT_OK(t.Begin());
    for (int64_t i = 1; i <= n_part; ++i) {
      for (int j = 0; j < 4; ++j) {
        auto& c = t.chunk().columns;
        c[0].Append<int64_t>(i);
        c[1].Append<int64_t>((i + j * (n_supp / 4 + (i - 1) / n_supp)) % n_supp + 1);
        c[2].Append<int32_t>(static_cast<int32_t>(r.Uniform(1, 9999)));
        c[3].Append<int128_t>(Cents(r.Uniform(100, 100000)));
        c[4].AppendString(pool.Comment(r, 124));
        SILT_RETURN_NOT_OK(t.RowDone());
      }
    }
    SILT_RETURN_NOT_OK(t.Flush());
    names.push_back("partsupp");
  }
  {
    TableWriter orders(dir, "orders",
                       {F("o_orderkey", DataType::Int64()), F("o_custkey", DataType::Int64()),
                        F("o_orderstatus", DataType::String()), F("o_totalprice", Dec()),
                        F("o_orderdate", DataType::Date()),
                        F("o_orderpriority", DataType::String()), F("o_clerk", DataType::String()),
                        F("o_shippriority", DataType::Int32()), F("o_comment", DataType::String())},
                       o.rows_per_file);
    TableWriter items(dir, "lineitem",
                      {F("l_orderkey", DataType::Int64()), F("l_partkey", DataType::Int64()),
                       F("l_suppkey", DataType::Int64()), F("l_linenumber", DataType::Int32()),
                       F("l_quantity", Dec()), F("l_extendedprice", Dec()), F("l_discount", Dec()),
                       F("l_tax", Dec()), F("l_returnflag", DataType::String()),
                       F("l_linestatus", DataType::String()), F("l_shipdate", DataType::Date()),
                       F("l_commitdate", DataType::Date()), F("l_receiptdate", DataType::Date()),
                       F("l_shipinstruct", DataType::String()), F("l_shipmode", DataType::String()),
                       F("l_comment", DataType::String())},
                      o.rows_per_file);
    SILT_RETURN_NOT_OK(orders.Begin());
    SILT_RETURN_NOT_OK(items.Begin());
    const int64_t clerks = std::max<int64_t>(1, static_cast<int64_t>(1000 * sf));
    for (int64_t i = 1; i <= n_orders; ++i) {
      // Sparse order keys as dbgen (8 of every 32 used).
      int64_t okey = ((i - 1) / 8) * 32 + (i - 1) % 8 + 1;
      int64_t cust;
      do {
        cust = r.Uniform(1, n_cust);
      } while (cust % 3 == 0 && n_cust > 2);  // a third of customers have no orders
      int32_t odate = static_cast<int32_t>(r.Uniform(kStartDate, kEndOrderDate));
      int lines = static_cast<int>(r.Uniform(1, 7));
      int64_t total = 0;
      int shipped = 0;
      for (int ln = 1; ln <= lines; ++ln) {
        auto& c = items.chunk().columns;
        int64_t pkey = r.Uniform(1, n_part);
        int64_t skey = (pkey + (r.Uniform(0, 3)) * (n_supp / 4 + (pkey - 1) / n_supp)) % n_supp + 1;
        int64_t qty = r.Uniform(1, 50);
        int64_t price = qty * retail[static_cast<size_t>(pkey)];
        int64_t disc = r.Uniform(0, 10);
        int64_t tax = r.Uniform(0, 8);
        int32_t ship = odate + static_cast<int32_t>(r.Uniform(1, 121));
        int32_t commit = odate + static_cast<int32_t>(r.Uniform(30, 90));
        int32_t receipt = ship + static_cast<int32_t>(r.Uniform(1, 30));
        const char* rflag = receipt <= kCurrentDate ? (r.Next() % 2 ? "R" : "A") : "N";
        const char* lstatus = ship > kCurrentDate ? "O" : "F";
        shipped += lstatus[0] == 'F';
        total += price * (100 - disc) / 100 * (100 + tax) / 100;
        c[0].Append<int64_t>(okey);
        c[1].Append<int64_t>(pkey);
        c[2].Append<int64_t>(skey);
        c[3].Append<int32_t>(ln);
        c[4].Append<int128_t>(Cents(qty * 100));
        c[5].Append<int128_t>(Cents(price));
        c[6].Append<int128_t>(Cents(disc));
        c[7].Append<int128_t>(Cents(tax));
        c[8].AppendString(rflag);
        c[9].AppendString(lstatus);
        c[10].Append<int32_t>(ship);
        c[11].Append<int32_t>(commit);
        c[12].Append<int32_t>(receipt);
        c[13].AppendString(Pick(r, kShipInstruct));
        c[14].AppendString(Pick(r, kShipModes));
        c[15].AppendString(pool.Comment(r, 27));
        SILT_RETURN_NOT_OK(items.RowDone());
      }
      auto& c = orders.chunk().columns;
      char clerk[32];
      std::snprintf(clerk, sizeof clerk, "Clerk#%09lld",
                    static_cast<long long>(r.Uniform(1, clerks)));
      c[0].Append<int64_t>(okey);
      c[1].Append<int64_t>(cust);
      c[2].AppendString(shipped == lines ? "F" : shipped == 0 ? "O" : "P");
      c[3].Append<int128_t>(Cents(total));
      c[4].Append<int32_t>(odate);
      c[5].AppendString(Pick(r, kPriorities));
      c[6].AppendString(clerk);
      c[7].Append<int32_t>(0);
      c[8].AppendString(pool.Comment(r, 49));
      SILT_RETURN_NOT_OK(orders.RowDone());
    }
    SILT_RETURN_NOT_OK(orders.Flush());
    SILT_RETURN_NOT_OK(items.Flush());
    names.push_back("orders");
    names.push_back("lineitem");
  }
  return names;
}

}  // namespace silt::cli
