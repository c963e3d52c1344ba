#include "delta/actions.h"

#include <simdjson.h>

#include <limits>

#include "delta/json_util.h"

namespace silt::delta {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

const char* ActionKindKey(ActionKind kind) {
  switch (kind) {
    case ActionKind::kUnknown:
      return "";
    case ActionKind::kProtocol:
      return "protocol";
    case ActionKind::kMetadata:
      return "metaData";
    case ActionKind::kAdd:
      return "add";
    case ActionKind::kRemove:
      return "remove";
    case ActionKind::kCdc:
      return "cdc";
    case ActionKind::kTxn:
      return "txn";
    case ActionKind::kCommitInfo:
      return "commitInfo";
    case ActionKind::kDomainMetadata:
      return "domainMetadata";
    case ActionKind::kCheckpointMetadata:
      return "checkpointMetadata";
    case ActionKind::kSidecar:
      return "sidecar";
  }
  return "";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Parsing

// Where an error happened: "<file>:<line>" and the action key.
struct Ctx {
  std::string_view where;
  std::string_view action;
};

Status Bad(const Ctx& c, std::string_view field, std::string_view what) {
  std::string m;
  if (!c.where.empty()) {
    m.append(c.where);
    m += ": ";
  }
  m.append(c.action);
  if (!field.empty()) {
    m += '.';
    m.append(field);
  }
  m += ": ";
  m.append(what);
  return Status::Corruption(std::move(m), kInvalidCommitFileClass);
}

Status WrongType(const Ctx& c, std::string_view field, const char* expected, element e) {
  return Bad(c, field, std::string("expected ") + expected + ", found " + JsonTypeName(e.type()));
}

Status GetString(const Ctx& c, std::string_view f, element e, std::string* out) {
  std::string_view sv;
  if (e.get_string().get(sv)) return WrongType(c, f, "a string", e);
  out->assign(sv);
  return Status::OK();
}

Status GetLong(const Ctx& c, std::string_view f, element e, int64_t* out) {
  if (e.type() != element_type::INT64) return WrongType(c, f, "a long", e);
  *out = e.get_int64().value_unsafe();
  return Status::OK();
}

Status GetInt(const Ctx& c, std::string_view f, element e, int32_t* out) {
  int64_t v;
  SILT_RETURN_NOT_OK(GetLong(c, f, e, &v));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Bad(c, f, "integer out of range");
  }
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status GetBool(const Ctx& c, std::string_view f, element e, bool* out) {
  if (e.get_bool().get(*out)) return WrongType(c, f, "a boolean", e);
  return Status::OK();
}

// Optional fields: JSON null means absent.
Status GetOptString(const Ctx& c, std::string_view f, element e, std::optional<std::string>* out) {
  if (e.is_null()) {
    out->reset();
    return Status::OK();
  }
  return GetString(c, f, e, &out->emplace());
}

Status GetOptLong(const Ctx& c, std::string_view f, element e, std::optional<int64_t>* out) {
  if (e.is_null()) {
    out->reset();
    return Status::OK();
  }
  return GetLong(c, f, e, &out->emplace());
}

Status GetOptBool(const Ctx& c, std::string_view f, element e, std::optional<bool>* out) {
  if (e.is_null()) {
    out->reset();
    return Status::OK();
  }
  return GetBool(c, f, e, &out->emplace());
}

// Map[String,String]: Jackson coerces scalar values to their text; null values are dropped.
Status GetStringMap(const Ctx& c, std::string_view f, element e, StringMap* out) {
  object obj;
  if (e.get_object().get(obj)) return WrongType(c, f, "an object", e);
  *out = StringMap();
  out->Reserve(obj.size());
  for (auto field : obj) {
    element v = field.value;
    switch (v.type()) {
      case element_type::STRING:
        out->Append(std::string(field.key), std::string(v.get_string().value_unsafe()));
        break;
      case element_type::NULL_VALUE:
        break;
      case element_type::OBJECT:
      case element_type::ARRAY:
        return Bad(c, f, "map value of '" + std::string(field.key) + "' is not a string");
      default: {
        std::string text;
        AppendJsonElement(&text, v);
        out->Append(std::string(field.key), std::move(text));
      }
    }
  }
  return Status::OK();
}

Status GetOptStringMap(const Ctx& c, std::string_view f, element e, std::optional<StringMap>* out) {
  if (e.is_null()) {
    out->reset();
    return Status::OK();
  }
  return GetStringMap(c, f, e, &out->emplace());
}

Status GetPartitionValues(const Ctx& c, std::string_view f, element e, PartitionValues* out) {
  object obj;
  if (e.get_object().get(obj)) return WrongType(c, f, "an object", e);
  *out = PartitionValues();
  out->Reserve(obj.size());
  for (auto field : obj) {
    element v = field.value;
    switch (v.type()) {
      case element_type::STRING:
        out->Append(std::string(field.key), std::string(v.get_string().value_unsafe()));
        break;
      case element_type::NULL_VALUE:
        out->Append(std::string(field.key), std::nullopt);
        break;
      case element_type::OBJECT:
      case element_type::ARRAY:
        return Bad(c, f, "value of '" + std::string(field.key) + "' is not a string");
      default: {
        std::string text;
        AppendJsonElement(&text, v);
        out->Append(std::string(field.key), std::move(text));
      }
    }
  }
  return Status::OK();
}

Status GetStringArray(const Ctx& c, std::string_view f, element e, std::vector<std::string>* out) {
  simdjson::dom::array arr;
  if (e.get_array().get(arr)) return WrongType(c, f, "an array", e);
  out->clear();
  out->reserve(arr.size());
  for (element v : arr) {
    std::string_view sv;
    if (v.get_string().get(sv)) return WrongType(c, f, "an array of strings", v);
    out->emplace_back(sv);
  }
  return Status::OK();
}

Status GetOptStringArray(const Ctx& c, std::string_view f, element e,
                         std::optional<std::vector<std::string>>* out) {
  if (e.is_null()) {
    out->reset();
    return Status::OK();
  }
  return GetStringArray(c, f, e, &out->emplace());
}

Status Missing(const Ctx& c, std::string_view field) {
  return Bad(c, field, "required field is missing");
}

Status GetDv(const Ctx& c, element e, std::optional<DeletionVectorDescriptor>* out) {
  if (e.is_null()) {
    out->reset();
    return Status::OK();
  }
  object obj;
  if (e.get_object().get(obj)) return WrongType(c, "deletionVector", "an object", e);
  std::string dv_action = std::string(c.action) + ".deletionVector";
  Ctx dc{c.where, dv_action};
  DeletionVectorDescriptor& dv = out->emplace();
  bool has_type = false, has_path = false, has_size = false, has_card = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "storageType") {
      std::string t;
      SILT_RETURN_NOT_OK(GetString(dc, k, v, &t));
      if (t.size() != 1) return Bad(dc, k, "expected a single character, found '" + t + "'");
      dv.storage_type = t[0];
      has_type = true;
    } else if (k == "pathOrInlineDv") {
      SILT_RETURN_NOT_OK(GetString(dc, k, v, &dv.path_or_inline_dv));
      has_path = true;
    } else if (k == "offset") {
      if (v.is_null()) {
        dv.offset.reset();
      } else {
        SILT_RETURN_NOT_OK(GetInt(dc, k, v, &dv.offset.emplace()));
      }
    } else if (k == "sizeInBytes") {
      SILT_RETURN_NOT_OK(GetInt(dc, k, v, &dv.size_in_bytes));
      has_size = true;
    } else if (k == "cardinality") {
      SILT_RETURN_NOT_OK(GetLong(dc, k, v, &dv.cardinality));
      has_card = true;
    }
  }
  if (!has_type) return Missing(dc, "storageType");
  if (!has_path) return Missing(dc, "pathOrInlineDv");
  if (!has_size) return Missing(dc, "sizeInBytes");
  if (!has_card) return Missing(dc, "cardinality");
  if (dv.size_in_bytes < 0) return Bad(dc, "sizeInBytes", "must not be negative");
  if (dv.cardinality < 0) return Bad(dc, "cardinality", "must not be negative");
  if (dv.offset && *dv.offset < 0) return Bad(dc, "offset", "must not be negative");
  return Status::OK();
}

