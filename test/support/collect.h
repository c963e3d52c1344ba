// Pulls every chunk of an operator: for tests that drive operators directly. The engine collects
// a statement's rows itself (engine/database.cc), charging them to the memory limit.
#pragma once

#include <utility>
#include <vector>

#include "exec/operator.h"

namespace silt::exec {

inline Result<std::vector<DataChunk>> CollectAll(Operator& op, ExecContext& ctx) {
  std::vector<DataChunk> out;
  DataChunk c;
  while (true) {
    SILT_ASSIGN_OR_RETURN(bool more, op.Next(ctx, &c));
    if (!more) break;
    if (c.size()) out.push_back(std::move(c));
    c = DataChunk();
  }
  return out;
}

}  // namespace silt::exec
