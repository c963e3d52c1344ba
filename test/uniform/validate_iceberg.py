#!/usr/bin/env python3
"""Independent check of a UniForm table's Iceberg metadata against the Iceberg table spec (v2).

Reads <table>/metadata/ with Apache Avro's Python implementation (Debian python3-avro), not
silt's code: version-hint.text, vN.metadata.json, the manifest list and the manifests. Replays
the Delta log's JSON commits by itself for the live files. Checks that the Iceberg snapshot
lists exactly the live data files, each with the Delta record count, size and partition values,
that the field ids are the column mapping ids, and that the summary totals add up.

Usage: validate_iceberg.py TABLE_DIR [EXPECTED_ROWS]
Prints one line per failed check; exit 0 when all pass, 1 otherwise, 2 when python3-avro is absent.
"""
import datetime
import glob
import json
import os
import sys
import urllib.parse

try:
    from avro.datafile import DataFileReader
    from avro.io import DatumReader
except ImportError:
    print("SKIP: python3-avro is not installed (apt-get install python3-avro)")
    sys.exit(2)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def read_avro(path):
    with open(path, "rb") as f:
        reader = DataFileReader(f, DatumReader())
        meta = {k: v.decode() if isinstance(v, bytes) else v for k, v in reader.meta.items()}
        schema = json.loads(meta["avro.schema"])
        records = list(reader)
        reader.close()
    return meta, schema, records


def local_path(uri):
    check(uri.startswith("file:/"), f"path {uri} is not an absolute file URI")
    p = uri[len("file:"):]
    while p.startswith("//"):
        p = p[1:]
    return p


def field_ids(avro_schema, out):
    """Every record field of an Avro schema must carry a field-id (Iceberg's Avro mapping)."""
    if isinstance(avro_schema, list):
        for s in avro_schema:
            field_ids(s, out)
    elif isinstance(avro_schema, dict):
        if avro_schema.get("type") == "record":
            for f in avro_schema["fields"]:
                check("field-id" in f, f"Avro field {f['name']} has no field-id")
                out.add(f.get("field-id"))
                field_ids(f["type"], out)
        elif avro_schema.get("type") == "array":
            field_ids(avro_schema["items"], out)


def delta_state(table):
    """Live adds and the latest metadata by replaying _delta_log/*.json (no checkpoints)."""
    live, metadata, version = {}, None, -1
    for path in sorted(glob.glob(os.path.join(table, "_delta_log", "*.json"))):
        version = int(os.path.basename(path).split(".")[0])
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                action = json.loads(line)
                if "add" in action:
                    live[urllib.parse.unquote(action["add"]["path"])] = action["add"]
                elif "remove" in action:
                    live.pop(urllib.parse.unquote(action["remove"]["path"]), None)
                elif "metaData" in action:
                    metadata = action["metaData"]
    return live, metadata, version


