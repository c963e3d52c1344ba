"""silt's exceptions: one class per kind of failure, all under silt.Error.

Every exception carries the Spark/Delta error class (``error_class``, e.g.
``"TABLE_OR_VIEW_NOT_FOUND"``) and its SQLSTATE (``sql_state``, ``""`` when none is known), as
Spark reports them; ``str(e)`` is Spark's rendering ``[CLASS] message SQLSTATE: xxxxx``.
"""


class Error(Exception):
    """Base class of every error silt raises."""

    def __init__(self, message, error_class="", sql_state=""):
        self.message = message
        self.error_class = error_class
        self.sql_state = sql_state
        text = f"[{error_class}] {message}" if error_class else message
        if sql_state:
            text += f" SQLSTATE: {sql_state}"
        super().__init__(text)

    def __reduce__(self):
        # Pickled with its class, message, error class and SQLSTATE (a Dask worker's error
        # reaches the client as it was raised).
        return (type(self), (self.message, self.error_class, self.sql_state))


class InvalidArgumentError(Error, ValueError):
    """The input is wrong: bad SQL, a bad value or option (ANSI errors included)."""


class NotFoundError(Error):
    """A table, column, file or version does not exist."""


class AlreadyExistsError(Error):
    """The object to create exists already."""


class CommitConflictError(Error):
    """A concurrent commit won and conflicts with this one."""


class CorruptionError(Error):
    """Stored bytes are malformed (Parquet, the Delta log, a deletion vector)."""


class StorageError(Error, OSError):
    """The storage failed."""


class NotImplementedError(Error, NotImplementedError):  # noqa: A001 - silt.NotImplementedError
    """A feature silt does not have (yet)."""


class UnsupportedError(Error):
    """A table feature or format silt refuses on purpose."""


class OutOfMemoryError(Error, MemoryError):
    """A memory limit was hit."""


class CancelledError(Error):
    """The statement was cancelled."""


class InternalError(Error):
    """A bug in silt: an invariant did not hold."""


_BY_CODE = {
    "INVALID_ARGUMENT": InvalidArgumentError,
    "NOT_FOUND": NotFoundError,
    "ALREADY_EXISTS": AlreadyExistsError,
    "COMMIT_CONFLICT": CommitConflictError,
    "CORRUPTION": CorruptionError,
    "IO_ERROR": StorageError,
    "NOT_IMPLEMENTED": NotImplementedError,
    "UNSUPPORTED": UnsupportedError,
    "OUT_OF_MEMORY": OutOfMemoryError,
    "CANCELLED": CancelledError,
    "INTERNAL_ERROR": InternalError,
}


def _from_status(code, error_class, sql_state, message):
    """The exception of a C++ Status (called by the extension module)."""
    return _BY_CODE.get(code, Error)(message, error_class, sql_state)
