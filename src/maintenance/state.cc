#include "maintenance/state.h"

#include <simdjson.h>

#include "common/error_classes.h"
#include "common/json_escape.h"

namespace silt::maintenance {
namespace {

constexpr auto& kErrorStateCorrupt = errc::kSiltMaintenanceStateCorrupt;

void Field(std::string* out, const char* name, bool* first) {
  if (!*first) out->push_back(',');
  *first = false;
  AppendJsonString(out, name, JsonHexCase::kLower);
  out->push_back(':');
}

}  // namespace

const char* TtlPhaseName(TtlPhase phase) {
  switch (phase) {
    case TtlPhase::kIdle:
      return "IDLE";
    case TtlPhase::kPurgeDue:
      return "PURGE_DUE";
    case TtlPhase::kVacuumDue:
      return "VACUUM_DUE";
  }
  return "IDLE";
}

std::string SerializeState(const TableState& s) {
  std::string out = "{";
  bool first = true;
  auto str = [&](const char* name, const std::string& v) {
    Field(&out, name, &first);
    AppendJsonString(&out, v, JsonHexCase::kLower);
  };
  auto num = [&](const char* name, int64_t v) {
    Field(&out, name, &first);
    out += std::to_string(v);
  };
  str("phase", TtlPhaseName(s.phase));
  str("runId", s.run_id);
  str("cutoff", s.cutoff);
  num("deleteVersion", s.delete_version);
  num("deleteTimeMs", s.delete_time_ms);
  Field(&out, "dvFiles", &first);
  out.push_back('[');
  for (size_t i = 0; i < s.dv_files.size(); ++i) {
    if (i) out.push_back(',');
    AppendJsonString(&out, s.dv_files[i], JsonHexCase::kLower);
  }
  out.push_back(']');
  num("purgeVersion", s.purge_version);
  num("vacuumDueMs", s.vacuum_due_ms);
  Field(&out, "unvacuumedMs", &first);
  out.push_back('[');
  for (size_t i = 0; i < s.unvacuumed_ms.size(); ++i) {
    if (i) out.push_back(',');
    out += std::to_string(s.unvacuumed_ms[i]);
  }
  out.push_back(']');
  Field(&out, "unvacuumedVersions", &first);
  out.push_back('[');
  for (size_t i = 0; i < s.unvacuumed_versions.size(); ++i) {
    if (i) out.push_back(',');
    out += std::to_string(s.unvacuumed_versions[i]);
  }
  out.push_back(']');
  Field(&out, "vacuumFull", &first);
  out += s.vacuum_full ? "true" : "false";
  num("lastSeenVersion", s.last_seen_version);
  num("failures", s.failures);
  num("nextAttemptMs", s.next_attempt_ms);
  out.push_back('}');
  return out;
}

Result<TableState> ParseState(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element doc;
  simdjson::dom::object obj;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(obj) != simdjson::SUCCESS) {
    return Status::Corruption("maintenance state is not a JSON object", kErrorStateCorrupt);
  }
  TableState s;
  auto get_str = [&](const char* k, std::string* out) {
    std::string_view v;
    if (obj[k].get_string().get(v) == simdjson::SUCCESS) *out = std::string(v);
  };
  auto get_int = [&](const char* k, int64_t* out) {
    int64_t v;
    if (obj[k].get_int64().get(v) == simdjson::SUCCESS) *out = v;
  };
  std::string phase = "IDLE";
  get_str("phase", &phase);
  if (phase == "IDLE") {
    s.phase = TtlPhase::kIdle;
  } else if (phase == "PURGE_DUE") {
    s.phase = TtlPhase::kPurgeDue;
  } else if (phase == "VACUUM_DUE") {
    s.phase = TtlPhase::kVacuumDue;
  } else {
    return Status::Corruption("maintenance state has an unknown phase '" + phase + "'",
                              kErrorStateCorrupt);
  }
  get_str("runId", &s.run_id);
  get_str("cutoff", &s.cutoff);
  get_int("deleteVersion", &s.delete_version);
  get_int("deleteTimeMs", &s.delete_time_ms);
  simdjson::dom::array files;
  if (obj["dvFiles"].get_array().get(files) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : files) {
      std::string_view v;
      if (e.get_string().get(v) == simdjson::SUCCESS) s.dv_files.emplace_back(v);
    }
  }
  get_int("purgeVersion", &s.purge_version);
  get_int("vacuumDueMs", &s.vacuum_due_ms);
  simdjson::dom::array times;
  if (obj["unvacuumedMs"].get_array().get(times) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : times) {
      int64_t v;
      if (e.get_int64().get(v) != simdjson::SUCCESS)
        return Status::Corruption("maintenance state has a non-integer unvacuumedMs entry",
                                  kErrorStateCorrupt);
      s.unvacuumed_ms.push_back(v);
    }
  }
  simdjson::dom::array versions;
  if (obj["unvacuumedVersions"].get_array().get(versions) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : versions) {
      int64_t v;
      if (e.get_int64().get(v) != simdjson::SUCCESS)
        return Status::Corruption("maintenance state has a non-integer unvacuumedVersions entry",
                                  kErrorStateCorrupt);
      s.unvacuumed_versions.push_back(v);
    }
  }
  // A state written before the versions were kept: unknown (-1) for each entry.
  s.unvacuumed_versions.resize(s.unvacuumed_ms.size(), -1);
  bool full = false;
  if (obj["vacuumFull"].get_bool().get(full) == simdjson::SUCCESS) s.vacuum_full = full;
  get_int("lastSeenVersion", &s.last_seen_version);
  int64_t failures = 0;
  get_int("failures", &failures);
  s.failures = static_cast<int>(failures);
  get_int("nextAttemptMs", &s.next_attempt_ms);
  return s;
}