Status ParseProtocol(const Ctx& c, object obj, Protocol* p) {
  bool has_r = false, has_w = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "minReaderVersion") {
      SILT_RETURN_NOT_OK(GetInt(c, k, v, &p->min_reader_version));
      has_r = true;
    } else if (k == "minWriterVersion") {
      SILT_RETURN_NOT_OK(GetInt(c, k, v, &p->min_writer_version));
      has_w = true;
    } else if (k == "readerFeatures") {
      SILT_RETURN_NOT_OK(GetOptStringArray(c, k, v, &p->reader_features));
    } else if (k == "writerFeatures") {
      SILT_RETURN_NOT_OK(GetOptStringArray(c, k, v, &p->writer_features));
    }
  }
  if (!has_r) return Missing(c, "minReaderVersion");
  if (!has_w) return Missing(c, "minWriterVersion");
  return Status::OK();
}

Status ParseMetadata(const Ctx& c, object obj, Metadata* m) {
  bool has_id = false, has_format = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "id") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &m->id));
      has_id = true;
    } else if (k == "name") {
      SILT_RETURN_NOT_OK(GetOptString(c, k, v, &m->name));
    } else if (k == "description") {
      SILT_RETURN_NOT_OK(GetOptString(c, k, v, &m->description));
    } else if (k == "format") {
      object fobj;
      if (v.get_object().get(fobj)) return WrongType(c, k, "an object", v);
      Ctx fc{c.where, "metaData.format"};
      for (auto ff : fobj) {
        if (ff.key == "provider") {
          SILT_RETURN_NOT_OK(GetString(fc, ff.key, ff.value, &m->format.provider));
        } else if (ff.key == "options" && !ff.value.is_null()) {
          SILT_RETURN_NOT_OK(GetStringMap(fc, ff.key, ff.value, &m->format.options));
        }
      }
      has_format = true;
    } else if (k == "schemaString") {
      SILT_RETURN_NOT_OK(GetOptString(c, k, v, &m->schema_string));
    } else if (k == "partitionColumns") {
      if (!v.is_null()) SILT_RETURN_NOT_OK(GetStringArray(c, k, v, &m->partition_columns));
    } else if (k == "configuration") {
      if (!v.is_null()) SILT_RETURN_NOT_OK(GetStringMap(c, k, v, &m->configuration));
    } else if (k == "createdTime") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &m->created_time));
    }
  }
  if (!has_id) return Missing(c, "id");
  if (!has_format) return Missing(c, "format");
  return Status::OK();
}

