// silt._silt: the extension module under the `silt` Python package (python/silt/). It wraps the
// public C++ API (include/silt/ only): Database, Connection (queries run with the GIL released)
// and QueryResult (rows as Python values, columns as numpy arrays). The DuckDB-like and
// delta-rs-like surfaces are Python code over it (python/silt/*.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"
#include "silt/arrow.h"
#include "silt/distributed.h"
#include "silt/silt.h"
#include "silt/table_files.h"

namespace silt_python {
namespace {

// A Connection is used by one thread at a time: Python threads share one through this lock
// (taken with the GIL released, so a long query does not block other Python threads).
class PyConnection {
 public:
  explicit PyConnection(std::shared_ptr<silt::Database> db) : con_(std::move(db)) {}

  std::vector<std::shared_ptr<silt::QueryResult>> Execute(const std::string& sql, bool all) {
    silt::Result<std::vector<std::unique_ptr<silt::QueryResult>>> results =
        silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      if (all) {
        results = con_.QueryAll(sql);
      } else {
        auto one = con_.Query(sql);
        if (one.ok()) {
          std::vector<std::unique_ptr<silt::QueryResult>> v;
          v.push_back(std::move(one).value());
          results = std::move(v);
        } else {
          results = std::move(one).status();
        }
      }
    }
    if (!results.ok()) Raise(results.status());
    std::vector<std::shared_ptr<silt::QueryResult>> out;
    for (auto& r : *results) out.emplace_back(std::move(r));
    return out;
  }

  std::shared_ptr<silt::QueryResult> ListFiles(const std::string& table_uri,
                                               std::optional<int64_t> version) {
    silt::Result<std::unique_ptr<silt::QueryResult>> files = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      files = silt::ListTableFiles(con_, table_uri, version);
    }
    if (!files.ok()) Raise(files.status());
    return std::shared_ptr<silt::QueryResult>(std::move(files).value());
  }

  // The rows of an Arrow C stream (consumed) as the temporary view `name` of this connection.
  void RegisterArrow(const std::string& name, ArrowArrayStream* stream) {
    silt::Status st;
    {
      py::gil_scoped_release release;  // a producer that needs the GIL takes it itself
      silt::Schema schema;
      std::vector<silt::DataChunk> chunks;
      st = silt::ImportArrowStream(stream, &schema, &chunks);
      if (st.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        st = silt::RegisterTemporaryView(con_, name, std::move(schema), std::move(chunks));
      }
    }
    if (!st.ok()) Raise(st);
  }

  void RegisterRows(const std::string& name, silt::Schema schema,
                    std::vector<silt::DataChunk> chunks) {
    std::lock_guard<std::mutex> lock(mu_);
    silt::Status st = silt::RegisterTemporaryView(con_, name, std::move(schema), std::move(chunks));
    if (!st.ok()) Raise(st);
  }

  void DropView(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    silt::Status st = silt::DropTemporaryView(con_, name);
    if (!st.ok()) Raise(st);
  }

  py::object GetConfig(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto v = con_.GetConfig(key);
    if (!v) return py::none();
    return py::str(*v);
  }

  void SetConfig(const std::string& key, const std::string& value) {
    silt::Status st;
    {
      std::lock_guard<std::mutex> lock(mu_);
      st = con_.SetConfig(key, value);
    }
    if (!st.ok()) Raise(st);
  }

  std::string CurrentSchema() {
    std::lock_guard<std::mutex> lock(mu_);
    return con_.current_schema();
  }