Result<TableState> LoadState(ObjectStore& table) {
  Result<std::string> bytes = table.Get(kStateKey);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) return TableState{};
    return bytes.status();
  }
  // Saved as a hint (SaveState): a crash may leave it empty. Nothing known: the service rebuilds
  // it from the table's history.
  if (bytes->empty()) return TableState{};
  return ParseState(*bytes);
}

Status SaveState(ObjectStore& table, const TableState& state) {
  // A hint (no fsync on a local store): the state only caches what the table's history says
  // (every maintenance commit is tagged), and the service repairs an old or lost state from
  // the commits after its last_seen_version. Four fsyncs fewer per maintained table.
  return table.PutHint(kStateKey, SerializeState(state));
}

std::string CommitTag(std::string_view trigger, std::string_view run_id) {
  std::string out = "{\"trigger\":";
  AppendJsonString(&out, trigger, JsonHexCase::kLower);
  out += ",\"runId\":";
  AppendJsonString(&out, run_id, JsonHexCase::kLower);
  out += "}";
  return out;
}

std::optional<ParsedTag> ParseCommitTag(std::string_view user_metadata) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(user_metadata);
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) return std::nullopt;
  std::string_view trigger, run_id;
  if (doc["trigger"].get_string().get(trigger) != simdjson::SUCCESS) return std::nullopt;
  if (doc["runId"].get_string().get(run_id) != simdjson::SUCCESS) return std::nullopt;
  return ParsedTag{std::string(trigger), std::string(run_id)};
}

std::string PredicateFromParameter(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element doc;
  simdjson::dom::array arr;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS ||
      doc.get_array().get(arr) != simdjson::SUCCESS) {
    return std::string(json);
  }
  std::string out;
  for (simdjson::dom::element e : arr) {
    std::string_view v;
    if (e.get_string().get(v) == simdjson::SUCCESS) {
      if (!out.empty()) out += " AND ";
      out += v;
    }
  }
  return out;
}

}  // namespace silt::maintenance