Status ParseAdd(const Ctx& c, object obj, AddFile* a) {
  bool has_path = false, has_pv = false, has_size = false, has_mtime = false, has_dc = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "path") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &a->path));
      has_path = true;
    } else if (k == "partitionValues") {
      SILT_RETURN_NOT_OK(GetPartitionValues(c, k, v, &a->partition_values));
      has_pv = true;
    } else if (k == "size") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &a->size));
      has_size = true;
    } else if (k == "modificationTime") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &a->modification_time));
      has_mtime = true;
    } else if (k == "dataChange") {
      SILT_RETURN_NOT_OK(GetBool(c, k, v, &a->data_change));
      has_dc = true;
    } else if (k == "stats") {
      SILT_RETURN_NOT_OK(GetOptString(c, k, v, &a->stats));
    } else if (k == "tags") {
      SILT_RETURN_NOT_OK(GetOptStringMap(c, k, v, &a->tags));
    } else if (k == "deletionVector") {
      SILT_RETURN_NOT_OK(GetDv(c, v, &a->deletion_vector));
    } else if (k == "baseRowId") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &a->base_row_id));
    } else if (k == "defaultRowCommitVersion") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &a->default_row_commit_version));
    } else if (k == "clusteringProvider") {
      SILT_RETURN_NOT_OK(GetOptString(c, k, v, &a->clustering_provider));
    }
  }
  if (!has_path) return Missing(c, "path");
  if (a->path.empty()) return Bad(c, "path", "must not be empty");
  if (!has_pv) return Missing(c, "partitionValues");
  if (!has_size) return Missing(c, "size");
  if (a->size < 0) return Bad(c, "size", "must not be negative, found " + std::to_string(a->size));
  if (!has_mtime) return Missing(c, "modificationTime");
  if (!has_dc) return Missing(c, "dataChange");
  return Status::OK();
}

