// Conversion of silt values and result columns to Python objects (python/src/convert.cc).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>

#include "silt/silt.h"

namespace silt_python {

namespace py = pybind11;

// Raises the Python exception of `status` (silt.errors: a subclass of silt.Error per status code,
// carrying .error_class and .sql_state); never returns.
[[noreturn]] void Raise(const silt::Status& status);

// One value as a Python object: None, bool, int, float, str, bytes, decimal.Decimal,
// datetime.date, datetime.datetime (aware in UTC for TIMESTAMP, naive for TIMESTAMP_NTZ),
// datetime.timedelta (day-time intervals), int months (year-month intervals), dict (struct, and
// map when its keys are hashable; else a list of (key, value) tuples), list (array).
py::object ToPython(const silt::Value& value);

// Column `column` of a result as (kind, values, mask): kind "bool", "int8".."int64",
// "float32", "float64" (values: a numpy array of that dtype), "date" (int32 days),
// "timestamp"/"timestamp_ntz" (int64 microseconds) or "object" (values: a list of Python
// objects); mask: a numpy bool array (True = NULL) or None when the column has no NULL.
py::tuple ColumnArrays(const silt::QueryResult& result, size_t column);

}  // namespace silt_python
