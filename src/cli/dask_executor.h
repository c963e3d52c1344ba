// `silt maintain --dask-scheduler ADDRESS` (docs/scale-out.md): the maintenance service's remote
// executor on a Dask cluster. Each batch of work (a job's tasks, a VACUUM delete batch) runs
// `PYTHON -m silt._dask_runner ADDRESS …` as a subprocess, which hands it to the cluster with
// silt.dask's task functions (Dask carries the tasks; no RPC of silt's own). The subprocess
// inherits this process's environment: PYTHONPATH must let PYTHON import the silt package, and
// the workers open the tables with their own storage settings.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "maintenance/service.h"

namespace silt::cli {

// The executor; first checks that PYTHON imports silt.dask and Dask, and that the scheduler
// answers with at least one worker. Errors: SILT_DASK_UNAVAILABLE (no Dask, no silt package for
// PYTHON, no scheduler or no worker).
Result<maintenance::RemoteExecutor> MakeDaskExecutor(const std::string& scheduler,
                                                     const std::string& python,
                                                     int64_t min_table_bytes);

}  // namespace silt::cli