Status ParseRemove(const Ctx& c, object obj, RemoveFile* r) {
  bool has_path = false, has_dc = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "path") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &r->path));
      has_path = true;
    } else if (k == "deletionTimestamp") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &r->deletion_timestamp));
    } else if (k == "dataChange") {
      SILT_RETURN_NOT_OK(GetBool(c, k, v, &r->data_change));
      has_dc = true;
    } else if (k == "extendedFileMetadata") {
      SILT_RETURN_NOT_OK(GetOptBool(c, k, v, &r->extended_file_metadata));
    } else if (k == "partitionValues") {
      if (v.is_null()) {
        r->partition_values.reset();
      } else {
        SILT_RETURN_NOT_OK(GetPartitionValues(c, k, v, &r->partition_values.emplace()));
      }
    } else if (k == "size") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &r->size));
    } else if (k == "stats") {
      SILT_RETURN_NOT_OK(GetOptString(c, k, v, &r->stats));
    } else if (k == "tags") {
      SILT_RETURN_NOT_OK(GetOptStringMap(c, k, v, &r->tags));
    } else if (k == "deletionVector") {
      SILT_RETURN_NOT_OK(GetDv(c, v, &r->deletion_vector));
    } else if (k == "baseRowId") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &r->base_row_id));
    } else if (k == "defaultRowCommitVersion") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &r->default_row_commit_version));
    }
  }
  if (!has_path) return Missing(c, "path");
  // Spark defaults dataChange to true for removes (old writers omit it).
  if (!has_dc) r->data_change = true;
  return Status::OK();
}

Status ParseCdc(const Ctx& c, object obj, AddCDCFile* a) {
  bool has_path = false, has_pv = false, has_size = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "path") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &a->path));
      has_path = true;
    } else if (k == "partitionValues") {
      SILT_RETURN_NOT_OK(GetPartitionValues(c, k, v, &a->partition_values));
      has_pv = true;
    } else if (k == "size") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &a->size));
      has_size = true;
    } else if (k == "tags") {
      SILT_RETURN_NOT_OK(GetOptStringMap(c, k, v, &a->tags));
    } else if (k == "dataChange") {
      SILT_RETURN_NOT_OK(GetBool(c, k, v, &a->data_change));
    }
  }
  if (!has_path) return Missing(c, "path");
  if (!has_pv) return Missing(c, "partitionValues");
  if (!has_size) return Missing(c, "size");
  if (a->size < 0) return Bad(c, "size", "must not be negative, found " + std::to_string(a->size));
  return Status::OK();
}

Status ParseTxn(const Ctx& c, object obj, SetTransaction* t) {
  bool has_app = false, has_version = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "appId") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &t->app_id));
      has_app = true;
    } else if (k == "version") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &t->version));
      has_version = true;
    } else if (k == "lastUpdated") {
      SILT_RETURN_NOT_OK(GetOptLong(c, k, v, &t->last_updated));
    }
  }
  if (!has_app) return Missing(c, "appId");
  if (!has_version) return Missing(c, "version");
  return Status::OK();
}

// Lenient: a field of an unexpected type is left unset.
void ParseCommitInfoFields(object obj, CommitInfo* ci) {
  Ctx c{"", "commitInfo"};
  auto opt_long = [](element v, std::optional<int64_t>* out) {
    if (v.type() == element_type::INT64) *out = v.get_int64().value_unsafe();
  };
  auto opt_string = [](element v, std::optional<std::string>* out) {
    std::string_view sv;
    if (!v.get_string().get(sv)) *out = std::string(sv);
  };
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "version") {
      opt_long(v, &ci->version);
    } else if (k == "inCommitTimestamp") {
      opt_long(v, &ci->in_commit_timestamp);
    } else if (k == "timestamp") {
      opt_long(v, &ci->timestamp);
    } else if (k == "userId") {
      opt_string(v, &ci->user_id);
    } else if (k == "userName") {
      opt_string(v, &ci->user_name);
    } else if (k == "operation") {
      opt_string(v, &ci->operation);
    } else if (k == "operationParameters") {
      object params;
      if (v.get_object().get(params)) continue;
      StringMap& m = ci->operation_parameters.emplace();
      for (auto p : params) {
        std::string text;
        AppendJsonElement(&text, p.value);
        m.Append(std::string(p.key), std::move(text));
      }
    } else if (k == "clusterId") {
      opt_string(v, &ci->cluster_id);
    } else if (k == "readVersion") {
      opt_long(v, &ci->read_version);
    } else if (k == "isolationLevel") {
      opt_string(v, &ci->isolation_level);
    } else if (k == "isBlindAppend") {
      bool b;
      if (!v.get_bool().get(b)) ci->is_blind_append = b;
    } else if (k == "operationMetrics") {
      StringMap m;
      if (GetStringMap(c, k, v, &m).ok()) ci->operation_metrics = std::move(m);
    } else if (k == "userMetadata") {
      opt_string(v, &ci->user_metadata);
    } else if (k == "tags") {
      StringMap m;
      if (GetStringMap(c, k, v, &m).ok()) ci->tags = std::move(m);
    } else if (k == "engineInfo") {
      opt_string(v, &ci->engine_info);
    } else if (k == "txnId") {
      opt_string(v, &ci->txn_id);
    }
  }
}

