// In-memory relations: rows an embedder hands to SQL without a table (the public API's
// silt::RegisterTemporaryView, silt/arrow.h — e.g. a pandas or Arrow table that
// write_deltalake inserts). A relation is read through the table function
// __silt_memory_relation('<token>'), which binds to a Values node sharing the rows (no copy);
// a temporary view of that SELECT gives it a name.
//
// The registry is process-wide and holds weak references: the owner (the session that registered
// the view) keeps the rows alive, and a token whose rows are gone no longer resolves.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "planner/logical_plan.h"
#include "vector/types.h"
#include "vector/vector.h"

namespace silt::planner {

struct MemoryRelation {
  Schema schema;
  ValuesRows rows;    // shared by every plan that reads the relation
  std::string token;  // its name in the registry (RegisterMemoryRelation's result)
};

// The table function's name.
inline constexpr const char* kMemoryRelationFunction = "__silt_memory_relation";

// Registers `relation` and returns its token (unique in the process).
std::string RegisterMemoryRelation(const std::shared_ptr<const MemoryRelation>& relation);
// The relation of `token`, or null when it was never registered or its owner released it.
std::shared_ptr<const MemoryRelation> FindMemoryRelation(std::string_view token);

}  // namespace silt::planner
