#include "convert.h"

#include <pybind11/numpy.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace silt_python {

namespace {

const char* CodeName(silt::StatusCode code) { return silt::StatusCodeName(code); }

py::object Module(const char* name) { return py::module_::import(name); }

// 1970-01-01 as a proleptic Gregorian ordinal (datetime.date(1970, 1, 1).toordinal()).
constexpr int64_t kEpochOrdinal = 719163;

py::object Date(int64_t days) {
  return Module("datetime").attr("date").attr("fromordinal")(kEpochOrdinal + days);
}

py::object Timestamp(int64_t micros, bool utc) {
  py::object datetime = Module("datetime");
  py::object epoch =
      utc ? datetime.attr("datetime")(1970, 1, 1, 0, 0, 0, 0, datetime.attr("timezone").attr("utc"))
          : datetime.attr("datetime")(1970, 1, 1);
  int64_t days = micros / 86400000000LL;
  int64_t rest = micros % 86400000000LL;
  if (rest < 0) {
    rest += 86400000000LL;
    --days;
  }
  py::object delta =
      datetime.attr("timedelta")(py::arg("days") = days, py::arg("microseconds") = rest);
  return epoch.attr("__add__")(delta);
}

py::object Text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

template <typename T>
py::tuple FixedColumn(const silt::QueryResult& result, size_t column, const char* kind) {
  size_t n = result.num_rows();
  py::array_t<T> values(static_cast<py::ssize_t>(n));
  T* out = values.mutable_data();
  std::vector<uint8_t> nulls;
  size_t row = 0;
  for (const silt::DataChunk& chunk : result.chunks()) {
    const silt::Vector& v = chunk.columns[column];
    if (v.size()) std::memcpy(out + row, v.data<T>(), v.size() * sizeof(T));
    if (v.may_have_nulls()) {
      nulls.resize(n, 0);
      for (size_t i = 0; i < v.size(); ++i) nulls[row + i] = v.IsNull(i);
    }
    row += v.size();
  }
  py::object mask = py::none();
  if (!nulls.empty()) {
    py::array_t<bool> m(static_cast<py::ssize_t>(n));
    bool* mp = m.mutable_data();
    for (size_t i = 0; i < n; ++i) mp[i] = nulls[i] != 0;
    mask = m;
  }
  return py::make_tuple(kind, values, mask);
}

}  // namespace