  // silt/distributed.h: the statement planned into tasks on this connection.
  std::shared_ptr<silt::DistributedJob> PlanDistributed(const std::string& statement) {
    silt::Result<std::unique_ptr<silt::DistributedJob>> job = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      job = silt::DistributedJob::Plan(con_, statement);
    }
    if (!job.ok()) Raise(job.status());
    return std::shared_ptr<silt::DistributedJob>(std::move(job).value());
  }

  // VACUUM whose file deletes go to `deleter(table_uri, keys)` (Python: a list with one string per
  // key, "" for a delete that succeeded, else its error), called with the GIL held.
  std::shared_ptr<silt::QueryResult> VacuumWithDeleter(const std::string& statement,
                                                       const py::function& deleter) {
    silt::FileDeleter d = PythonDeleter(&deleter);
    silt::Result<std::unique_ptr<silt::QueryResult>> r = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      r = silt::VacuumWithDeleter(con_, statement, d);
    }
    if (!r.ok()) Raise(r.status());
    return std::shared_ptr<silt::QueryResult>(std::move(r).value());
  }

  // silt/distributed.h's RunAutoTtl with Python callables (called with the GIL held):
  // run_tasks(list of task texts) -> list of outputs, deleter as for VacuumWithDeleter. Returns
  // (operations as (type, status, [(key, value)…]), skipped reasons).
  py::tuple RunAutoTtl(const std::string& table_uri, std::optional<int64_t> now_ms,
                       const std::string& executor, const py::function& run_tasks,
                       const py::function& deleter) {
    const py::function* fn = &run_tasks;
    silt::TaskRunner runner =
        [fn](const std::vector<std::string>& tasks) -> silt::Result<std::vector<std::string>> {
      py::gil_scoped_acquire gil;
      try {
        return py::cast<std::vector<std::string>>((*fn)(tasks));
      } catch (py::error_already_set& e) {
        return StatusOf(e);
      } catch (const py::cast_error& e) {
        return silt::Status::InvalidArgument(std::string("the task runner: ") + e.what());
      }
    };
    silt::Result<silt::AutoTtlReport> r = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      r = silt::RunAutoTtl(con_, table_uri, now_ms, executor, runner, PythonDeleter(&deleter));
    }
    if (!r.ok()) Raise(r.status());
    py::list ops;
    for (const silt::MaintenanceOperation& op : r->operations) {
      ops.append(py::make_tuple(op.operation_type, op.operation_status, op.metrics));
    }
    return py::make_tuple(ops, r->skipped);
  }

  // A deleter's shard on a worker: "" per deleted (or absent) key, else the error.
  std::vector<std::string> DeleteTableFiles(const std::string& table_uri,
                                            const std::vector<std::string>& keys) {
    silt::Result<std::vector<silt::Status>> r = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      r = silt::DeleteTableFiles(con_, table_uri, keys);
    }
    if (!r.ok()) Raise(r.status());
    std::vector<std::string> out;
    for (const silt::Status& st : *r) out.push_back(st.ok() ? "" : st.ToString());
    return out;
  }

  // silt/distributed.h's reads: (version, paths, sizes) of the pruned live files.
  py::tuple PruneTableFiles(const std::string& table_uri, std::optional<int64_t> version,
                            const std::string& predicate) {
    silt::Result<silt::TableFiles> r = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      r = silt::PruneTableFiles(con_, table_uri, version, predicate);
    }
    if (!r.ok()) Raise(r.status());
    return py::make_tuple(r->version, r->paths, r->sizes);
  }

  std::shared_ptr<silt::QueryResult> ReadTableFiles(const std::string& table_uri, int64_t version,
                                                    const std::vector<std::string>& paths,
                                                    const std::vector<std::string>& columns,
                                                    const std::string& predicate) {
    silt::Result<std::unique_ptr<silt::QueryResult>> r = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      r = silt::ReadTableFiles(con_, table_uri, version, paths, columns, predicate);
    }
    if (!r.ok()) Raise(r.status());
    return std::shared_ptr<silt::QueryResult>(std::move(r).value());
  }

  // silt/distributed.h's writes: `statement` committed here, its rows written by `run(task)` (a
  // list of RunDistributedWrite outputs), called with the GIL held. A Python exception in `run`
  // fails the statement (the caller re-raises it: the message here is all C++ keeps).
  std::shared_ptr<silt::QueryResult> WriteWithWorkers(const std::string& statement,
                                                      const py::function& run) {
    const py::function* fn = &run;  // as VacuumWithDeleter: no Python object copied unlocked
    silt::WriteTaskRunner runner =
        [fn](const std::string& task) -> silt::Result<std::vector<std::string>> {
      py::gil_scoped_acquire gil;
      try {
        return py::cast<std::vector<std::string>>((*fn)(task));
      } catch (py::error_already_set& e) {
        return silt::Status::IoError(std::string("the distributed write failed: ") + e.what());
      } catch (py::cast_error& e) {
        return silt::Status::InvalidArgument(
            std::string("the distributed write's outputs are not strings: ") + e.what());
      }
    };
    silt::Result<std::unique_ptr<silt::QueryResult>> r = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      r = silt::WriteWithWorkers(con_, statement, runner);
    }
    if (!r.ok()) Raise(r.status());
    return std::shared_ptr<silt::QueryResult>(std::move(r).value());
  }

  // A share of a distributed write (on a worker): its output for WriteWithWorkers.
  std::string RunDistributedWrite(const std::string& statement, const std::string& task) {
    silt::Result<std::string> out = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      out = silt::RunDistributedWrite(con_, statement, task);
    }
    if (!out.ok()) Raise(out.status());
    return std::move(out).value();
  }

  // One task of a job (on a worker): its output for DistributedJob.commit.
  std::string RunDistributedTask(const std::string& task) {
    silt::Result<std::string> out = silt::Status::Internal("not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      out = silt::RunDistributedTask(con_, task);
    }
    if (!out.ok()) Raise(out.status());
    return std::move(out).value();
  }

 private:
  // A Python deleter(uri, keys) -> ["" or error per key] as a FileDeleter. The engine copies the
  // callback with the GIL released: it holds a pointer, never a reference-counted Python object.
  static silt::FileDeleter PythonDeleter(const py::function* fn) {
    return [fn](const std::string& uri, const std::vector<std::string>& keys) {
      py::gil_scoped_acquire gil;
      std::vector<silt::Status> out;
      try {
        for (py::handle item : (*fn)(uri, keys)) {
          std::string error = py::cast<std::string>(item);
          out.push_back(error.empty() ? silt::Status::OK() : silt::Status::IoError(error));
        }
      } catch (py::error_already_set& e) {
        out.assign(keys.size(),
                   silt::Status::IoError(std::string("the deletes failed: ") + e.what()));
      }
      return out;
    };
  }

  // A Python exception raised by a task (a silt.Error keeps its error class and message).
  static silt::Status StatusOf(const py::error_already_set& e) {
    py::object v = e.value();
    std::string cls, message = e.what();
    if (py::hasattr(v, "error_class") && py::hasattr(v, "message")) {
      cls = py::str(v.attr("error_class"));
      message = py::str(v.attr("message"));
    }
    return silt::Status(silt::StatusCode::kIoError, cls, message);
  }

  std::mutex mu_;
  silt::Connection con_;
};

