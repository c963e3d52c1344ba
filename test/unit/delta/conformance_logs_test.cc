// The JSON layer against every real Delta log in shared/conformance.
#include <gtest/gtest.h>

#include <cmath>

#include "delta/actions.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"
#include "unit/delta/conformance_files.h"

namespace silt::delta {
namespace {

std::vector<std::string_view> Lines(std::string_view bytes) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t nl = bytes.find('\n', pos);
    size_t end = nl == std::string_view::npos ? bytes.size() : nl;
    std::string_view line = bytes.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.push_back(line);
    pos = end + 1;
  }
  return out;
}

// LeafStats reconstructed from parsed stats (for re-serialization).
std::vector<LeafStats> ToLeaves(const FileStats& st, const std::vector<Field>& fields,
                                std::vector<std::string>* path) {
  std::vector<LeafStats> out;
  for (const Field& f : fields) {
    path->push_back(f.name);
    if (f.type->id() == TypeId::kStruct) {
      auto sub = ToLeaves(st, f.type->fields(), path);
      out.insert(out.end(), sub.begin(), sub.end());
    } else if (const ColumnStats* c = st.FindPath(*path)) {
      LeafStats l{*path, c->min.value_or(Value()), c->max.value_or(Value()), c->null_count};
      out.push_back(std::move(l));
    }
    path->pop_back();
  }
  return out;
}

bool Finite(const std::optional<Value>& v) {
  if (!v) return true;
  TypeId id = v->type()->id();
  return !(id == TypeId::kFloat || id == TypeId::kDouble) || std::isfinite(v->floating());
}

TEST(ConformanceActionTest, EveryLogParsesAndRoundTrips) {
  auto logs = testing::DeltaLogJsonFiles();
  if (logs.empty()) GTEST_SKIP() << "no conformance data";
  int files = 0, lines = 0, byte_equal = 0, stats_parsed = 0, stats_columns = 0;
  int stats_reserialized_equal = 0, stats_byte_equal = 0;
  std::vector<std::string> not_byte_equal;
  for (const auto& [log, paths] : logs) {
    std::optional<Schema> physical;
    for (const std::string& file : paths) {
      std::string bytes = testing::ReadFile(file);
      std::vector<Action> actions;
      Status st = ParseCommit(bytes, &actions, file);
      ASSERT_TRUE(st.ok()) << st.ToString();
      ++files;
      auto raw = Lines(bytes);
      ASSERT_EQ(raw.size(), actions.size()) << file;
      for (size_t i = 0; i < actions.size(); ++i) {
        ++lines;
        const Action& a = actions[i];
        std::string text = SerializeAction(a);
        Action back;
        ASSERT_TRUE(ParseActionLine(text, &back).ok()) << text;
        EXPECT_EQ(back, a) << file << ":" << i + 1;
        if (text == raw[i]) {
          ++byte_equal;
        } else {
          not_byte_equal.push_back(std::string(raw[i]));
        }
        if (const auto* m = a.get_if<Metadata>(); m && m->schema_string) {
          auto schema = ParseSchemaString(*m->schema_string);
          ASSERT_TRUE(schema.ok()) << file << ": " << schema.status().ToString();
          const std::string* mode_text = m->configuration.Find("delta.columnMapping.mode");
          auto mode = ParseColumnMappingMode(mode_text ? std::optional(*mode_text) : std::nullopt);
          ASSERT_TRUE(mode.ok());
          auto p = ToPhysicalSchema(*schema, *mode);
          ASSERT_TRUE(p.ok()) << file << ": " << p.status().ToString();
          physical = *p;
        }
      }
    }
    // Stats of every add/remove against the table's latest schema.
    if (!physical) continue;
    for (const std::string& file : paths) {
      std::vector<Action> actions;
      ASSERT_TRUE(ParseCommit(testing::ReadFile(file), &actions, file).ok());
      for (const Action& a : actions) {
        const std::optional<std::string>* stats = nullptr;
        if (const auto* add = a.get_if<AddFile>()) stats = &add->stats;
        if (const auto* rm = a.get_if<RemoveFile>()) stats = &rm->stats;
        if (!stats || !*stats) continue;
        auto parsed = ParseStats(**stats, *physical);
        ASSERT_TRUE(parsed.ok()) << file << ": " << parsed.status().ToString() << "\n" << **stats;
        ++stats_parsed;
        stats_columns += static_cast<int>(parsed->columns.size());
        // Re-serialize everything that was read; parsing that again gives the same stats
        // (non-finite floats are not written).
        std::vector<std::string> path;
        StatsOptions opts;
        opts.num_indexed_cols = -1;
        opts.string_prefix_length = 1 << 20;
        opts.tight_bounds = parsed->tight_bounds;
        std::string again = SerializeStats(*physical, parsed->num_records.value_or(0),
                                           ToLeaves(*parsed, *physical, &path), opts);
        auto reparsed = ParseStats(again, *physical);
        ASSERT_TRUE(reparsed.ok()) << again;
        bool same = true;
        for (const auto& [key, c] : parsed->columns) {
          const ColumnStats* d = reparsed->Find(key);
          bool has_leaf_stats = (c.min && Finite(c.min)) || (c.max && Finite(c.max));
          if (!d) {
            same = same && !has_leaf_stats;
            continue;
          }
          if (Finite(c.min)) same = same && c.min == d->min;
          if (Finite(c.max)) same = same && c.max == d->max;
        }
        EXPECT_TRUE(same) << **stats << "\n" << again;
        stats_reserialized_equal += same;
        stats_byte_equal += again == **stats;
      }
    }
  }
  std::cout << "[conformance] " << files << " files, " << lines << " actions, " << byte_equal
            << " re-serialized byte-equal; " << stats_parsed << " stats (" << stats_columns
            << " column entries), " << stats_byte_equal << " stats byte-equal\n";
  for (size_t i = 0; i < not_byte_equal.size() && i < 5; ++i) {
    std::cout << "  differs: " << not_byte_equal[i].substr(0, 200) << "\n";
  }
  EXPECT_GT(files, 250);
  EXPECT_GT(stats_parsed, 400);
  EXPECT_GT(stats_columns, stats_parsed);  // the schemas resolved (physical names work)
  EXPECT_EQ(stats_reserialized_equal, stats_parsed);
}

}  // namespace
}  // namespace silt::delta