Status ParseDomainMetadata(const Ctx& c, object obj, DomainMetadata* d) {
  bool has_domain = false, has_config = false, has_removed = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "domain") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &d->domain));
      has_domain = true;
    } else if (k == "configuration") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &d->configuration));
      has_config = true;
    } else if (k == "removed") {
      SILT_RETURN_NOT_OK(GetBool(c, k, v, &d->removed));
      has_removed = true;
    }
  }
  if (!has_domain) return Missing(c, "domain");
  if (!has_config) return Missing(c, "configuration");
  if (!has_removed) return Missing(c, "removed");
  return Status::OK();
}

Status ParseCheckpointMetadata(const Ctx& c, object obj, CheckpointMetadata* m) {
  bool has_version = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "version") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &m->version));
      has_version = true;
    } else if (k == "tags") {
      SILT_RETURN_NOT_OK(GetOptStringMap(c, k, v, &m->tags));
    }
  }
  if (!has_version) return Missing(c, "version");
  return Status::OK();
}

Status ParseSidecar(const Ctx& c, object obj, Sidecar* s) {
  bool has_path = false, has_size = false, has_mtime = false;
  for (auto field : obj) {
    std::string_view k = field.key;
    element v = field.value;
    if (k == "path") {
      SILT_RETURN_NOT_OK(GetString(c, k, v, &s->path));
      has_path = true;
    } else if (k == "sizeInBytes") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &s->size_in_bytes));
      has_size = true;
    } else if (k == "modificationTime") {
      SILT_RETURN_NOT_OK(GetLong(c, k, v, &s->modification_time));
      has_mtime = true;
    } else if (k == "tags") {
      SILT_RETURN_NOT_OK(GetOptStringMap(c, k, v, &s->tags));
    }
  }
  if (!has_path) return Missing(c, "path");
  if (!has_size) return Missing(c, "sizeInBytes");
  if (!has_mtime) return Missing(c, "modificationTime");
  return Status::OK();
}

ActionKind KindOfKey(std::string_view k) {
  switch (k.empty() ? 0 : k[0]) {
    case 'a':
      return k == "add" ? ActionKind::kAdd : ActionKind::kUnknown;
    case 'r':
      return k == "remove" ? ActionKind::kRemove : ActionKind::kUnknown;
    case 'm':
      return k == "metaData" ? ActionKind::kMetadata : ActionKind::kUnknown;
    case 'p':
      return k == "protocol" ? ActionKind::kProtocol : ActionKind::kUnknown;
    case 'c':
      if (k == "commitInfo") return ActionKind::kCommitInfo;
      if (k == "cdc") return ActionKind::kCdc;
      if (k == "checkpointMetadata") return ActionKind::kCheckpointMetadata;
      return ActionKind::kUnknown;
    case 't':
      return k == "txn" ? ActionKind::kTxn : ActionKind::kUnknown;
    case 'd':
      return k == "domainMetadata" ? ActionKind::kDomainMetadata : ActionKind::kUnknown;
    case 's':
      return k == "sidecar" ? ActionKind::kSidecar : ActionKind::kUnknown;
    default:
      return ActionKind::kUnknown;
  }
}

std::string SimdjsonErrorText(simdjson::error_code err) { return simdjson::error_message(err); }

}  // namespace

struct ActionParser::Impl {
  simdjson::dom::parser dom;
  simdjson::ondemand::parser ondemand;
  std::string padded;  // line copy with SIMDJSON_PADDING for the ondemand parser

