// `silt inspect TABLE [--warehouse DIR] [--json]`: see cli/inspect.h.
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "cli/commands.h"
#include "cli/inspect.h"
#include "common/clock.h"
#include "common/error_classes.h"
#include "delta/stats_json.h"
#include "delta/table_properties.h"
#include "io/object_store_factory.h"
#include "io/path.h"
#include "planner/catalog.h"
#include "vector/value.h"

namespace silt::cli {
namespace {

std::string PartitionText(const delta::AddFile& f) {
  std::string out;
  for (const auto& [name, v] : f.partition_values) {
    if (!out.empty()) out += "/";
    out += name + "=" + (v ? *v : std::string("__HIVE_DEFAULT_PARTITION__"));
  }
  return out;
}

void Add(InspectCounts* c, const InspectFile& f) {
  ++c->files;
  c->bytes += f.size;
  if (f.num_records) {
    c->rows += *f.num_records;
  } else {
    ++c->files_without_stats;
  }
  c->deleted_rows += f.deleted_rows;
}

std::string Bytes(int64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%" PRId64 " B", b);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  }
  return buf;
}

std::string Pct(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", r * 100);
  return buf;
}

std::string Fmt(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

void JsonCounts(std::string* out, const InspectCounts& c) {
  *out +=
      Fmt("\"files\":%" PRId64 ",\"bytes\":%" PRId64 ",\"rows\":%" PRId64
          ",\"deletedRows\":%" PRId64 ",\"deletedRowsRatio\":%.6f,\"filesWithoutStats\":%" PRId64,
          c.files, c.bytes, c.rows, c.deleted_rows, c.deleted_ratio(), c.files_without_stats);
}

bool IsDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int Fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

// A path (contains '/', a file:// URI, or an existing directory) or a [schema.]table name in the
// warehouse's catalog.
Result<std::string> ResolveLocation(const std::string& target, const std::string& warehouse) {
  if (target.find('/') != std::string::npos || target.rfind("file:", 0) == 0 ||
      IsDir(target + "/_delta_log")) {
    return LocalPathFromUri(target);
  }
  SILT_ASSIGN_OR_RETURN(auto catalog, planner::Catalog::Open(warehouse, SystemClock::Default()));
  std::string schema = planner::Catalog::kDefaultSchema, name = target;
  if (size_t dot = target.find('.'); dot != std::string::npos) {
    schema = target.substr(0, dot);
    name = target.substr(dot + 1);
  }
  SILT_ASSIGN_OR_RETURN(planner::TableEntry entry,
                        catalog->GetTable(planner::LowerName(schema), planner::LowerName(name)));
  if (entry.format != "delta") {
    return Status::InvalidArgument(target + " is a view, not a Delta table",
                                   errc::kExpectTableNotViewNoAlternative);
  }
  return LocalPathFromUri(entry.location);
}

}  // namespace

Result<InspectReport> BuildInspectReport(const delta::Snapshot& snap, const std::string& location,
                                         const InspectOptions& options) {
  InspectReport r;
  r.location = location;
  r.version = snap.version();
  r.partition_columns = snap.partition_columns();
  r.options = options;
  std::map<std::string, InspectCounts> parts;
  for (const auto& a : snap.files()) {
    InspectFile f;
    f.path = a.path;
    f.partition = PartitionText(a);
    f.size = a.size;
    if (a.stats) {
      Result<delta::FileStats> st = delta::ParseStats(*a.stats, {});
      if (st.ok()) f.num_records = st->num_records;
    }
    if (a.deletion_vector) {
      f.has_dv = true;
      f.deleted_rows = a.deletion_vector->cardinality;
      ++r.dv_files;
    }
    Add(&r.totals, f);
    Add(&parts[f.partition], f);
    if (f.size < options.min_file_size) {
      ++r.small_files;
      r.small_files_bytes += f.size;
    }
    // As OPTIMIZE decides: a DV on a file without numRecords counts as excess.
    if (f.has_dv && (!f.num_records || f.deleted_ratio() > options.max_deleted_rows_ratio))
      ++r.dv_bloated_files;
    r.files.push_back(std::move(f));
  }
  std::sort(r.files.begin(), r.files.end(), [](const InspectFile& x, const InspectFile& y) {
    return x.partition != y.partition ? x.partition < y.partition : x.path < y.path;
  });
  for (auto& [k, c] : parts) r.partitions.push_back({k, c});

  SILT_ASSIGN_OR_RETURN(r.retention_millis,
                        delta::GetDeletedFileRetentionMillis(snap.metadata().configuration));
  // A DV update removes and re-adds the same path: such a tombstone names a live file, which
  // VACUUM keeps.
  std::set<std::string> live;
  for (const auto& a : snap.files()) live.insert(a.path);
  for (const auto& t : snap.tombstones()) {
    if (live.count(t.path)) continue;
    ++r.tombstones;
    r.tombstone_bytes += t.size.value_or(0);
    if (t.deletion_timestamp.value_or(0) < options.now_millis - r.retention_millis) ++r.vacuumable;
  }

  // Hints. Small files matter when a partition has more than one of them (one small file alone
  // has nothing to be compacted with).
  int64_t compactable = 0;
  std::map<std::string, int64_t> small_per_part;
  for (const auto& f : r.files) {
    if (f.size < options.min_file_size) ++small_per_part[f.partition];
  }
  for (const auto& [p, n] : small_per_part) {
    if (n > 1) compactable += n;
  }
  if (compactable > 0) {
    r.hints.push_back(Fmt("%" PRId64
                          " files are smaller than minFileSize (%s): run OPTIMIZE to compact them",
                          compactable, Bytes(options.min_file_size).c_str()));
  }
  if (r.dv_bloated_files > 0) {
    r.hints.push_back(
        Fmt("%" PRId64
            " files have more than %s of their rows deleted: OPTIMIZE will rewrite them; "
            "REORG TABLE ... APPLY (PURGE) purges all soft-deleted rows",
            r.dv_bloated_files, Pct(options.max_deleted_rows_ratio).c_str()));
  }
  if (r.tombstones > 0) {
    r.hints.push_back(
        Fmt("%" PRId64 " removed files (%s) are still on storage until VACUUM; %" PRId64
            " of them are past the retention of %" PRId64 " hours and VACUUM would delete them now",
            r.tombstones, Bytes(r.tombstone_bytes).c_str(), r.vacuumable,
            r.retention_millis / 3600000));
  }
  return r;
}

std::string RenderInspectText(const InspectReport& r) {
  std::string out;
  std::string parts;
  for (const auto& c : r.partition_columns) parts += (parts.empty() ? "" : ", ") + c;
  out += Fmt("table:    %s\nversion:  %" PRId64 "\npartitioned by: %s\n", r.location.c_str(),
             r.version, parts.empty() ? "-" : parts.c_str());
  const InspectCounts& t = r.totals;
  out += Fmt("totals:   %" PRId64 " files, %" PRId64 " bytes (%s), %" PRId64 " rows, %" PRId64
             " deleted rows (%s), %" PRId64 " files with deletion vectors\n",
             t.files, t.bytes, Bytes(t.bytes).c_str(), t.rows, t.deleted_rows,
             Pct(t.deleted_ratio()).c_str(), r.dv_files);
  if (t.files_without_stats > 0)
    out += Fmt("          %" PRId64 " files have no numRecords statistic\n", t.files_without_stats);
  out += Fmt("removed:  %" PRId64 " files (%" PRId64 " bytes) awaiting VACUUM, %" PRId64
             " past retention\n",
             r.tombstones, r.tombstone_bytes, r.vacuumable);
  if (!r.partition_columns.empty()) {
    out += "\npartition\tfiles\tbytes\trows\tdeleted_rows\tdeleted_ratio\n";
    for (const auto& p : r.partitions) {
      out += Fmt("%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s\n",
                 p.partition.c_str(), p.counts.files, p.counts.bytes, p.counts.rows,
                 p.counts.deleted_rows, Pct(p.counts.deleted_ratio()).c_str());
    }
  }
  out += "\npath\tsize\tnum_records\tdeleted_rows\tdeleted_ratio\n";
  for (const auto& f : r.files) {
    out += f.path + Fmt("\t%" PRId64 "\t%s\t%" PRId64 "\t%s\n", f.size,
                        f.num_records ? std::to_string(*f.num_records).c_str() : "-",
                        f.deleted_rows, f.num_records ? Pct(f.deleted_ratio()).c_str() : "-");
  }
  out += "\nhints:\n";
  if (r.hints.empty()) out += "  none\n";
  for (const auto& h : r.hints) out += "  - " + h + "\n";
  return out;
}

std::string RenderInspectJson(const InspectReport& r) {
  std::string out = "{\"location\":";
  AppendJsonString(&out, r.location);
  out += Fmt(",\"version\":%" PRId64 ",\"partitionColumns\":[", r.version);
  for (size_t i = 0; i < r.partition_columns.size(); ++i) {
    if (i) out += ",";
    AppendJsonString(&out, r.partition_columns[i]);
  }
  out += "],\"totals\":{";
  JsonCounts(&out, r.totals);
  out += Fmt(",\"filesWithDeletionVectors\":%" PRId64 "},", r.dv_files);
  out += Fmt("\"minFileSize\":%" PRId64 ",\"maxDeletedRowsRatio\":%.6f,\"smallFiles\":%" PRId64
             ",\"smallFilesBytes\":%" PRId64 ",\"deletionVectorBloatedFiles\":%" PRId64
             ",\"removedFiles\":%" PRId64 ",\"removedFilesBytes\":%" PRId64
             ",\"removedFilesPastRetention\":%" PRId64 ",\"deletedFileRetentionMillis\":%" PRId64
             ",\"partitions\":[",
             r.options.min_file_size, r.options.max_deleted_rows_ratio, r.small_files,
             r.small_files_bytes, r.dv_bloated_files, r.tombstones, r.tombstone_bytes, r.vacuumable,
             r.retention_millis);
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    out += i ? ",{\"partition\":" : "{\"partition\":";
    AppendJsonString(&out, r.partitions[i].partition);
    out += ",";
    JsonCounts(&out, r.partitions[i].counts);
    out += "}";
  }
  out += "],\"files\":[";
  for (size_t i = 0; i < r.files.size(); ++i) {
    const InspectFile& f = r.files[i];
    out += i ? ",{\"path\":" : "{\"path\":";
    AppendJsonString(&out, f.path);
    out += ",\"partition\":";
    AppendJsonString(&out, f.partition);
    out += Fmt(",\"size\":%" PRId64 ",\"numRecords\":%s,\"deletedRows\":%" PRId64
               ",\"deletedRowsRatio\":%.6f}",
               f.size, f.num_records ? std::to_string(*f.num_records).c_str() : "null",
               f.deleted_rows, f.deleted_ratio());
  }
  out += "],\"hints\":[";
  for (size_t i = 0; i < r.hints.size(); ++i) {
    if (i) out += ",";
    AppendJsonString(&out, r.hints[i]);
  }
  out += "]}\n";
  return out;
}

int RunInspect(const std::vector<std::string>& args) {
  const char* usage =
      "usage: silt inspect PATH|[SCHEMA.]TABLE [--warehouse DIR] [--json] [--min-file-size BYTES]\n"
      "                    [--max-deleted-rows-ratio R]";
  std::string target, warehouse = "./silt-warehouse";
  bool json = false;
  InspectOptions opts;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--json") {
      json = true;
    } else if (a == "--warehouse" && has_value) {
      warehouse = args[++i];
    } else if (a == "--min-file-size" && has_value) {
      char* end = nullptr;
      opts.min_file_size = std::strtoll(args[++i].c_str(), &end, 10);
      if (*end || opts.min_file_size < 0) {
        std::fprintf(stderr, "--min-file-size needs a byte count\n");
        return 2;
      }
    } else if (a == "--max-deleted-rows-ratio" && has_value) {
      char* end = nullptr;
      opts.max_deleted_rows_ratio = std::strtod(args[++i].c_str(), &end);
      if (*end || opts.max_deleted_rows_ratio < 0 || opts.max_deleted_rows_ratio > 1) {
        std::fprintf(stderr, "--max-deleted-rows-ratio needs a number in [0, 1]\n");
        return 2;
      }
    } else if (target.empty() && !a.empty() && a[0] != '-') {
      target = a;
    } else {
      std::fprintf(stderr, "%s\n", usage);
      return 2;
    }
  }
  if (target.empty()) {
    std::fprintf(stderr, "%s\n", usage);
    return 2;
  }
  auto location = ResolveLocation(target, warehouse);
  if (!location.ok()) return Fail(location.status());
  auto store = OpenObjectStore(*location, SystemClock::Default());
  if (!store.ok()) return Fail(store.status());
  auto snap = delta::Snapshot::Load(*store);
  if (!snap.ok()) return Fail(snap.status());
  opts.now_millis = SystemClock::Default()->NowMillis();
  auto report = BuildInspectReport(**snap, *location, opts);
  if (!report.ok()) return Fail(report.status());
  std::string text = json ? RenderInspectJson(*report) : RenderInspectText(*report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace silt::cli
