// The per-table Auto-TTL state machine of the maintenance service (spec A.6), persisted beside the
// table as one JSON object, `<table>/_silt_maintenance/state.json`. The directory name starts with
// '_', so VACUUM (Delta's hidden-name rule, ops::IsHiddenName) never deletes it, and readers never
// mistake it for data.
//
// Phases (the spec's IDLE → DELETE_DUE → DELETE_DONE → PURGE_DUE → PURGE_DONE → VACUUM_DUE →
// VACUUM_DONE → IDLE, with the transient ones not persisted: DELETE_DUE is decided at each tick
// from the clock and the stats, a *_DONE step moves straight on to the next due phase):
//   IDLE        no cycle in progress
//   PURGE_DUE   a TTL DELETE committed (delete_version) and gave files deletion vectors
//               (dv_files): REORG … APPLY (PURGE) of exactly those files is due now
//   VACUUM_DUE  DELETE (and PURGE, if any) done: VACUUM is due at vacuum_due_ms
// A new DELETE may start in VACUUM_DUE (at every due tick: a pending VACUUM never delays the
// next expired rows); unvacuumed_ms keeps the commit time of every maintenance DELETE / PURGE
// whose removed files no VACUUM has deleted yet — one entry per cycle: a PURGE replaces its
// DELETE's, so the cycle's removes are vacuumed together — and vacuum_due_ms is the oldest of
// them + the retention (+ 1 ms: VACUUM deletes files removed strictly before now − retention), so
// a daily DELETE cannot postpone VACUUM. An entry is the later of the step's end (by the clock)
// and its commit's time as the log reports it (VACUUM LITE looks only at commits at or before its
// cutoff; a non-ICT commit time is the file's mtime, adjusted to be increasing, which can run a
// few ms ahead of the clock), so a VACUUM due by the state can delete the cycle's files. An entry
// is forgotten only when a VACUUM covered it: removed before its cutoff and, for LITE, a commit
// inside its log window (unvacuumed_versions).
// A crash between a step's commit and the state update is repaired from the table's history:
// every maintenance commit carries userMetadata {"trigger":"autottl","runId":…} (see
// TtlCommitTag), and the state records the last table version it accounted for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/object_store.h"

namespace silt::maintenance {

inline constexpr char kMaintenanceDir[] = "_silt_maintenance";
inline constexpr char kStateKey[] = "_silt_maintenance/state.json";

enum class TtlPhase : uint8_t { kIdle, kPurgeDue, kVacuumDue };
const char* TtlPhaseName(TtlPhase phase);  // "IDLE", "PURGE_DUE", "VACUUM_DUE"

struct TableState {
  TtlPhase phase = TtlPhase::kIdle;
  std::string run_id;                  // the cycle's id (also in its commits' userMetadata)
  std::string cutoff;                  // the DELETE's cutoff literal
  int64_t delete_version = -1;         // the DELETE commit
  int64_t delete_time_ms = -1;         // its commit timestamp
  std::vector<std::string> dv_files;   // PURGE_DUE: files the DELETE gave deletion vectors
  int64_t purge_version = -1;          // the REORG commit, when one ran
  int64_t vacuum_due_ms = -1;          // VACUUM_DUE: when VACUUM becomes due
  std::vector<int64_t> unvacuumed_ms;  // maintenance remove times not yet vacuumed
  // The commit version of each unvacuumed_ms entry (-1: unknown, a state of an older silt).
  std::vector<int64_t> unvacuumed_versions;
  // The next VACUUM runs FULL. Only a state written by an older silt sets it (its VACUUM LITE's
  // watermark could pass a maintenance commit whose removes were not yet older than the cutoff);
  // ops::Vacuum's LITE now stops its watermark before such a commit.
  bool vacuum_full = false;
  // The newest table version whose maintenance commits this state accounts for (-1: none).
  int64_t last_seen_version = -1;
  // Failed attempts of the current step and when the next may start (backoff).
  int failures = 0;
  int64_t next_attempt_ms = 0;
  bool operator==(const TableState&) const = default;
};

std::string SerializeState(const TableState& state);
// Corruption (class SILT_MAINTENANCE_STATE_CORRUPT) for malformed JSON or an unknown phase.
Result<TableState> ParseState(std::string_view json);

// The table's state (`table` is the table's store): a default (IDLE) state when none was saved.
Result<TableState> LoadState(ObjectStore& table);
// Atomically replaces the saved state, as a hint (ObjectStore::PutHint: after a crash it may be
// the previous state or empty, which LoadState reads as no state; the service's recovery from
// history repairs either).
Status SaveState(ObjectStore& table, const TableState& state);

// commitInfo.userMetadata of a maintenance commit: {"trigger":"<trigger>","runId":"<run_id>"}.
std::string CommitTag(std::string_view trigger, std::string_view run_id);
// The trigger and runId of a commit's userMetadata when it is a maintenance tag; nullopt else.
struct ParsedTag {
  std::string trigger;
  std::string run_id;
};
std::optional<ParsedTag> ParseCommitTag(std::string_view user_metadata);

// The SQL text of a DELETE's operationParameters.predicate (a JSON array of one string); the
// text itself when it is not such an array.
std::string PredicateFromParameter(std::string_view json);

}  // namespace silt::maintenance