def main():
    table = os.path.abspath(sys.argv[1])
    expected_rows = int(sys.argv[2]) if len(sys.argv) > 2 else None
    mdir = os.path.join(table, "metadata")
    with open(os.path.join(mdir, "version-hint.text")) as f:
        n = int(f.read().strip())
    with open(os.path.join(mdir, f"v{n}.metadata.json")) as f:
        md = json.load(f)

    # Table metadata (spec "Table Metadata Fields", format version 2: all required).
    for key in ["format-version", "table-uuid", "location", "last-sequence-number",
                "last-updated-ms", "last-column-id", "schemas", "current-schema-id",
                "partition-specs", "default-spec-id", "last-partition-id", "sort-orders",
                "default-sort-order-id"]:
        check(key in md, f"metadata.json lacks {key}")
    check(md.get("format-version") == 2, "format-version is not 2")
    check(local_path(md["location"]) == table, f"location {md['location']} is not {table}")
    schema = [s for s in md["schemas"] if s["schema-id"] == md["current-schema-id"]]
    check(len(schema) == 1, "current-schema-id names no schema")
    spec = [s for s in md["partition-specs"] if s["spec-id"] == md["default-spec-id"]]
    check(len(spec) == 1, "default-spec-id names no spec")
    spec = spec[0]
    check(any(o["order-id"] == md["default-sort-order-id"] for o in md["sort-orders"]),
          "default-sort-order-id names no sort order")

    live, delta_md, delta_version = delta_state(table)
    check(md["properties"].get("delta-version") == str(delta_version),
          f"delta-version {md['properties'].get('delta-version')} != Delta version {delta_version}")
    check("schema.name-mapping.default" in md["properties"], "no name mapping")

    # Field ids are the column mapping ids, names the logical names.
    delta_schema = json.loads(delta_md["schemaString"])
    ids = {}

    def walk_delta(fields, prefix):
        for f in fields:
            ids[prefix + f["name"]] = f["metadata"]["delta.columnMapping.id"]
            if isinstance(f["type"], dict) and f["type"].get("type") == "struct":
                walk_delta(f["type"]["fields"], prefix + f["name"] + ".")

    def walk_iceberg(fields, prefix, out):
        for f in fields:
            out[prefix + f["name"]] = f["id"]
            if isinstance(f["type"], dict) and f["type"].get("type") == "struct":
                walk_iceberg(f["type"]["fields"], prefix + f["name"] + ".", out)

    walk_delta(delta_schema["fields"], "")
    iceberg_ids = {}
    walk_iceberg(schema[0]["fields"], "", iceberg_ids)
    check(ids == iceberg_ids, f"Iceberg field ids {iceberg_ids} != column mapping ids {ids}")
    check(md["last-column-id"] >= max(ids.values()), "last-column-id below a field id")
    by_id = {v: k for k, v in iceberg_ids.items()}
    partition_names = [f["name"] for f in spec["fields"]]
    check(partition_names == delta_md["partitionColumns"],
          f"partition spec {partition_names} != {delta_md['partitionColumns']}")
    for f in spec["fields"]:
        check(f["transform"] == "identity", "non-identity partition transform")
        check(by_id.get(f["source-id"]) == f["name"], f"partition source-id of {f['name']}")

    # Current snapshot.
    snaps = [s for s in md.get("snapshots", []) if s["snapshot-id"] == md.get("current-snapshot-id")]
    if not check(len(snaps) == 1, "current-snapshot-id names no snapshot"):
        return
    snap = snaps[0]
    check(md["refs"]["main"]["snapshot-id"] == snap["snapshot-id"], "main ref is not current")
    check(snap["sequence-number"] <= md["last-sequence-number"], "sequence number too high")
    check(snap["summary"]["operation"] in ("append", "replace", "overwrite", "delete"),
          "summary.operation is not an Iceberg operation")

    _, list_schema, manifests = read_avro(local_path(snap["manifest-list"]))
    list_ids = set()
    field_ids(list_schema, list_ids)
    for needed in (500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514):
        check(needed in list_ids, f"manifest list schema lacks field id {needed}")

    found = {}
    for m in manifests:
        mpath = local_path(m["manifest_path"])
        check(os.path.getsize(mpath) == m["manifest_length"], f"manifest_length of {mpath}")
        check(m["content"] == 0, "manifest content is not data")
        check(m["added_snapshot_id"] == snap["snapshot-id"] or m["existing_files_count"] > 0,
              "manifest added_snapshot_id")
        meta, entry_schema, entries = read_avro(mpath)
        for key in ("schema", "partition-spec", "format-version", "content"):
            check(key in meta, f"manifest {mpath} lacks key-value metadata {key}")
        check(meta.get("format-version") == "2", "manifest format-version")
        check(json.loads(meta["partition-spec"]) == spec["fields"], "manifest partition-spec")
        entry_ids = set()
        field_ids(entry_schema, entry_ids)
        for needed in (0, 1, 3, 4, 2, 134, 100, 101, 102, 103, 104):
            check(needed in entry_ids, f"manifest schema lacks field id {needed}")
        counts = {0: 0, 1: 0, 2: 0}
        rows = {0: 0, 1: 0}
        for e in entries:
            counts[e["status"]] += 1
            if e["status"] == 2:
                continue
            df = e["data_file"]
            rows[e["status"]] += df["record_count"]
            check(df["content"] == 0 and df["file_format"] == "PARQUET", "data_file content/format")
            check(e["sequence_number"] is not None or e["status"] == 1,
                  "EXISTING entry without a sequence number")
            path = local_path(df["file_path"])
            check(path not in found, f"{path} listed twice")
            found[path] = df
            for k in (df.get("null_value_counts") or []):
                check(k["key"] in by_id, f"null count for unknown field id {k['key']}")
        check(m["added_files_count"] == counts[1] and m["existing_files_count"] == counts[0],
              "manifest file counts")
        check(m["added_rows_count"] == rows[1] and m["existing_rows_count"] == rows[0],
              "manifest row counts")

    # Exactly the Delta table's live files, with Delta's record counts, sizes and partitions.
    want = {os.path.join(table, p): a for p, a in live.items()}
    check(set(found) == set(want),
          f"Iceberg files {sorted(found)} != Delta live files {sorted(want)}")
    total = 0
    for path, add in want.items():
        df = found.get(path)
        if df is None:
            continue
        check(os.path.exists(path), f"{path} does not exist")
        records = json.loads(add["stats"])["numRecords"]
        total += records
        check(df["record_count"] == records, f"{path}: record_count {df['record_count']} != {records}")
        check(df["file_size_in_bytes"] == add["size"] == os.path.getsize(path),
              f"{path}: file_size_in_bytes")
        for f in spec["fields"]:
            name = f["name"]
            field = next(x for x in delta_schema["fields"] if x["name"] == name)
            physical = field["metadata"].get("delta.columnMapping.physicalName", name)
            text = add["partitionValues"].get(physical, add["partitionValues"].get(name))
            value = df["partition"].get(name)
            check((text is None) == (value is None), f"{path}: null partition {name}")
            if text is not None and value is not None:
                if isinstance(value, datetime.date):
                    value = value.isoformat()
                elif field["type"] == "date":
                    value = (datetime.date(1970, 1, 1) + datetime.timedelta(days=value)).isoformat()
                check(str(value).lower() == text.lower(), f"{path}: partition {name} {value} != {text}")
    check(snap["summary"].get("total-records") == str(total), "summary total-records")
    check(snap["summary"].get("total-data-files") == str(len(want)), "summary total-data-files")
    if expected_rows is not None:
        check(total == expected_rows, f"Iceberg row count {total} != table row count {expected_rows}")


main()
for f in failures:
    print("FAIL:", f)
print(f"{'ok' if not failures else 'failed'}: {sys.argv[1]}")
sys.exit(1 if failures else 0)