  // The exact text of the top-level "commitInfo" object.
  Status RawCommitInfo(std::string_view line, const Ctx& c, std::string* out) {
    padded.assign(line);
    padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
    simdjson::padded_string_view view(padded.data(), line.size(), padded.size());
    simdjson::ondemand::document doc;
    simdjson::ondemand::object top, ci;
    std::string_view raw;
    auto err = ondemand.iterate(view).get(doc);
    if (!err) err = doc.get_object().get(top);
    if (!err) err = top.find_field_unordered("commitInfo").get_object().get(ci);
    if (!err) err = ci.raw_json().get(raw);
    if (err) return Bad(c, "", "cannot extract the object: " + SimdjsonErrorText(err));
    out->assign(raw);
    return Status::OK();
  }
};

ActionParser::ActionParser() : impl_(std::make_unique<Impl>()) {}
ActionParser::~ActionParser() = default;

Status ActionParser::Parse(std::string_view line, Action* out, std::string_view where) {
  element doc;
  auto err = impl_->dom.parse(line.data(), line.size()).get(doc);
  Ctx top{where, "action"};
  if (err) return Bad(top, "", "invalid JSON: " + SimdjsonErrorText(err));
  object obj;
  if (doc.get_object().get(obj)) return WrongType(top, "", "an object", doc);
  ActionKind kind = ActionKind::kUnknown;
  element value;
  std::string_view first_unknown;
  bool any_unknown = false;
  for (auto field : obj) {
    ActionKind k = KindOfKey(field.key);
    if (k == ActionKind::kUnknown) {
      if (!any_unknown) first_unknown = field.key;
      any_unknown = true;
      continue;
    }
    if (field.value.is_null()) continue;  // {"add":null}: Spark's SingleAction slot unset
    if (kind != ActionKind::kUnknown) {
      return Bad(top, "",
                 std::string("more than one action in a line (") + ActionKindKey(kind) + ", " +
                     std::string(field.key) + ")");
    }
    kind = k;
    value = field.value;
  }
  if (kind == ActionKind::kUnknown) {
    *out = Action(UnknownAction{std::string(first_unknown)});
    return Status::OK();
  }
  Ctx c{where, ActionKindKey(kind)};
  object aobj;
  if (value.get_object().get(aobj)) return WrongType(c, "", "an object", value);
  switch (kind) {
    case ActionKind::kProtocol: {
      Protocol p;
      SILT_RETURN_NOT_OK(ParseProtocol(c, aobj, &p));
      *out = Action(std::move(p));
      break;
    }
    case ActionKind::kMetadata: {
      Metadata m;
      SILT_RETURN_NOT_OK(ParseMetadata(c, aobj, &m));
      *out = Action(std::move(m));
      break;
    }
    case ActionKind::kAdd: {
      out->value.emplace<AddFile>();
      SILT_RETURN_NOT_OK(ParseAdd(c, aobj, std::get_if<AddFile>(&out->value)));
      break;
    }
    case ActionKind::kRemove: {
      out->value.emplace<RemoveFile>();
      SILT_RETURN_NOT_OK(ParseRemove(c, aobj, std::get_if<RemoveFile>(&out->value)));
      break;
    }
    case ActionKind::kCdc: {
      AddCDCFile a;
      SILT_RETURN_NOT_OK(ParseCdc(c, aobj, &a));
      *out = Action(std::move(a));
      break;
    }
    case ActionKind::kTxn: {
      SetTransaction t;
      SILT_RETURN_NOT_OK(ParseTxn(c, aobj, &t));
      *out = Action(std::move(t));
      break;
    }
    case ActionKind::kCommitInfo: {
      CommitInfo ci;
      ParseCommitInfoFields(aobj, &ci);
      SILT_RETURN_NOT_OK(impl_->RawCommitInfo(line, c, &ci.raw_json));
      *out = Action(std::move(ci));
      break;
    }
    case ActionKind::kDomainMetadata: {
      DomainMetadata d;
      SILT_RETURN_NOT_OK(ParseDomainMetadata(c, aobj, &d));
      *out = Action(std::move(d));
      break;
    }
    case ActionKind::kCheckpointMetadata: {
      CheckpointMetadata m;
      SILT_RETURN_NOT_OK(ParseCheckpointMetadata(c, aobj, &m));
      *out = Action(std::move(m));
      break;
    }
    case ActionKind::kSidecar: {
      Sidecar s;
      SILT_RETURN_NOT_OK(ParseSidecar(c, aobj, &s));
      *out = Action(std::move(s));
      break;
    }
    case ActionKind::kUnknown:
      break;
  }
  return Status::OK();
}

Status ParseActionLine(std::string_view line, Action* out) {
  thread_local ActionParser parser;
  return parser.Parse(line, out);
}