py::list Rows(const silt::QueryResult& r, size_t start, size_t count) {
  py::list rows;
  size_t n = r.num_rows();
  size_t end = start + count < n ? start + count : n;
  size_t ncol = r.schema().size();
  // Walk the chunks once; convert row by row.
  size_t base = 0;
  for (const silt::DataChunk& chunk : r.chunks()) {
    size_t rows_in = chunk.size();
    if (base + rows_in <= start) {
      base += rows_in;
      continue;
    }
    if (base >= end) break;
    for (size_t i = start > base ? start - base : 0; i < rows_in && base + i < end; ++i) {
      py::tuple row(ncol);
      for (size_t c = 0; c < ncol; ++c) row[c] = ToPython(chunk.columns[c].GetValue(i));
      rows.append(std::move(row));
    }
    base += rows_in;
  }
  return rows;
}

// --- ingest: Python data into silt chunks -------------------------------------------------

constexpr size_t kIngestChunkRows = 65536;

// One column of `columns` (see RegisterColumns) as vectors of kIngestChunkRows rows each.
std::vector<silt::Vector> ColumnVectors(const std::string& name, const std::string& kind,
                                        const py::object& values, const py::object& mask,
                                        size_t rows, silt::TypePtr* type) {
  std::vector<silt::Vector> out;
  const bool* nulls = nullptr;
  py::array_t<bool, py::array::c_style | py::array::forcecast> mask_array;
  if (!mask.is_none()) {
    mask_array = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(mask);
    if (!mask_array || static_cast<size_t>(mask_array.size()) != rows) {
      throw py::value_error("column " + name + ": the mask does not have one entry per row");
    }
    nulls = mask_array.data();
  }
  auto fixed = [&](auto tag, silt::TypePtr t) {
    using T = decltype(tag);
    auto arr = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(values);
    if (!arr || static_cast<size_t>(arr.size()) != rows) {
      throw py::value_error("column " + name + ": not a 1-D array of " + std::to_string(rows) +
                            " " + kind + " values");
    }
    const T* data = arr.data();
    *type = t;
    for (size_t start = 0; start < rows || (start == 0 && out.empty()); start += kIngestChunkRows) {
      const size_t n = std::min(kIngestChunkRows, rows - start);
      silt::Vector v(t);
      v.ResizeUninitialized(n);
      if (n) std::memcpy(v.data<T>(), data + start, n * sizeof(T));
      if (nulls) {
        for (size_t i = 0; i < n; ++i) {
          if (nulls[start + i]) {
            v.SetValid(i, false);
            v.data<T>()[i] = T{};
          }
        }
        v.CompactValidity();
      }
      out.push_back(std::move(v));
      if (rows == 0) break;
    }
  };
  if (kind == "bool") {
    fixed(bool{}, silt::DataType::Boolean());
  } else if (kind == "int8") {
    fixed(int8_t{}, silt::DataType::Int8());
  } else if (kind == "int16") {
    fixed(int16_t{}, silt::DataType::Int16());
  } else if (kind == "int32") {
    fixed(int32_t{}, silt::DataType::Int32());
  } else if (kind == "int64") {
    fixed(int64_t{}, silt::DataType::Int64());
  } else if (kind == "float32") {
    fixed(float{}, silt::DataType::Float());
  } else if (kind == "float64") {
    fixed(double{}, silt::DataType::Double());
  } else if (kind == "date") {
    fixed(int32_t{}, silt::DataType::Date());
  } else if (kind == "timestamp") {
    fixed(int64_t{}, silt::DataType::Timestamp());
  } else if (kind == "timestamp_ntz") {
    fixed(int64_t{}, silt::DataType::TimestampNtz());
  } else if (kind == "string" || kind == "binary") {
    const bool text = kind == "string";
    *type = text ? silt::DataType::String() : silt::DataType::Binary();
    py::sequence seq = py::reinterpret_borrow<py::sequence>(values);
    if (static_cast<size_t>(py::len(seq)) != rows) {
      throw py::value_error("column " + name + ": not " + std::to_string(rows) + " values");
    }
    silt::Vector v(*type);
    for (size_t i = 0; i < rows; ++i) {
      if (v.size() == kIngestChunkRows) {
        out.push_back(std::move(v));
        v = silt::Vector(*type);
      }
      py::object o = seq[i];
      if (o.is_none() || (nulls && nulls[i])) {
        v.AppendNull();
      } else if (text && PyUnicode_Check(o.ptr())) {
        Py_ssize_t len = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(o.ptr(), &len);
        if (!utf8) throw py::error_already_set();
        v.AppendString(std::string_view(utf8, static_cast<size_t>(len)));
      } else if (!text && PyBytes_Check(o.ptr())) {
        v.AppendString(std::string_view(PyBytes_AS_STRING(o.ptr()),
                                        static_cast<size_t>(PyBytes_GET_SIZE(o.ptr()))));
      } else if (!text && (PyByteArray_Check(o.ptr()) || PyMemoryView_Check(o.ptr()))) {
        std::string b = py::bytes(o);
        v.AppendString(b);
      } else {
        throw py::type_error("column " + name + ": expected " + (text ? "str" : "bytes") +
                             " or None, got " +
                             std::string(py::str(o.get_type().attr("__name__"))));
      }
    }
    out.push_back(std::move(v));
  } else {
    throw py::value_error("column " + name + ": unknown column kind " + kind);
  }
  return out;
}