void Raise(const silt::Status& status) {
  py::object errors = Module("silt.errors");
  py::object exc =
      errors.attr("_from_status")(CodeName(status.code()), std::string(status.error_class()),
                                  std::string(status.sql_state()), std::string(status.message()));
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

py::object ToPython(const silt::Value& value) {
  if (value.is_null()) return py::none();
  const silt::DataType& type = *value.type();
  switch (type.id()) {
    case silt::TypeId::kNull:
      return py::none();
    case silt::TypeId::kBoolean:
      return py::bool_(value.boolean());
    case silt::TypeId::kInt8:
    case silt::TypeId::kInt16:
    case silt::TypeId::kInt32:
    case silt::TypeId::kInt64:
      return py::int_(value.integer());
    case silt::TypeId::kFloat:
    case silt::TypeId::kDouble:
      return py::float_(value.floating());
    case silt::TypeId::kDecimal:
      return Module("decimal").attr("Decimal")(silt::FormatDecimal(value.decimal(), type.scale()));
    case silt::TypeId::kString:
      return Text(value.str());
    case silt::TypeId::kBinary:
      return py::bytes(value.str());
    case silt::TypeId::kDate:
      return Date(value.integer());
    case silt::TypeId::kTimestamp:
      return Timestamp(value.integer(), /*utc=*/true);
    case silt::TypeId::kTimestampNtz:
      return Timestamp(value.integer(), /*utc=*/false);
    case silt::TypeId::kTimestampNanos:
    case silt::TypeId::kTimestampNtzNanos: {
      // Python's datetime holds microseconds: the sub-microsecond digits are dropped (floor).
      const int64_t n = value.integer();
      const int64_t us = n / 1000 - ((n % 1000) < 0 ? 1 : 0);
      return Timestamp(us, /*utc=*/type.id() == silt::TypeId::kTimestampNanos);
    }
    case silt::TypeId::kTime: {
      // datetime.time, to the microsecond.
      const int64_t us = value.integer() / 1000;
      return Module("datetime")
          .attr("time")(us / 3600000000LL, us / 60000000LL % 60, us / 1000000 % 60, us % 1000000);
    }
    case silt::TypeId::kYearMonthInterval:
      return py::int_(value.integer());
    case silt::TypeId::kDayTimeInterval:
      return Module("datetime").attr("timedelta")(py::arg("microseconds") = value.integer());
    case silt::TypeId::kCalendarInterval:
      // No Python type keeps months, days and microseconds apart (PySpark has none either): the
      // text Spark prints, e.g. "1 years 2 months 3 days".
      return Text(silt::FormatCalendarInterval(value.calendar_interval()));
    case silt::TypeId::kStruct: {
      py::dict out;
      const auto& fields = type.fields();
      const auto& children = value.children();
      for (size_t i = 0; i < fields.size() && i < children.size(); ++i) {
        out[Text(fields[i].name)] = ToPython(children[i]);
      }
      return out;
    }
    case silt::TypeId::kList: {
      py::list out;
      for (const silt::Value& child : value.children()) out.append(ToPython(child));
      return out;
    }
    case silt::TypeId::kMap: {
      const auto& children = value.children();
      py::list pairs;
      bool hashable = true;
      for (size_t i = 0; i + 1 < children.size(); i += 2) {
        py::object k = ToPython(children[i]);
        if (PyObject_Hash(k.ptr()) == -1) {
          PyErr_Clear();
          hashable = false;
        }
        pairs.append(py::make_tuple(k, ToPython(children[i + 1])));
      }
      if (!hashable) return pairs;
      py::dict out;
      for (py::handle pair : pairs) {
        py::tuple t = py::reinterpret_borrow<py::tuple>(pair);
        out[t[0]] = t[1];
      }
      return out;
    }
  }
  return py::none();
}

py::tuple ColumnArrays(const silt::QueryResult& result, size_t column) {
  const silt::TypePtr& type = result.schema()[column].type;
  switch (type->id()) {
    case silt::TypeId::kBoolean: {
      // uint8 0/1 in the vector; numpy's bool is one byte 0/1 too.
      py::tuple t = FixedColumn<uint8_t>(result, column, "bool");
      return py::make_tuple("bool", t[1].attr("view")("bool"), t[2]);
    }
    case silt::TypeId::kInt8:
      return FixedColumn<int8_t>(result, column, "int8");
    case silt::TypeId::kInt16:
      return FixedColumn<int16_t>(result, column, "int16");
    case silt::TypeId::kInt32:
      return FixedColumn<int32_t>(result, column, "int32");
    case silt::TypeId::kInt64:
      return FixedColumn<int64_t>(result, column, "int64");
    case silt::TypeId::kFloat:
      return FixedColumn<float>(result, column, "float32");
    case silt::TypeId::kDouble:
      return FixedColumn<double>(result, column, "float64");
    case silt::TypeId::kDate:
      return FixedColumn<int32_t>(result, column, "date");
    case silt::TypeId::kTimestamp:
      return FixedColumn<int64_t>(result, column, "timestamp");
    case silt::TypeId::kTimestampNtz:
      return FixedColumn<int64_t>(result, column, "timestamp_ntz");
    default:
      break;
  }
  py::list values;
  std::vector<uint8_t> nulls;
  size_t row = 0;
  size_t n = result.num_rows();
  for (const silt::DataChunk& chunk : result.chunks()) {
    const silt::Vector& v = chunk.columns[column];
    for (size_t i = 0; i < v.size(); ++i) {
      if (v.IsNull(i)) {
        nulls.resize(n, 0);
        nulls[row + i] = 1;
        values.append(py::none());
      } else {
        values.append(ToPython(v.GetValue(i)));
      }
    }
    row += v.size();
  }
  py::object mask = py::none();
  if (!nulls.empty()) {
    py::array_t<bool> m(static_cast<py::ssize_t>(n));
    bool* mp = m.mutable_data();
    for (size_t i = 0; i < n; ++i) mp[i] = nulls[i] != 0;
    mask = m;
  }
  return py::make_tuple("object", values, mask);
}

}  // namespace silt_python
