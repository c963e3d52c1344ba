"""The maintenance service's bridge to a Dask cluster (`silt maintain --dask-scheduler ADDRESS`,
docs/scale-out.md): the C++ service runs this module as a subprocess for each batch of work of a
table that goes to the cluster. Dask carries the tasks (silt.dask's task functions); nothing here
is an RPC of its own.

    python3 -m silt._dask_runner ADDRESS check OUT
    python3 -m silt._dask_runner ADDRESS run IN OUT          IN: a JSON list of task texts
    python3 -m silt._dask_runner ADDRESS delete URI IN OUT   IN: a JSON list of keys

OUT gets one JSON object: {"workers": n} for check, {"outputs": [...]} (one per task, in order)
for run, {"errors": ["" or the error, ...]} for delete; on failure {"error_class": ...,
"message": ...} (a silt.Error raised on a worker keeps its class) and the exit status is 1.
"""

import json
import sys


def _write(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)


class _Unavailable(Exception):
    error_class = "SILT_DASK_UNAVAILABLE"

    def __init__(self, message):
        super().__init__(message)
        self.message = message


def _client(address):
    try:
        from dask.distributed import Client
    except ImportError as e:
        raise _Unavailable(
            f"Dask is not installed for {sys.executable} (Debian: python3-distributed): {e}"
        ) from e
    try:
        return Client(address, timeout="30s", set_as_default=False)
    except OSError as e:
        raise _Unavailable(f"no Dask scheduler answers at {address}: {e}") from e


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    address, command, out = argv[0], argv[1], argv[-1]
    try:
        from . import dask as silt_dask

        with _client(address) as client:
            if command == "check":
                workers = len(client.scheduler_info().get("workers", {}))
                if not workers:
                    raise _Unavailable(f"the Dask scheduler at {address} has no workers")
                _write(out, {"workers": workers})
            elif command == "run" and len(argv) == 4:
                with open(argv[2], encoding="utf-8") as f:
                    tasks = json.load(f)
                _write(out, {"outputs": silt_dask._run_tasks(client, tasks)})
            elif command == "delete" and len(argv) == 5:
                with open(argv[3], encoding="utf-8") as f:
                    keys = json.load(f)
                _write(out, {"errors": silt_dask._delete_keys(client, argv[2], keys)})
            else:
                print(__doc__, file=sys.stderr)
                return 2
        return 0
    except Exception as e:  # noqa: BLE001 - every failure goes back to the service
        cls = getattr(e, "error_class", "") or "SILT_DASK_EXECUTOR_FAILED"
        message = getattr(e, "message", "") or f"{type(e).__name__}: {e}"
        _write(out, {"error_class": cls, "message": message})
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