// Columns of Python data (kind, values, mask) as the temporary view `view` of the connection.
// kinds: bool int8 int16 int32 int64 float32 float64 (numpy arrays of that dtype), date (int32
// days), timestamp / timestamp_ntz (int64 microseconds), string / binary (sequences of str / bytes
// or None); mask: a bool array (True = NULL) or None.
void RegisterColumns(PyConnection& con, const std::string& view,
                     const std::vector<std::string>& names, const std::vector<py::tuple>& columns,
                     size_t rows) {
  if (names.size() != columns.size()) throw py::value_error("one name per column");
  silt::Schema schema;
  std::vector<std::vector<silt::Vector>> vectors;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].size() != 3) throw py::value_error("a column is (kind, values, mask)");
    silt::TypePtr type;
    vectors.push_back(ColumnVectors(names[c], columns[c][0].cast<std::string>(), columns[c][1],
                                    columns[c][2], rows, &type));
    schema.push_back({names[c], type, true, "{}"});
  }
  std::vector<silt::DataChunk> chunks;
  const size_t n_chunks = vectors.empty() ? 0 : vectors[0].size();
  for (size_t k = 0; k < n_chunks; ++k) {
    silt::DataChunk chunk;
    for (auto& column : vectors) chunk.columns.push_back(std::move(column[k]));
    if (chunk.size()) chunks.push_back(std::move(chunk));
  }
  con.RegisterRows(view, std::move(schema), std::move(chunks));
}

