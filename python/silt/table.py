"""delta-rs-like Delta tables (DeltaTable, write_deltalake) over silt's SQL statements.

Each method is one Spark SQL statement on the table's path (delta.`uri`): DESCRIBE HISTORY /
DETAIL, SELECT [VERSION AS OF], VACUUM, OPTIMIZE [ZORDER BY], DELETE, UPDATE, MERGE, RESTORE,
CREATE TABLE / INSERT; see docs/python.md.
"""

import json
from dataclasses import dataclass, field as dc_field

from . import errors
from ._ingest import source_relation
from ._sqltext import filters_sql, quote_identifier, string_literal, table_ref, values_relation


def _connection(connection):
    if connection is not None:
        return connection
    from . import _default_connection

    return _default_connection()


def _row_dict(result):
    rows = result.fetchall()
    if not rows:
        return {}
    return dict(zip(result.columns, rows[0]))


def _metrics(value):
    """OPTIMIZE's metrics column (a struct, or its JSON text) as a dict."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


@dataclass
class Field:
    name: str
    type: str
    nullable: bool = True
    metadata: dict = dc_field(default_factory=dict)


@dataclass
class Schema:
    fields: list

    def field(self, name):
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def names(self):
        return [f.name for f in self.fields]


@dataclass
class Metadata:
    id: str
    name: str
    description: str
    partition_columns: list
    created_time: object
    configuration: dict
    location: str = ""
    num_files: int = 0
    size_in_bytes: int = 0
    min_reader_version: int = 0
    min_writer_version: int = 0
    table_features: list = dc_field(default_factory=list)


class DeltaTable:
    """The Delta table at `table_uri` (a path or a storage URI), at its latest version or at
    `version` (time travel)."""

    def __init__(self, table_uri, version=None, *, connection=None):
        self._uri = str(table_uri)
        self._con = _connection(connection)
        self._ref = table_ref(self._uri)
        self._version = None
        if version is not None:
            self.load_as_version(version)
        else:
            self.version()  # fails now when there is no table

    def __repr__(self):
        return f"<silt.DeltaTable {self._uri} version {self.version()}>"

    @property
    def table_uri(self):
        return self._uri

    def _sql(self, text):
        return self._con.sql(text)

    def _source(self):
        if self._version is None:
            return self._ref
        if isinstance(self._version, int):
            return f"{self._ref} VERSION AS OF {self._version}"
        return f"{self._ref} TIMESTAMP AS OF {string_literal(str(self._version))}"

    # --- reading ------------------------------------------------------------------------
    def version(self):
        """The version this object reads: the pinned one, else the latest."""
        if self._version is not None:
            return self._version
        rows = self._sql(f"DESCRIBE HISTORY {self._ref} LIMIT 1").fetchall()
        return rows[0][0]

    def load_as_version(self, version):
        """Pins the table at a version (int) or a timestamp (datetime or text, as TIMESTAMP AS
        OF); fails when the table has no such version."""
        if isinstance(version, bool) or not isinstance(version, (int, str)):
            import datetime

            if isinstance(version, datetime.datetime):
                version = version.isoformat(sep=" ")
            else:
                raise TypeError("version must be an int, a datetime or a timestamp string")
        previous = self._version
        self._version = version
        try:
            self._sql(f"SELECT * FROM {self._source()} LIMIT 0")
        except Exception:
            self._version = previous
            raise
        if isinstance(version, str):
            # The version TIMESTAMP AS OF reads: the last commit at or before the timestamp
            # (a timestamp without a zone is UTC, the session's zone).
            import datetime

            at = datetime.datetime.fromisoformat(version)
            if at.tzinfo is None:
                at = at.replace(tzinfo=datetime.timezone.utc)
            self._version = None
            versions = [h["version"] for h in self.history() if h["timestamp"] <= at]
            self._version = max(versions) if versions else previous
        return self

    def _add_actions(self):
        """The live files of the pinned (else latest) version: one dict per add action."""
        from . import Result

        version = self._version if isinstance(self._version, int) else None
        r = Result(self._con._con.list_files(self._uri, version))
        return [dict(zip(r.columns, row)) for row in r.fetchall()]

    @staticmethod
    def _partition_match(values, partition_filters):
        """delta-rs partition filters: a conjunction of (column, op, value) on the log's
        partition value strings; ops = == != in "not in"; None matches a NULL value."""
        for f in partition_filters or []:
            if len(f) != 3:
                raise errors.InvalidArgumentError(f"a partition filter is (column, op, value), not {f!r}",
                                                  "INVALID_PARAMETER_VALUE")
            col, op, value = f
            if col not in values:
                raise errors.InvalidArgumentError(f"{col!r} is not a partition column",
                                                  "INVALID_PARAMETER_VALUE")
            have = values[col]

            def text(v):
                return None if v is None else str(v)

            if op in ("=", "=="):
                ok = have == text(value)
            elif op == "!=":
                ok = have != text(value)
            elif op in ("in", "not in"):
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise errors.InvalidArgumentError(f"the value of {op!r} must be a list",
                                                      "INVALID_PARAMETER_VALUE")
                ok = (have in [text(v) for v in value]) == (op == "in")
            else:
                raise errors.InvalidArgumentError(f"unsupported partition filter operator {op!r}",
                                                  "INVALID_PARAMETER_VALUE")
            if not ok:
                return False
        return True

    def files(self, partition_filters=None):
        """The live data files of this version: their paths relative to the table root (as
        the log has them, percent-decoded), in log order; `partition_filters` keeps the files
        whose partition values match (delta-rs's [(column, op, value)])."""
        return [
            a["path"] for a in self._add_actions()
            if self._partition_match(a["partition_values"], partition_filters)
        ]

    def file_uris(self, partition_filters=None):
        """The live data files' absolute URIs (what input_file_name() gives for their rows)."""
        return [
            a["uri"] for a in self._add_actions()
            if self._partition_match(a["partition_values"], partition_filters)
        ]

    def get_add_actions(self, flatten=False):
        """The live files' add actions as a pandas DataFrame (delta-rs's columns): path,
        size_bytes, modification_time (UTC), data_change, num_records, null_count, min, max (from
        the statistics; None without) and partition_values; with flatten=True the nested ones
        become columns partition.<col>, null_count.<col>, min.<col>, max.<col> (nested
        columns dotted: min.a.b)."""
        import pandas as pd

        rows = []
        for a in self._add_actions():
            stats = json.loads(a["stats"]) if a["stats"] else {}
            row = {
                "path": a["path"],
                "size_bytes": a["size_bytes"],
                "modification_time": a["modification_time"],
                "data_change": a["data_change"],
                "num_records": a["num_records"],
            }
            nested = {
                "partition": dict(a["partition_values"]),
                "null_count": stats.get("nullCount"),
                "min": stats.get("minValues"),
                "max": stats.get("maxValues"),
            }
            if not flatten:
                row["partition_values"] = nested["partition"]
                for k in ("null_count", "min", "max"):
                    row[k] = nested[k]
            else:
                def flat(prefix, value):
                    if isinstance(value, dict):
                        for key, v in value.items():
                            flat(f"{prefix}.{key}", v)
                    else:
                        row[prefix] = value

                for k, v in nested.items():
                    if v:
                        flat(k, v)
            rows.append(row)
        columns = ["path", "size_bytes", "modification_time", "data_change", "num_records"]
        if not flatten:
            columns += ["partition_values", "null_count", "min", "max"]
        df = pd.DataFrame(rows, columns=None if flatten and rows else columns)
        if len(df):
            df["modification_time"] = pd.to_datetime(df["modification_time"], utc=True)
        return df

    def schema(self):
        """The table's schema (of the pinned version) as a Schema of Fields with Spark types."""
        r = self._sql(f"SELECT * FROM {self._source()} LIMIT 0")
        fields = []
        for name, type_, nullable, meta in zip(r._r.columns, r._r.types, r._r.nullable, r._r.metadata):
            fields.append(Field(name, type_, nullable, json.loads(meta) if meta else {}))
        return Schema(fields)

    def history(self, limit=None):
        """The commits, newest first, as dicts with DESCRIBE HISTORY's columns."""
        q = f"DESCRIBE HISTORY {self._ref}"
        if limit is not None:
            q += f" LIMIT {int(limit)}"
        r = self._sql(q)
        cols = r.columns
        out = []
        for row in r.fetchall():
            d = dict(zip(cols, row))
            if isinstance(self._version, int) and d.get("version", 0) > self._version:
                continue
            out.append(d)
        return out

    def metadata(self):
        """The table's metadata (DESCRIBE DETAIL): id, name, description, partition columns,
        creation time, configuration."""
        d = _row_dict(self._sql(f"DESCRIBE DETAIL {self._ref}"))
        props = d.get("properties") or {}
        if isinstance(props, str):
            props = json.loads(props)
        return Metadata(
            id=d.get("id"),
            name=d.get("name"),
            description=d.get("description"),
            partition_columns=list(d.get("partitionColumns") or []),
            created_time=d.get("createdAt"),
            configuration=dict(props),
            location=d.get("location"),
            num_files=d.get("numFiles"),
            size_in_bytes=d.get("sizeInBytes"),
            min_reader_version=d.get("minReaderVersion"),
            min_writer_version=d.get("minWriterVersion"),
            table_features=list(d.get("tableFeatures") or []),
        )

    def to_pandas(self, columns=None, filters=None):
        """The rows (of the pinned version) as a pandas DataFrame: `columns` selects columns,
        `filters` keeps rows (DNF: [(col, op, value), ...] or a list of such lists)."""
        cols = ", ".join(quote_identifier(c) for c in columns) if columns else "*"
        q = f"SELECT {cols} FROM {self._source()}"
        where = filters_sql(filters)
        if where:
            q += f" WHERE {where}"
        return self._sql(q).df()

    def to_sql_result(self, columns=None, filters=None):
        cols = ", ".join(quote_identifier(c) for c in columns) if columns else "*"
        q = f"SELECT {cols} FROM {self._source()}"
        where = filters_sql(filters)
        if where:
            q += f" WHERE {where}"
        return self._sql(q)

    # --- maintenance and DML -------------------------------------------------------------
    def _writable(self):
        if self._version is not None:
            raise errors.InvalidArgumentError(
                "this DeltaTable is pinned at an old version (load_as_version); open the latest "
                "version to change the table",
                "INVALID_PARAMETER_VALUE",
            )

    def vacuum(self, retention_hours=None, dry_run=True, enforce_retention_duration=True):
        """Files no longer referenced and older than the retention (default: the table's
        delta.deletedFileRetentionDuration, 7 days): listed (dry_run) or deleted. Returns the
        file paths. enforce_retention_duration=False allows a retention below the table's."""
        self._writable()
        retain = f" RETAIN {float(retention_hours)!r} HOURS" if retention_hours is not None else ""
        key = "spark.databricks.delta.retentionDurationCheck.enabled"
        previous = self._con.get_config(key)
        if not enforce_retention_duration:
            self._con.set_config(key, "false")
        try:
            listed = [row[0] for row in self._sql(f"VACUUM {self._ref}{retain} DRY RUN").fetchall()]
            if not dry_run:
                self._sql(f"VACUUM {self._ref}{retain}")
        finally:
            if not enforce_retention_duration:
                self._con.set_config(key, previous if previous is not None else "true")
        return listed

    @property
    def optimize(self):
        """OPTIMIZE: .compact() (bin packing) and .z_order(columns)."""
        return TableOptimizer(self)

    def delete(self, predicate=None):
        """Deletes the rows matching the SQL `predicate` (all rows when None); returns the
        metrics ({"num_deleted_rows": n})."""
        self._writable()
        q = f"DELETE FROM {self._ref}"
        if predicate:
            q += f" WHERE {predicate}"
        d = _row_dict(self._sql(q))
        return {"num_deleted_rows": d.get("num_affected_rows", 0)}

    def update(self, updates=None, predicate=None, new_values=None):
        """Sets columns in the rows matching `predicate`: `updates` maps a column to a SQL
        expression, `new_values` to a Python value. Returns {"num_updated_rows": n}."""
        from ._sqltext import literal

        self._writable()
        sets = []
        for col, expr in (updates or {}).items():
            sets.append(f"{quote_identifier(col)} = {expr}")
        for col, value in (new_values or {}).items():
            sets.append(f"{quote_identifier(col)} = {literal(value)}")
        if not sets:
            raise errors.InvalidArgumentError("update() needs updates or new_values", "INVALID_PARAMETER_VALUE")
        q = f"UPDATE {self._ref} SET {', '.join(sets)}"
        if predicate:
            q += f" WHERE {predicate}"
        d = _row_dict(self._sql(q))
        return {"num_updated_rows": d.get("num_affected_rows", 0)}

    def merge(self, source, predicate, source_alias="source", target_alias="target"):
        """A MERGE builder: `source` is a pandas DataFrame or a SQL relation (a table name or a
        parenthesized query); `predicate` the ON condition over the two aliases."""
        self._writable()
        return TableMerger(self, source, predicate, source_alias, target_alias)

    def restore(self, target):
        """Restores the table to a version (int) or a timestamp; returns RESTORE's metrics."""
        self._writable()
        if isinstance(target, int) and not isinstance(target, bool):
            q = f"RESTORE TABLE {self._ref} TO VERSION AS OF {target}"
        else:
            text = target.isoformat(sep=" ") if hasattr(target, "isoformat") else str(target)
            q = f"RESTORE TABLE {self._ref} TO TIMESTAMP AS OF {string_literal(text)}"
        return _row_dict(self._sql(q))


class TableOptimizer:
    def __init__(self, table):
        self._t = table

    def _run(self, q, partition_filters):
        self._t._writable()
        where = filters_sql(partition_filters)
        if where:
            q += f" WHERE {where}"
        d = _row_dict(self._t._sql(q))
        return _metrics(d.get("metrics"))

    def compact(self, partition_filters=None):
        """OPTIMIZE (bin packing of small files); returns the metrics."""
        return self._run(f"OPTIMIZE {self._t._ref}", partition_filters)

    def z_order(self, columns, partition_filters=None):
        """OPTIMIZE ... ZORDER BY (columns); returns the metrics."""
        if isinstance(columns, str):
            columns = [columns]
        q = f"OPTIMIZE {self._t._ref}"
        where = filters_sql(partition_filters)
        if where:
            q += f" WHERE {where}"
        q += " ZORDER BY (" + ", ".join(quote_identifier(c) for c in columns) + ")"
        self._t._writable()
        d = _row_dict(self._t._sql(q))
        return _metrics(d.get("metrics"))


class TableMerger:
    """MERGE INTO table USING source ON predicate, with WHEN clauses in the order added."""

    def __init__(self, table, source, predicate, source_alias, target_alias):
        self._t = table
        self._predicate = predicate
        self._source_alias = source_alias
        self._target_alias = target_alias
        # A SQL relation (str) as written; data (a DataFrame, an Arrow stream source) becomes a
        # temporary view while execute() runs (_ingest.source_relation).
        self._source = source
        self._clauses = []

    def _cond(self, predicate):
        return f" AND {predicate}" if predicate else ""

    @staticmethod
    def _sets(updates):
        return ", ".join(f"{quote_identifier(c)} = {e}" for c, e in updates.items())

    def when_matched_update(self, updates, predicate=None):
        self._clauses.append(f"WHEN MATCHED{self._cond(predicate)} THEN UPDATE SET {self._sets(updates)}")
        return self

    def when_matched_update_all(self, predicate=None):
        self._clauses.append(f"WHEN MATCHED{self._cond(predicate)} THEN UPDATE SET *")
        return self

    def when_matched_delete(self, predicate=None):
        self._clauses.append(f"WHEN MATCHED{self._cond(predicate)} THEN DELETE")
        return self

    def when_not_matched_insert(self, updates, predicate=None):
        cols = ", ".join(quote_identifier(c) for c in updates)
        vals = ", ".join(updates.values())
        self._clauses.append(f"WHEN NOT MATCHED{self._cond(predicate)} THEN INSERT ({cols}) VALUES ({vals})")
        return self

    def when_not_matched_insert_all(self, predicate=None):
        self._clauses.append(f"WHEN NOT MATCHED{self._cond(predicate)} THEN INSERT *")
        return self

    def when_not_matched_by_source_update(self, updates, predicate=None):
        self._clauses.append(
            f"WHEN NOT MATCHED BY SOURCE{self._cond(predicate)} THEN UPDATE SET {self._sets(updates)}"
        )
        return self

    def when_not_matched_by_source_delete(self, predicate=None):
        self._clauses.append(f"WHEN NOT MATCHED BY SOURCE{self._cond(predicate)} THEN DELETE")
        return self

    def _statement(self, relation):
        if not self._clauses:
            raise errors.InvalidArgumentError("merge() needs at least one WHEN clause", "INVALID_PARAMETER_VALUE")
        return (
            f"MERGE INTO {self._t._ref} AS {quote_identifier(self._target_alias)} "
            f"USING {relation} ON {self._predicate} " + " ".join(self._clauses)
        )

    def sql(self):
        """The MERGE statement this builder runs (a DataFrame source shown as its VALUES; execute()
        passes the rows as a temporary view instead)."""
        if isinstance(self._source, str):
            return self._statement(f"{self._source} AS {quote_identifier(self._source_alias)}")
        if hasattr(self._source, "__arrow_c_stream__") and not hasattr(self._source, "itertuples"):
            return self._statement(f"(SELECT * FROM <Arrow stream>) AS {quote_identifier(self._source_alias)}")
        return self._statement(values_relation(self._source, self._source_alias))

    def execute(self):
        """Runs the MERGE; returns its metrics (num_affected_rows, num_updated_rows, ...)."""
        if isinstance(self._source, str):
            return _row_dict(self._t._sql(self.sql()))
        self._statement("")  # fails now without a WHEN clause
        with source_relation(self._t._con, self._source, self._source_alias) as relation:
            return _row_dict(self._t._sql(self._statement(relation)))


def _table_exists(con, ref):
    try:
        con.sql(f"DESCRIBE HISTORY {ref} LIMIT 1")
        return True
    except errors.Error as e:
        if isinstance(e, errors.NotFoundError) or e.error_class in (
            "DELTA_MISSING_DELTA_TABLE",
            "DELTA_TABLE_NOT_FOUND",
            "PATH_NOT_FOUND",
            "TABLE_OR_VIEW_NOT_FOUND",
        ):
            return False
        raise


def write_deltalake(
    table_or_uri,
    data,
    *,
    partition_by=None,
    mode="error",
    schema_mode=None,
    configuration=None,
    description=None,
    connection=None,
):
    """Writes `data` to the Delta table at `table_or_uri` in one commit: a pandas DataFrame
    (its columns go to silt as numpy arrays), anything with ``__arrow_c_stream__`` (a pyarrow
    Table or RecordBatchReader, a polars DataFrame, a silt Result: through the Arrow C stream
    import), or what ``pandas.DataFrame(data)`` accepts.

    mode: "error" (fail when the table exists), "append", "overwrite" (replace the rows; with
    schema_mode="overwrite" also the schema and partitioning) or "ignore" (do nothing when the
    table exists). A new table gets the DataFrame's schema (pandas dtypes mapped to Spark
    types), `partition_by` columns, `configuration` table properties and `description`.
    """
    con = _connection(connection)
    uri = table_or_uri.table_uri if isinstance(table_or_uri, DeltaTable) else str(table_or_uri)
    statement = _write_statement(con, uri, mode, partition_by, schema_mode, configuration,
                                 description)
    if statement is None:
        return
    # The rows reach the statement as a temporary view over silt vectors (_ingest.py).
    with source_relation(con, data, "_src") as relation:
        con.sql(statement + relation)


def _write_statement(con, uri, mode, partition_by, schema_mode, configuration, description):
    """write_deltalake's statement up to its rows' relation (it ends with ``SELECT * FROM``; the
    caller appends the relation), after the mode's checks; None when mode="ignore" finds the
    table. One commit: CREATE [OR REPLACE] TABLE … AS SELECT or INSERT INTO | OVERWRITE … BY
    NAME. silt.dask.write_deltalake runs the same statement with its rows on the workers."""
    if mode not in ("error", "append", "overwrite", "ignore"):
        raise errors.InvalidArgumentError(f"mode must be error, append, overwrite or ignore, not {mode!r}",
                                          "INVALID_PARAMETER_VALUE")
    ref = table_ref(uri)
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    exists = _table_exists(con, ref)
    if exists and mode == "ignore":
        return None
    if exists and mode == "error":
        raise errors.AlreadyExistsError(f"the Delta table {uri} already exists (mode='error')",
                                        "DELTA_TABLE_ALREADY_EXISTS")
    if partition_by is not None and exists and not (mode == "overwrite" and schema_mode == "overwrite"):
        current = DeltaTable(uri, connection=con).metadata().partition_columns
        if list(current) != list(partition_by):
            raise errors.InvalidArgumentError(
                f"partition_by {partition_by} differs from the table's partitioning {current}",
                "INVALID_PARAMETER_VALUE",
            )
    if not exists or (mode == "overwrite" and schema_mode == "overwrite"):
        create = "CREATE OR REPLACE TABLE" if exists else "CREATE TABLE"
        clauses = " USING DELTA"
        if partition_by:
            clauses += " PARTITIONED BY (" + ", ".join(quote_identifier(c) for c in partition_by) + ")"
        if description:
            clauses += f" COMMENT {string_literal(description)}"
        if configuration:
            props = ", ".join(f"{string_literal(k)} = {string_literal(str(v))}"
                              for k, v in configuration.items())
            clauses += f" TBLPROPERTIES ({props})"
        return f"{create} {ref}{clauses} AS SELECT * FROM "
    verb = "INSERT OVERWRITE" if mode == "overwrite" else "INSERT INTO"
    return f"{verb} {ref} BY NAME SELECT * FROM "
