// Delta log actions: one C++ struct per action of the Delta protocol (PROTOCOL.md "Actions"),
// parsing of commit files (newline-delimited JSON) and serialization of one action per line in
// exactly the layout Delta-Spark's Jackson writes (field names and order of actions.scala, absent
// optionals omitted).
//
// Parsing rules: blank lines are skipped; unknown top-level keys give an action of kind kUnknown;
// unknown fields inside an action are ignored; an explicit JSON null for an optional field means
// absent; a missing required field or a value of the wrong JSON type is a Corruption with error
// class kInvalidCommitFileClass and "<file>:<line>: <action>.<field>: ..." in the message.
//
// Maps keep the order of the JSON object so that parse → serialize reproduces Spark's bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/error_classes.h"
#include "common/status.h"
#include "delta/dv_descriptor.h"

namespace silt::delta {

inline constexpr const char* kInvalidCommitFileClass = errc::kDeltaInvalidCommitFile;

// An insertion-ordered string-keyed map. Lookups are linear: these maps hold a handful of
// entries (partition values, tags, properties) and keeping JSON order makes serialization exact.
template <typename V>
class OrderedMap {
 public:
  using Entry = std::pair<std::string, V>;
  OrderedMap() = default;
  OrderedMap(std::initializer_list<Entry> entries) : entries_(entries) {}

  // The value for `key`, or nullptr.
  const V* Find(std::string_view key) const {
    for (const auto& e : entries_) {
      if (e.first == key) return &e.second;
    }
    return nullptr;
  }
  V* Find(std::string_view key) {
    for (auto& e : entries_) {
      if (e.first == key) return &e.second;
    }
    return nullptr;
  }
  bool Contains(std::string_view key) const { return Find(key) != nullptr; }
  // Replaces the value of an existing key (keeping its position) or appends a new entry.
  void Set(std::string key, V value) {
    if (V* v = Find(key)) {
      *v = std::move(value);
    } else {
      entries_.emplace_back(std::move(key), std::move(value));
    }
  }
  // Appends without checking for duplicates (the parser's fast path: duplicate JSON keys are
  // kept as read, and Find returns the first).
  void Append(std::string key, V value) { entries_.emplace_back(std::move(key), std::move(value)); }
  bool Erase(std::string_view key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        entries_.erase(it);
        return true;
      }
    }
    return false;
  }
  void Reserve(size_t n) { entries_.reserve(n); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  const std::vector<Entry>& entries() const { return entries_; }
  bool operator==(const OrderedMap& o) const = default;

 private:
  std::vector<Entry> entries_;
};

// Map[String,String] of the protocol (tags, configuration, format options, ...). A JSON null
// value is dropped when parsing (Spark never writes one in these maps).
using StringMap = OrderedMap<std::string>;
// partitionValues: a null value is a NULL partition value (also "" for non-string types; the
// reader interprets it against the schema, see partition_values.h).
using PartitionValues = OrderedMap<std::optional<std::string>>;

// DeletionVectorDescriptor: see delta/dv_descriptor.h.

struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  std::optional<std::vector<std::string>> reader_features;  // present iff reader version 3
  std::optional<std::vector<std::string>> writer_features;  // present iff writer version 7
  bool operator==(const Protocol&) const = default;
};

struct Format {
  std::string provider = "parquet";
  StringMap options;
  bool operator==(const Format&) const = default;
};

struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  Format format;
  // Required by the protocol, but very old test tables omit it (Spark reads that as an empty
  // schema), so absence is kept rather than rejected.
  std::optional<std::string> schema_string;
  std::vector<std::string> partition_columns;
  StringMap configuration;
  std::optional<int64_t> created_time;
  bool operator==(const Metadata&) const = default;
};

struct AddFile {
  std::string path;  // URI-encoded, relative to the table root or absolute
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;  // the stats JSON text (see stats_json.h)
  std::optional<StringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
  bool operator==(const AddFile&) const = default;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValues> partition_values;
  std::optional<int64_t> size;
  std::optional<StringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> stats;
  bool operator==(const RemoveFile&) const = default;
};

struct AddCDCFile {
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  std::optional<StringMap> tags;
  bool data_change = false;
  bool operator==(const AddCDCFile&) const = default;
};

struct SetTransaction {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
  bool operator==(const SetTransaction&) const = default;
};

