// Options that read the system clock, for tests whose outcome does not depend on time. The engine
// has no clock default (a missed pass-through must fail, not silently read wall time), so every
// test passes its clock explicitly: a ManualClock where time matters, these helpers elsewhere.
#pragma once

#include <memory>

#include "common/clock.h"
#include "delta/checkpoint_writer.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"

namespace silt {

inline std::shared_ptr<Clock> WallClock() { return SystemClock::Default(); }

inline delta::DataWriteOptions WallWrite() {
  delta::DataWriteOptions o;
  o.clock = WallClock();
  return o;
}

inline delta::TransactionOptions WallTxn() {
  delta::TransactionOptions o;
  o.clock = WallClock();
  return o;
}

inline delta::CreateTableOptions WallCreate() {
  delta::CreateTableOptions o;
  o.write.clock = WallClock();
  o.txn.clock = WallClock();
  return o;
}

// SystemClock::Default() is a process-wide instance, so the raw pointer stays valid.
inline delta::CheckpointOptions WallCheckpoint() {
  delta::CheckpointOptions o;
  o.clock = WallClock().get();
  return o;
}

}  // namespace silt
