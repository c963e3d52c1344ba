#include "delta/clustering.h"

#include <simdjson.h>

#include <cctype>

#include "common/error_classes.h"
#include "delta/json_util.h"
#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "delta/table_features.h"

namespace silt::delta {

namespace {

// Leaves a column contributes to the statistics schema (structs recurse; arrays and maps are
// one leaf), for delta.dataSkippingNumIndexedCols.
int64_t LeafCount(const DataType& t) {
  if (t.id() != TypeId::kStruct) return 1;
  int64_t n = 0;
  for (const Field& f : t.fields()) n += LeafCount(*f.type);
  return n;
}

bool SameName(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

Result<std::vector<std::vector<std::string>>> ParseClusteringDomain(std::string_view json) {
  auto bad = [&]() {
    return Status::Corruption("invalid delta.clustering domain configuration: " + std::string(json),
                              errc::kDeltaInvalidTableProperty);
  };
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array cols;
  if (parser.parse(json.data(), json.size()).get(doc) || doc["clusteringColumns"].get(cols))
    return bad();
  std::vector<std::vector<std::string>> out;
  for (simdjson::dom::element c : cols) {
    simdjson::dom::array path;
    if (c.get(path)) return bad();
    std::vector<std::string> parts;
    for (simdjson::dom::element p : path) {
      std::string_view s;
      if (p.get(s)) return bad();
      parts.emplace_back(s);
    }
    if (parts.empty()) return bad();
    out.push_back(std::move(parts));
  }
  return out;
}

std::string ClusteringColumnsJson(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ",";
    AppendJacksonString(&out, names[i]);
  }
  return out + "]";
}

DomainMetadata ClusteringDomainFor(const Schema& schema, ColumnMappingMode mode,
                                   const std::vector<std::string>& logical) {
  std::string json = "{\"clusteringColumns\":[";
  for (size_t i = 0; i < logical.size(); ++i) {
    int fi = FindField(schema, logical[i]);
    std::string physical =
        fi < 0 ? logical[i] : PhysicalNameOrName(schema[static_cast<size_t>(fi)], mode);
    json += i ? ",[" : "[";
    AppendJacksonString(&json, physical);
    json += "]";
  }
  json += "]}";
  return DomainMetadata{kClusteringDomain, std::move(json), false};
}

bool IsClusteredTable(const Snapshot& snapshot) {
  return HasFeature(snapshot.protocol(), kClusteringFeature);
}

Result<std::vector<std::string>> ClusteringColumns(const Snapshot& snapshot) {
  std::vector<std::string> out;
  if (!IsClusteredTable(snapshot)) return out;
  auto it = snapshot.domains().find(kClusteringDomain);
  if (it == snapshot.domains().end() || it->second.removed) return out;
  SILT_ASSIGN_OR_RETURN(auto paths, ParseClusteringDomain(it->second.configuration));
  const Schema& schema = snapshot.schema();
  for (const auto& path : paths) {
    if (path.size() != 1) {
      std::string dotted;
      for (const auto& p : path) dotted += (dotted.empty() ? "" : ".") + p;
      return Status::NotImplemented("the table is clustered by the nested column " + dotted +
                                        "; clustering by nested columns is not implemented yet",
                                    errc::kNotImplemented);
    }
    const Field* found = nullptr;
    for (const Field& f : schema)
      if (PhysicalNameOrName(f, snapshot.column_mapping_mode()) == path[0]) found = &f;
    if (!found) {
      return Status::Corruption("clustering column " + path[0] + " is not in the table's schema",
                                errc::kDeltaColumnNotFoundInSchema);
    }
    out.push_back(found->name);
  }
  return out;
}

Result<std::vector<std::string>> ResolveClusteringColumns(const Schema& schema,
                                                          const StringMap& configuration,
                                                          const std::vector<std::string>& columns,
                                                          int limit) {
  std::vector<std::string> names;
  std::vector<int> index;
  for (const auto& c : columns) {
    if (c.find('.') != std::string::npos && FindField(schema, c) < 0) {
      return Status::NotImplemented("CLUSTER BY the nested column " + c +
                                        " is not implemented yet; cluster by top-level "
                                        "columns",
                                    errc::kNotImplemented);
    }
    int fi = FindField(schema, c);
    if (fi < 0) {
      return Status::InvalidArgument(
          "Couldn't find column " + c + " in:\n" + DataType::Struct(schema)->ToString(),
          errc::kDeltaColumnNotFoundInSchema);
    }
    for (const auto& n : names) {
      if (SameName(n, schema[static_cast<size_t>(fi)].name)) {
        return Status::InvalidArgument("Found duplicate column(s) in CLUSTER_BY: `" + n + "`.",
                                       errc::kColumnAlreadyExists);
      }
    }
    names.push_back(schema[static_cast<size_t>(fi)].name);
    index.push_back(fi);
  }
  if (static_cast<int>(names.size()) > limit) {
    return Status::InvalidArgument(
        "CLUSTER BY supports up to " + std::to_string(limit) +
            " clustering columns, but the table has " + std::to_string(names.size()) +
            " clustering columns. Please remove the extra clustering columns.",
        errc::kDeltaClusterByInvalidNumColumns);
  }
  // Which columns get statistics (StatisticsCollection's stats schema).
  int64_t num_indexed = 32;
  if (const std::string* n = configuration.Find("delta.dataSkippingNumIndexedCols"))
    num_indexed = std::atoll(n->c_str());
  std::optional<std::vector<std::vector<std::string>>> stats_columns;
  if (const std::string* cols = configuration.Find("delta.dataSkippingStatsColumns")) {
    SILT_ASSIGN_OR_RETURN(stats_columns, ParseStatsColumnList(*cols));
  }
  std::vector<std::string> missing, unsupported;
  for (size_t k = 0; k < names.size(); ++k) {
    const Field& f = schema[static_cast<size_t>(index[k])];
    bool in_stats = false;
    if (stats_columns) {
      for (const auto& p : *stats_columns)
        in_stats = in_stats || (p.size() == 1 && SameName(p[0], f.name));
    } else if (num_indexed < 0) {
      in_stats = true;
    } else {
      int64_t leaves_before = 0;
      for (int i = 0; i < index[k]; ++i) leaves_before += LeafCount(*schema[i].type);
      in_stats = leaves_before < num_indexed;
    }
    if (!MinMaxEligible(f.type->id())) {
      // Spark's DataType.sql: the type name upper-cased (BOOLEAN, ARRAY<INT>).
      std::string type = f.type->ToString();
      for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      unsupported.push_back(f.name + " : " + type);
    } else if (!in_stats) {
      missing.push_back(f.name);
    }
  }
  if (!unsupported.empty()) {
    std::string list;
    for (const auto& u : unsupported) list += (list.empty() ? "" : ", ") + u;
    return Status::Unsupported("CLUSTER BY is not supported because the following column(s): " +
                                   list + " don't support data skipping.",
                               errc::kDeltaClusteringColumnsDatatypeNotSupported);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return Status::InvalidArgument(
        "Clustering requires clustering columns to have stats. Couldn't find clustering "
        "column(s) '" +
            list + "' in stats schema:\n" + DataType::Struct(schema)->ToString(),
        errc::kDeltaClusteringColumnMissingStats);
  }
  return names;
}

}  // namespace silt::delta