// An object with __arrow_c_stream__ (or that method's capsule) as the temporary view `view`.
void RegisterArrow(PyConnection& con, const std::string& view, py::object source) {
  py::object capsule = source;
  if (py::hasattr(source, "__arrow_c_stream__")) capsule = source.attr("__arrow_c_stream__")();
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (!stream) throw py::error_already_set();
  if (!stream->release) throw py::value_error("the Arrow stream was already consumed");
  con.RegisterArrow(view, stream);  // releases the stream: the capsule's destructor sees it
}

// The Arrow PyCapsule interface: an ArrowArrayStream in a capsule named "arrow_array_stream"
// whose destructor releases the stream unless a consumer moved it out (release == NULL).
py::capsule ArrowStreamCapsule(std::shared_ptr<silt::QueryResult> result) {
  auto* stream = new ArrowArrayStream();
  silt::Status st = silt::ExportArrowStream(std::move(result), stream);
  if (!st.ok()) {
    delete stream;
    Raise(st);
  }
  PyObject* capsule = PyCapsule_New(stream, "arrow_array_stream", [](PyObject* c) {
    auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(c, "arrow_array_stream"));
    if (s == nullptr) {
      PyErr_Clear();
      return;
    }
    if (s->release) s->release(s);
    delete s;
  });
  if (!capsule) {
    stream->release(stream);
    delete stream;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace
}  // namespace silt_python

