// The spilling state of a WindowOperator (window_spill.cc).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "exec/external_sort.h"
#include "exec/window.h"

namespace silt::exec {

struct WindowOperator::Spill {
  std::unique_ptr<ExternalSort> sort;
  int64_t batch_target = 0;
  bool merge_done = false;
  std::deque<DataChunk> batch;
  int64_t batch_bytes = 0;
  std::vector<Vector> prev_keys;  // the partition keys of the batch's last row (one row each)
  DataChunk carry;                // rows of the next batch read ahead
  std::unique_ptr<WindowOperator> inner;
};

}  // namespace silt::exec