// commitInfo is free-form JSON. raw_json is the exact object text as read; when it is non-empty
// SerializeAction writes it verbatim (clear it to serialize from the parsed fields instead).
// Fields of unexpected JSON types are left unset rather than rejected.
struct CommitInfo {
  std::string raw_json;
  std::optional<int64_t> version;
  std::optional<int64_t> in_commit_timestamp;
  std::optional<int64_t> timestamp;
  std::optional<std::string> user_id;
  std::optional<std::string> user_name;
  std::optional<std::string> operation;
  // Values are JSON texts, as Spark keeps them (its JsonMapSerializer writes them raw):
  // {"mode":"Append"} is stored as mode → "\"Append\"", {"statsOnLoad":false} as "false".
  std::optional<StringMap> operation_parameters;
  std::optional<std::string> cluster_id;
  std::optional<int64_t> read_version;
  std::optional<std::string> isolation_level;
  std::optional<bool> is_blind_append;
  std::optional<StringMap> operation_metrics;  // plain strings ("numFiles" → "1")
  std::optional<std::string> user_metadata;
  std::optional<StringMap> tags;
  std::optional<std::string> engine_info;
  std::optional<std::string> txn_id;
  bool operator==(const CommitInfo&) const = default;
};

struct DomainMetadata {
  std::string domain;
  std::string configuration;  // opaque, usually JSON text
  bool removed = false;
  bool operator==(const DomainMetadata&) const = default;
};

struct CheckpointMetadata {
  int64_t version = 0;
  std::optional<StringMap> tags;
  bool operator==(const CheckpointMetadata&) const = default;
};

struct Sidecar {
  std::string path;
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
  std::optional<StringMap> tags;
  bool operator==(const Sidecar&) const = default;
};

// A top-level key this version does not know (kept so callers can report or count it).
struct UnknownAction {
  std::string key;
  bool operator==(const UnknownAction&) const = default;
};

// Order matches the variant alternatives of Action::value.
enum class ActionKind : uint8_t {
  kUnknown,
  kProtocol,
  kMetadata,
  kAdd,
  kRemove,
  kCdc,
  kTxn,
  kCommitInfo,
  kDomainMetadata,
  kCheckpointMetadata,
  kSidecar,
};

static_assert(static_cast<int>(ActionKind::kSidecar) == 10, "keep in sync with Action::value");

// The JSON key of an action kind ("add", "metaData", ...; "" for kUnknown).
const char* ActionKindKey(ActionKind kind);

struct Action {
  std::variant<UnknownAction, Protocol, Metadata, AddFile, RemoveFile, AddCDCFile, SetTransaction,
               CommitInfo, DomainMetadata, CheckpointMetadata, Sidecar>
      value;

  Action() = default;
  template <typename T>
  requires(!std::is_same_v<std::decay_t<T>, Action>) Action(T v)
      : value(std::move(v)) {}  // NOLINT: implicit from any action struct

  ActionKind kind() const { return static_cast<ActionKind>(value.index()); }
  template <typename T>
  const T* get_if() const {
    return std::get_if<T>(&value);
  }
  template <typename T>
  T* get_if() {
    return std::get_if<T>(&value);
  }
  bool operator==(const Action&) const = default;
};

// Parses action lines. Holds a reusable JSON parser: create one per thread/commit stream and
// reuse it (parsing 300k lines allocates only for the action's own strings and maps).
// Not thread-safe.
class ActionParser {
 public:
  ActionParser();
  ~ActionParser();
  ActionParser(const ActionParser&) = delete;
  ActionParser& operator=(const ActionParser&) = delete;

  // Parses one non-blank line. `where` prefixes error messages (e.g.
  // "00000000000000000001.json:3").
  Status Parse(std::string_view line, Action* out, std::string_view where = "");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One line (one JSON object) into *out. Uses a thread-local ActionParser.
Status ParseActionLine(std::string_view line, Action* out);

// A whole commit (or JSON checkpoint / sidecar) file: newline-delimited JSON, blank lines and a
// trailing "\r" skipped, unknown actions kept as kUnknown. Actions are appended to *out in file
// order. Errors name `file_name_for_errors` and the 1-based line number.
Status ParseCommit(std::string_view file_bytes, std::vector<Action>* out,
                   const std::string& file_name_for_errors);

// One JSON line (no trailing newline) as Delta-Spark writes it.
std::string SerializeAction(const Action& action);
// Appends SerializeAction(a) + "\n" for each action: the bytes of a commit file.
std::string SerializeCommit(const std::vector<Action>& actions);

}  // namespace silt::delta
