// `silt delta info|files|cat PATH`: inspect Delta tables (the kernel, without SQL).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/tpch_gen.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "io/object_store.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "vector/generate.h"

namespace silt::cli {
namespace {

int Fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

Result<std::shared_ptr<const delta::Snapshot>> Open(const std::string& path,
                                                    std::optional<int64_t> version) {
  SILT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store,
                        OpenObjectStore(path, SystemClock::Default()));
  return delta::Snapshot::Load(std::move(store), version);
}

}  // namespace

// `silt delta gen PATH`: creates a table of generated rows (or appends to an existing one).
int Gen(const std::vector<std::string>& args) {
  std::string set = "flat";
  int64_t rows = 10000;
  uint64_t seed = 42;
  std::vector<std::string> partition_by;
  // The CLI is the top of the stack: it picks the system clock for the engine.
  delta::CreateTableOptions opts;
  opts.write.clock = SystemClock::Default();
  opts.txn.clock = SystemClock::Default();
  for (size_t i = 2; i + 1 < args.size(); i += 2) {
    const std::string &k = args[i], &v = args[i + 1];
    if (k == "--columns") {
      set = v;
    } else if (k == "--rows") {
      rows = std::strtoll(v.c_str(), nullptr, 10);
    } else if (k == "--seed") {
      seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (k == "--partition-by") {
      partition_by.push_back(v);
    } else if (k == "--property") {
      size_t eq = v.find('=');
      if (eq == std::string::npos)
        return Fail(Status::InvalidArgument("--property needs key=value"));
      opts.properties.Set(v.substr(0, eq), v.substr(eq + 1));
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  auto schema = NamedTestSchema(set);
  if (!schema.ok()) return Fail(schema.status());
  auto opened = OpenObjectStore(args[1], SystemClock::Default());
  if (!opened.ok()) return Fail(opened.status());
  std::shared_ptr<ObjectStore> store = *opened;
  GenerateOptions go;
  go.seed = seed;
  go.string_cardinality = 20;  // a few partition values when partitioning by a string
  DataChunk data = GenerateData(*schema, static_cast<size_t>(rows), go);
  bool exists = store->ListFrom(delta::kLogDir).ValueOr({}).size() > 0;
  Result<delta::CommitResult> r = Status::Internal("unset");
  if (exists) {
    r = delta::AppendRows(store, {data}, opts.write, opts.txn);
  } else {
    opts.partition_columns = partition_by;
    r = delta::CreateTable(store, *schema, {data}, opts);
  }
  if (!r.ok()) return Fail(r.status());
  std::printf("%s version %lld of %s with %lld rows\n", exists ? "appended" : "created",
              static_cast<long long>(r->version), args[1].c_str(), static_cast<long long>(rows));
  return 0;
}

// `silt delta gen-tpch DIR [--sf X]`: the eight TPC-H tables as Delta tables DIR/<table>
// (cli/tpch_gen.h); their data files are plain Parquet that other engines read directly.
int GenTpch(const std::vector<std::string>& args) {
  TpchOptions opts;
  for (size_t i = 2; i + 1 < args.size(); i += 2) {
    const std::string &k = args[i], &v = args[i + 1];
    if (k == "--sf") {
      opts.scale = std::strtod(v.c_str(), nullptr);
    } else if (k == "--rows-per-file") {
      opts.rows_per_file = std::strtoll(v.c_str(), nullptr, 10);
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (!(opts.scale > 0) || opts.rows_per_file <= 0) {
    std::fprintf(stderr, "--sf and --rows-per-file must be positive\n");
    return 2;
  }
  Result<std::vector<std::string>> tables = GenerateTpch(args[1], opts);
  if (!tables.ok()) return Fail(tables.status());
  std::printf("generated TPC-H SF %g in %s:", opts.scale, args[1].c_str());
  for (const auto& t : *tables) std::printf(" %s", t.c_str());
  std::printf("\n");
  return 0;
}

int RunDelta(const std::vector<std::string>& args) {
  const char* usage =
      "usage: silt delta info|files|cat PATH [--version N] [--json] [--limit N]\n"
      "       silt delta gen PATH [--columns flat|all|nested|int64|...] [--rows N] [--seed S]\n"
      "                      [--partition-by COL]... [--property key=value]...\n"
      "       silt delta gen-tpch DIR [--sf 1] [--rows-per-file N]";
  if (args.size() >= 2 && args[0] == "gen") return Gen(args);
  if (args.size() >= 2 && args[0] == "gen-tpch") return GenTpch(args);
  if (args.size() < 2) {
    std::fprintf(stderr, "%s\n", usage);
    return 2;
  }
  std::optional<int64_t> version;
  bool json = false;
  int64_t limit = -1;
  for (size_t i = 2; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if ((args[i] == "--version" || args[i] == "--limit") && i + 1 < args.size()) {
      char* end = nullptr;
      long long v = std::strtoll(args[i + 1].c_str(), &end, 10);
      if (*end || args[i + 1].empty()) {
        std::fprintf(stderr, "%s needs an integer\n", args[i].c_str());
        return 2;
      }
      if (args[i] == "--version") {
        version = v;
      } else {
        limit = v;
      }
      ++i;
    } else {
      std::fprintf(stderr, "%s\n", usage);
      return 2;
    }
  }
  auto snap = Open(args[1], version);
  if (!snap.ok()) return Fail(snap.status());
  const delta::Snapshot& s = **snap;
  const std::string& cmd = args[0];
  if (cmd == "info") {
    const auto& p = s.protocol();
    std::printf("version:        %lld\n", static_cast<long long>(s.version()));
    std::printf("protocol:       reader %d, writer %d\n", p.min_reader_version,
                p.min_writer_version);
    auto list = [](const std::optional<std::vector<std::string>>& v) {
      std::string out;
      if (v)
        for (const auto& x : *v) out += (out.empty() ? "" : ", ") + x;
      return out.empty() ? std::string("-") : out;
    };
    std::printf("reader features: %s\nwriter features: %s\n", list(p.reader_features).c_str(),
                list(p.writer_features).c_str());
    std::printf("id:             %s\n", s.metadata().id.c_str());
    std::string schema;
    for (const auto& f : s.schema())
      schema += (schema.empty() ? "" : ", ") + f.name + " " + f.type->ToString();
    std::printf("schema:         %s\n", schema.c_str());
    std::string parts;
    for (const auto& c : s.partition_columns()) parts += (parts.empty() ? "" : ", ") + c;
    std::printf("partitioned by: %s\n", parts.empty() ? "-" : parts.c_str());
    for (const auto& [k, v] : s.metadata().configuration.entries())
      std::printf("property:       %s = %s\n", k.c_str(), v.c_str());
    int64_t bytes = 0, dvs = 0;
    for (const auto& f : s.files()) {
      bytes += f.size;
      dvs += f.deletion_vector ? 1 : 0;
    }
    std::printf("files:          %zu (%lld bytes, %lld with deletion vectors)\n", s.files().size(),
                static_cast<long long>(bytes), static_cast<long long>(dvs));
    std::printf("tombstones:     %zu\n", s.tombstones().size());
    std::printf("checkpoint:     %lld\n", static_cast<long long>(s.segment().checkpoint_version));
    return 0;
  }
  if (cmd == "files") {
    for (const auto& f : s.files())
      std::printf("%s\t%lld\t%s\n", f.path.c_str(), static_cast<long long>(f.size),
                  f.deletion_vector
                      ? ("dv:" + std::to_string(f.deletion_vector->cardinality)).c_str()
                      : "-");
    return 0;
  }
  if (cmd == "cat") {
    auto scan = delta::TableScan::Make(*snap);
    if (!scan.ok()) return Fail(scan.status());
    const Schema& schema = (*scan)->output_schema();
    DataChunk chunk;
    int64_t printed = 0;
    for (;;) {
      auto more = (*scan)->Next(&chunk);
      if (!more.ok()) return Fail(more.status());
      if (!*more) break;
      for (size_t i = 0; i < chunk.size() && (limit < 0 || printed < limit); ++i, ++printed) {
        std::string line = json ? "{" : "";
        for (size_t c = 0; c < schema.size(); ++c) {
          if (json) {
            if (c) line += ",";
            AppendJsonString(&line, schema[c].name);
            line += ":" + chunk.columns[c].GetValue(i).ToJson();
          } else {
            if (c) line += "\t";
            line += chunk.columns[c].GetValue(i).ToString();
          }
        }
        line += json ? "}\n" : "\n";
        std::fwrite(line.data(), 1, line.size(), stdout);
      }
    }
    return 0;
  }
  std::fprintf(stderr, "%s\n", usage);
  return 2;
}

}  // namespace silt::cli
