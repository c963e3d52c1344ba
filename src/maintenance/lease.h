// Leases: two maintenance processes (on one machine or many) never run jobs on the same table at
// once. A lease is an object beside the table, `<table>/_silt_maintenance/lease.<generation>`
// (generation zero-padded to 20 digits), holding {"owner":…,"expiresMs":…,"released":…}.
//
// Acquire: list the lease objects and read the highest generation g. None, or g released, or g
// expired by the injected clock → create generation g+1 with PutIfAbsent (the store's exclusive
// create, the Delta commit primitive): of racing processes exactly one wins, the others get
// AlreadyExists and skip the table. A live lease of another owner → not acquired. Taking over an
// expired lease never deletes or overwrites it, so a slow former holder cannot erase the new
// holder's lease. Older generations are deleted by the winner (only the newest one counts).
// Release: the holder rewrites its own generation with released=true, as a hint
// (ObjectStore::PutHint: lost in a crash the lease runs to its expiry; an empty object reads as
// released).
// A holder must finish each step within the lease duration (the service sets it well above a
// step's expected length); the service re-checks the lease before each step starts and renews it
// there when half of it is used up (CheckAndRenew), so a run of many steps keeps it.
// Durability: the lease is an efficiency hint — two processes must not do the same work twice —
// and correctness never rests on it: every step is a Delta commit with put-if-absent, so of two
// processes racing on a table one commit wins and the other is a conflict (retried on the new
// snapshot, which then has nothing left to do). A lease object lost in a crash only lets another
// process start the table's work sooner.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "io/object_store.h"

namespace silt::maintenance {

struct Lease {
  int64_t generation = 0;
  std::string owner;
  int64_t expires_ms = 0;
  bool released = false;
};

class LeaseManager {
 public:
  // `owner`: this process's unique id; `duration_ms`: how long a lease lasts.
  LeaseManager(std::shared_ptr<Clock> clock, std::string owner, int64_t duration_ms)
      : clock_(std::move(clock)), owner_(std::move(owner)), duration_ms_(duration_ms) {}

  // The lease on the table whose store is `table`, or nullopt when another owner holds it (or won
  // the race for it). Errors: storage errors.
  Result<std::optional<Lease>> TryAcquire(ObjectStore& table);
  // Whether `lease` is still ours and unexpired (re-checked before each step).
  Result<bool> StillHeld(ObjectStore& table, const Lease& lease);
  // Whether `lease` is ours and unexpired by the clock, without reading the store: another
  // process takes a lease over only once it expired (or we released it), so until its expiry a
  // lease we acquired is still the table's newest. When less than half of the duration is left,
  // extends it to now + duration first (rewriting our own generation, as a hint: lost in a crash
  // the lease just ends at its former expiry) — a holder that keeps working keeps its lease.
  Result<bool> CheckAndRenew(ObjectStore& table, Lease* lease);
  // Marks the lease released (a later TryAcquire of anyone succeeds at once).
  Status Release(ObjectStore& table, const Lease& lease);

  const std::string& owner() const { return owner_; }

  // The newest lease object of the table (nullopt: none).
  static Result<std::optional<Lease>> Current(ObjectStore& table);

 private:
  std::shared_ptr<Clock> clock_;
  std::string owner_;
  int64_t duration_ms_;
};

std::string LeaseKey(int64_t generation);

}  // namespace silt::maintenance
