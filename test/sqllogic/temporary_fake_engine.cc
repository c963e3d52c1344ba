// TEMPORARY — test code, linked only while the tree has no src/engine/*.cc (see CMakeLists.txt):
// definitions of the public API (include/silt/silt.h) so that `silt sql`, `silt shell` and
// silt_sql_tests link and can be tried before the real engine is merged. It understands only
// `SELECT literal, ...` (no FROM) and `SET key = value`; everything else is NOT_IMPLEMENTED.
// Delete this file once the engine lands (CMake stops using it by itself).
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "silt/silt.h"

namespace silt {
namespace engine {
class DatabaseState {
 public:
  DatabaseOptions options;
};
class SessionState {
 public:
  std::map<std::string, std::string> conf;
  std::string schema = "default";
};
}  // namespace engine

namespace {
Status NotInThisBuild() {
  return Status::NotImplemented(
      "the SQL engine is not in this build (temporary fake engine: only SELECT of literals and "
      "SET)");
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && (std::isspace(static_cast<unsigned char>(s[e - 1])) || s[e - 1] == ';')) --e;
  return std::string(s.substr(b, e - b));
}

bool StartsWithWord(const std::string& s, const char* w) {
  size_t n = std::strlen(w);
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != w[i]) return false;
  }
  return s.size() == n || std::isspace(static_cast<unsigned char>(s[n]));
}

Result<std::unique_ptr<QueryResult>> FakeSelect(const std::string& list) {
  Schema schema;
  std::vector<Value> values;
  size_t p = 0;
  while (p < list.size()) {
    while (p < list.size() && std::isspace(static_cast<unsigned char>(list[p]))) ++p;
    std::string item;
    if (p < list.size() && list[p] == '\'') {
      ++p;
      while (p < list.size() && list[p] != '\'') item += list[p++];
      if (p >= list.size()) return NotInThisBuild();
      ++p;
      values.push_back(Value::String(item));
      schema.push_back({item, DataType::String(), false, "{}"});
    } else {
      while (p < list.size() && list[p] != ',') item += list[p++];
      item = Trim(item);
      char* end = nullptr;
      if (item == "NULL" || item == "null") {
        values.push_back(Value::Null(DataType::Null()));
        schema.push_back({"NULL", DataType::Null(), true, "{}"});
      } else if (item == "true" || item == "false") {
        values.push_back(Value::Boolean(item == "true"));
        schema.push_back({item, DataType::Boolean(), false, "{}"});
      } else if (long long v = std::strtoll(item.c_str(), &end, 10); !item.empty() && !*end) {
        values.push_back(Value::Int32(static_cast<int32_t>(v)));
        schema.push_back({item, DataType::Int32(), false, "{}"});
      } else if (double d = std::strtod(item.c_str(), &end); !item.empty() && !*end) {
        values.push_back(Value::Double(d));
        schema.push_back({item, DataType::Double(), false, "{}"});
      } else {
        return NotInThisBuild();
      }
    }
    while (p < list.size() && std::isspace(static_cast<unsigned char>(list[p]))) ++p;
    if (p < list.size()) {
      if (list[p] != ',') return NotInThisBuild();
      ++p;
    }
  }
  DataChunk chunk = DataChunk::FromSchema(schema);
  for (size_t c = 0; c < values.size(); ++c) {
    if (values[c].type()->id() == TypeId::kNull) {
      chunk.columns[c].AppendNull();
    } else {
      SILT_RETURN_NOT_OK(chunk.columns[c].AppendValue(values[c]));
    }
  }
  std::vector<DataChunk> chunks;
  chunks.push_back(std::move(chunk));
  auto r = std::make_unique<QueryResult>(std::move(schema), std::move(chunks));
  r->statement = "query";
  return r;
}
}  // namespace

Result<std::shared_ptr<Database>> Database::Open(DatabaseOptions options) {
  std::error_code ec;
  std::filesystem::create_directories(options.warehouse, ec);
  if (ec) return Status::IoError("cannot create the warehouse " + options.warehouse);
  std::shared_ptr<Database> db(new Database());
  db->state_ = std::make_unique<engine::DatabaseState>();
  db->state_->options = std::move(options);
  return db;
}
Database::~Database() = default;
const DatabaseOptions& Database::options() const { return state_->options; }

size_t QueryResult::num_rows() const {
  size_t n = 0;
  for (const DataChunk& c : chunks_) n += c.size();
  return n;
}
std::vector<Value> QueryResult::Row(size_t i) const {
  for (const DataChunk& c : chunks_) {
    if (i < c.size()) return c.GetRow(i);
    i -= c.size();
  }
  return {};
}

Connection::Connection(std::shared_ptr<Database> db)
    : db_(std::move(db)), session_(std::make_unique<engine::SessionState>()) {}
Connection::~Connection() = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

Result<std::unique_ptr<QueryResult>> Connection::Query(std::string_view sql) {
  std::string s = Trim(sql);
  if (StartsWithWord(s, "select")) return FakeSelect(s.substr(6));
  if (StartsWithWord(s, "set")) {
    std::string kv = s.substr(3);
    size_t eq = kv.find('=');
    if (eq == std::string::npos) return NotInThisBuild();
    SILT_RETURN_NOT_OK(SetConfig(Trim(kv.substr(0, eq)), Trim(kv.substr(eq + 1))));
    return std::make_unique<QueryResult>(Schema{}, std::vector<DataChunk>{});
  }
  return NotInThisBuild();
}

Result<std::vector<std::unique_ptr<QueryResult>>> Connection::QueryAll(std::string_view sql) {
  std::vector<std::unique_ptr<QueryResult>> out;
  SILT_ASSIGN_OR_RETURN(auto r, Query(sql));
  out.push_back(std::move(r));
  return out;
}

std::optional<std::string> Connection::GetConfig(const std::string& key) const {
  auto it = session_->conf.find(key);
  if (it == session_->conf.end()) return std::nullopt;
  return it->second;
}
Status Connection::SetConfig(const std::string& key, const std::string& value) {
  session_->conf[key] = value;
  return Status::OK();
}
const std::string& Connection::current_schema() const { return session_->schema; }

}  // namespace silt