PYBIND11_MODULE(_silt, m) {
  using namespace silt_python;
  m.doc() = "silt's C++ engine (use the silt package: silt.connect, silt.DeltaTable)";
#ifdef SILT_VERSION
  m.attr("__version__") = SILT_VERSION;
#endif

  py::class_<silt::Database, std::shared_ptr<silt::Database>>(m, "Database")
      .def(py::init([](const std::string& warehouse, int threads, int64_t memory_limit,
                       const std::string& temp_directory) {
             silt::DatabaseOptions options;
             options.warehouse = warehouse;
             options.threads = threads;
             options.memory_limit_bytes = memory_limit;
             options.temp_directory = temp_directory;
             silt::Result<std::shared_ptr<silt::Database>> db = silt::Status::Internal("");
             {
               py::gil_scoped_release release;
               db = silt::Database::Open(options);
             }
             if (!db.ok()) Raise(db.status());
             return *db;
           }),
           py::arg("warehouse"), py::arg("threads") = 0, py::arg("memory_limit") = -1,
           py::arg("temp_directory") = "")
      .def_property_readonly("warehouse",
                             [](silt::Database& db) { return db.options().warehouse; });

  py::class_<PyConnection, std::shared_ptr<PyConnection>>(m, "Connection")
      .def(py::init<std::shared_ptr<silt::Database>>(), py::arg("database"))
      .def(
          "execute",
          [](PyConnection& c, const std::string& sql) { return c.Execute(sql, false).front(); },
          py::arg("sql"), "Runs ';'-separated statements; the last statement's result.")
      .def(
          "execute_all",
          [](PyConnection& c, const std::string& sql) { return c.Execute(sql, true); },
          py::arg("sql"), "Runs ';'-separated statements; every statement's result.")
      .def("list_files", &PyConnection::ListFiles, py::arg("table_uri"),
           py::arg("version") = py::none(),
           "The live data files of a Delta table's version (silt/table_files.h) as a result.")
      .def("register_arrow", &RegisterArrow, py::arg("view"), py::arg("source"),
           "An object with __arrow_c_stream__ (or its capsule) as a temporary view (consumed).")
      .def("register_columns", &RegisterColumns, py::arg("view"), py::arg("names"),
           py::arg("columns"), py::arg("rows"),
           "Columns of (kind, values, mask) as a temporary view (see python/src/module.cc).")
      .def("drop_view", &PyConnection::DropView, py::arg("view"))
      .def("get_config", &PyConnection::GetConfig, py::arg("key"))
      .def("set_config", &PyConnection::SetConfig, py::arg("key"), py::arg("value"))
      .def_property_readonly("current_schema", &PyConnection::CurrentSchema)
      .def("plan_distributed", &PyConnection::PlanDistributed, py::arg("statement"),
           "An OPTIMIZE / REORG statement planned into tasks (silt/distributed.h).")
      .def("run_distributed_task", &PyConnection::RunDistributedTask, py::arg("task"),
           "Runs one task of a DistributedJob; returns its output (JSON text).")
      .def("prune_table_files", &PyConnection::PruneTableFiles, py::arg("table_uri"),
           py::arg("version"), py::arg("predicate"),
           "(version, paths, sizes) of the live files a predicate may match (pruned).")
      .def("read_table_files", &PyConnection::ReadTableFiles, py::arg("table_uri"),
           py::arg("version"), py::arg("paths"), py::arg("columns"), py::arg("predicate"),
           "The rows of some files of a version (DVs applied), filtered and projected.")
      .def("vacuum_with_deleter", &PyConnection::VacuumWithDeleter, py::arg("statement"),
           py::arg("deleter"), "A VACUUM statement whose file deletes go to deleter(uri, keys).")
      .def("run_auto_ttl", &PyConnection::RunAutoTtl, py::arg("table_uri"), py::arg("now_ms"),
           py::arg("executor"), py::arg("run_tasks"), py::arg("deleter"),
           "The maintenance service's Auto-TTL pass on one table with its tasks run by "
           "run_tasks (silt/distributed.h RunAutoTtl).")
      .def("delete_table_files", &PyConnection::DeleteTableFiles, py::arg("table_uri"),
           py::arg("keys"), "Deletes keys below a table's root; '' or the error per key.")
      .def("write_with_workers", &PyConnection::WriteWithWorkers, py::arg("statement"),
           py::arg("run"), "INSERT / CTAS committed here, its rows written by run(task).")
      .def("run_distributed_write", &PyConnection::RunDistributedWrite, py::arg("statement"),
           py::arg("task"), "A share of a distributed write: its files' output (JSON text).");

  py::class_<silt::DistributedJob, std::shared_ptr<silt::DistributedJob>>(m, "DistributedJob")
      .def_property_readonly("tasks",
                             [](const silt::DistributedJob& j) {
                               std::vector<std::string> tasks;
                               for (size_t i = 0; i < j.num_tasks(); ++i)
                                 tasks.push_back(j.task(i));
                               return tasks;
                             })
      .def_property_readonly("read_version", &silt::DistributedJob::read_version)
      .def(
          "commit",
          [](silt::DistributedJob& j, const std::vector<std::string>& outputs) {
            silt::Result<std::unique_ptr<silt::QueryResult>> r = silt::Status::Internal("not run");
            {
              py::gil_scoped_release release;
              r = j.Commit(outputs);
            }
            if (!r.ok()) Raise(r.status());
            return std::shared_ptr<silt::QueryResult>(std::move(r).value());
          },
          py::arg("outputs"), "Commits the tasks' outputs once; the statement's result.");

  py::class_<silt::QueryResult, std::shared_ptr<silt::QueryResult>>(m, "QueryResult")
      .def_property_readonly("columns",
                             [](const silt::QueryResult& r) {
                               std::vector<std::string> out;
                               for (const auto& f : r.schema()) out.push_back(f.name);
                               return out;
                             })
      .def_property_readonly("types",
                             [](const silt::QueryResult& r) {
                               std::vector<std::string> out;
                               for (const auto& f : r.schema()) out.push_back(f.type->ToString());
                               return out;
                             })
      .def_property_readonly("nullable",
                             [](const silt::QueryResult& r) {
                               std::vector<bool> out;
                               for (const auto& f : r.schema()) out.push_back(f.nullable);
                               return out;
                             })
      .def_property_readonly("metadata",
                             [](const silt::QueryResult& r) {
                               std::vector<std::string> out;
                               for (const auto& f : r.schema()) out.push_back(f.metadata_json);
                               return out;
                             })
      .def_property_readonly("num_rows", &silt::QueryResult::num_rows)
      .def_property_readonly("statement", [](const silt::QueryResult& r) { return r.statement; })
      .def_property_readonly("time_zone", [](const silt::QueryResult& r) { return r.time_zone; })
      .def("rows", &Rows, py::arg("start") = 0, py::arg("count") = static_cast<size_t>(-1),
           "Rows [start, start+count) as tuples of Python values.")
      .def("column_arrays", &ColumnArrays, py::arg("column"))
      .def("arrow_c_stream", &ArrowStreamCapsule,
           "The result as an Arrow C stream in a PyCapsule (\"arrow_array_stream\").");
}