Status ParseCommit(std::string_view bytes, std::vector<Action>* out,
                   const std::string& file_name_for_errors) {
  thread_local ActionParser parser;
  size_t pos = 0;
  int64_t line_no = 0;
  std::string where;
  while (pos < bytes.size()) {
    size_t nl = bytes.find('\n', pos);
    size_t end = nl == std::string_view::npos ? bytes.size() : nl;
    std::string_view line = bytes.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    where = file_name_for_errors;
    where += ':';
    where += std::to_string(line_no);
    out->emplace_back();
    Status st = parser.Parse(line, &out->back(), where);
    if (!st.ok()) {
      out->pop_back();
      return st;
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Serialization (Jackson field order of actions.scala; NON_ABSENT: absent optionals omitted)

namespace {

class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}
  void Key(std::string_view k) {
    if (need_comma_) out_->push_back(',');
    need_comma_ = true;
    AppendJacksonString(out_, k);
    out_->push_back(':');
  }
  void Begin() {
    out_->push_back('{');
    need_comma_ = false;
  }
  void End() {
    out_->push_back('}');
    need_comma_ = true;
  }
  void String(std::string_view k, std::string_view v) {
    Key(k);
    AppendJacksonString(out_, v);
  }
  void Long(std::string_view k, int64_t v) {
    Key(k);
    AppendInt(out_, v);
  }
  void Bool(std::string_view k, bool v) {
    Key(k);
    *out_ += v ? "true" : "false";
  }
  void OptString(std::string_view k, const std::optional<std::string>& v) {
    if (v) String(k, *v);
  }
  void OptLong(std::string_view k, const std::optional<int64_t>& v) {
    if (v) Long(k, *v);
  }
  void OptBool(std::string_view k, const std::optional<bool>& v) {
    if (v) Bool(k, *v);
  }
  void Map(std::string_view k, const StringMap& m) {
    Key(k);
    Begin();
    for (const auto& [key, value] : m) String(key, value);
    End();
  }
  // Values are JSON texts written raw (Spark's JsonMapSerializer).
  void RawMap(std::string_view k, const StringMap& m) {
    Key(k);
    Begin();
    for (const auto& [key, value] : m) {
      Key(key);
      *out_ += value.empty() ? "null" : value;
    }
    End();
  }
  void OptMap(std::string_view k, const std::optional<StringMap>& m) {
    if (m) Map(k, *m);
  }
  void PartitionMap(std::string_view k, const PartitionValues& m) {
    Key(k);
    Begin();
    for (const auto& [key, value] : m) {
      Key(key);
      if (value) {
        AppendJacksonString(out_, *value);
      } else {
        *out_ += "null";
      }
    }
    End();
  }
  void StringArray(std::string_view k, const std::vector<std::string>& v) {
    Key(k);
    out_->push_back('[');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out_->push_back(',');
      AppendJacksonString(out_, v[i]);
    }
    out_->push_back(']');
  }
  void Dv(const std::optional<DeletionVectorDescriptor>& dv) {
    if (!dv) return;
    Key("deletionVector");
    Begin();
    String("storageType", std::string_view(&dv->storage_type, 1));
    String("pathOrInlineDv", dv->path_or_inline_dv);
    if (dv->offset) Long("offset", *dv->offset);
    Long("sizeInBytes", dv->size_in_bytes);
    Long("cardinality", dv->cardinality);
    End();
  }

 private:
  std::string* out_;
  bool need_comma_ = false;
};

void WriteAction(Writer& w, const Protocol& p) {
  w.Long("minReaderVersion", p.min_reader_version);
  w.Long("minWriterVersion", p.min_writer_version);
  if (p.reader_features) w.StringArray("readerFeatures", *p.reader_features);
  if (p.writer_features) w.StringArray("writerFeatures", *p.writer_features);
}

void WriteAction(Writer& w, const Metadata& m) {
  w.String("id", m.id);
  w.OptString("name", m.name);
  w.OptString("description", m.description);
  w.Key("format");
  w.Begin();
  w.String("provider", m.format.provider);
  w.Map("options", m.format.options);
  w.End();
  w.OptString("schemaString", m.schema_string);
  w.StringArray("partitionColumns", m.partition_columns);
  w.Map("configuration", m.configuration);
  w.OptLong("createdTime", m.created_time);
}

void WriteAction(Writer& w, const AddFile& a) {
  w.String("path", a.path);
  w.PartitionMap("partitionValues", a.partition_values);
  w.Long("size", a.size);
  w.Long("modificationTime", a.modification_time);
  w.Bool("dataChange", a.data_change);
  w.OptString("stats", a.stats);
  w.OptMap("tags", a.tags);
  w.Dv(a.deletion_vector);
  w.OptLong("baseRowId", a.base_row_id);
  w.OptLong("defaultRowCommitVersion", a.default_row_commit_version);
  w.OptString("clusteringProvider", a.clustering_provider);
}

void WriteAction(Writer& w, const RemoveFile& r) {
  w.String("path", r.path);
  w.OptLong("deletionTimestamp", r.deletion_timestamp);
  w.Bool("dataChange", r.data_change);
  w.OptBool("extendedFileMetadata", r.extended_file_metadata);
  if (r.partition_values) w.PartitionMap("partitionValues", *r.partition_values);
  w.OptLong("size", r.size);
  w.OptMap("tags", r.tags);
  w.Dv(r.deletion_vector);
  w.OptLong("baseRowId", r.base_row_id);
  w.OptLong("defaultRowCommitVersion", r.default_row_commit_version);
  w.OptString("stats", r.stats);
}

void WriteAction(Writer& w, const AddCDCFile& a) {
  w.String("path", a.path);
  w.PartitionMap("partitionValues", a.partition_values);
  w.Long("size", a.size);
  w.OptMap("tags", a.tags);
  w.Bool("dataChange", a.data_change);
}

void WriteAction(Writer& w, const SetTransaction& t) {
  w.String("appId", t.app_id);
  w.Long("version", t.version);
  w.OptLong("lastUpdated", t.last_updated);
}

void WriteAction(Writer& w, const CommitInfo& ci) {
  w.OptLong("version", ci.version);
  w.OptLong("inCommitTimestamp", ci.in_commit_timestamp);
  w.OptLong("timestamp", ci.timestamp);
  w.OptString("userId", ci.user_id);
  w.OptString("userName", ci.user_name);
  w.OptString("operation", ci.operation);
  if (ci.operation_parameters) w.RawMap("operationParameters", *ci.operation_parameters);
  w.OptString("clusterId", ci.cluster_id);
  w.OptLong("readVersion", ci.read_version);
  w.OptString("isolationLevel", ci.isolation_level);
  w.OptBool("isBlindAppend", ci.is_blind_append);
  w.OptMap("operationMetrics", ci.operation_metrics);
  w.OptString("userMetadata", ci.user_metadata);
  w.OptMap("tags", ci.tags);
  w.OptString("engineInfo", ci.engine_info);
  w.OptString("txnId", ci.txn_id);
}

void WriteAction(Writer& w, const DomainMetadata& d) {
  w.String("domain", d.domain);
  w.String("configuration", d.configuration);
  w.Bool("removed", d.removed);
}

void WriteAction(Writer& w, const CheckpointMetadata& m) {
  w.Long("version", m.version);
  w.OptMap("tags", m.tags);
}

void WriteAction(Writer& w, const Sidecar& s) {
  w.String("path", s.path);
  w.Long("sizeInBytes", s.size_in_bytes);
  w.Long("modificationTime", s.modification_time);
  w.OptMap("tags", s.tags);
}

void WriteAction(Writer&, const UnknownAction&) {}

void AppendAction(std::string* out, const Action& action) {
  if (const auto* ci = action.get_if<CommitInfo>(); ci && !ci->raw_json.empty()) {
    *out += "{\"commitInfo\":";
    *out += ci->raw_json;
    *out += '}';
    return;
  }
  Writer w(out);
  w.Begin();
  if (action.kind() != ActionKind::kUnknown) {
    w.Key(ActionKindKey(action.kind()));
    w.Begin();
    std::visit([&](const auto& a) { WriteAction(w, a); }, action.value);
    w.End();
  }
  w.End();
}

}  // namespace

std::string SerializeAction(const Action& action) {
  std::string out;
  out.reserve(256);
  AppendAction(&out, action);
  return out;
}

std::string SerializeCommit(const std::vector<Action>& actions) {
  std::string out;
  for (const Action& a : actions) {
    AppendAction(&out, a);
    out.push_back('\n');
  }
  return out;
}

}  // namespace silt::delta
