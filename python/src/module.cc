// silt._silt: the extension module under the `silt` Python package (python/silt/). It wraps the
// public C++ API (include/silt/ only): Database, Connection (queries run with the GIL released)
// and QueryResult (rows as Python values, columns as numpy arrays). The DuckDB-like and
// delta-rs-like surfaces are Python code over it (python/silt/*.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"
#include "silt/arrow.h"
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

 private:
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
      .def("get_config", &PyConnection::GetConfig, py::arg("key"))
      .def("set_config", &PyConnection::SetConfig, py::arg("key"), py::arg("value"))
      .def_property_readonly("current_schema", &PyConnection::CurrentSchema);

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
