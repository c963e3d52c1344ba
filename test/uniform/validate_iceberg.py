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
import decimal
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


class CompactReader:
    """Just enough of Thrift's compact protocol to read a Parquet footer's schema elements."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = out = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return out

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (1, 2):
            return t == 1
        if t == 3:
            return self.byte()
        if t in (4, 5, 6):
            return self.zigzag()
        if t == 7:
            self.pos += 8
            return None
        if t == 8:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n:self.pos]
        if t in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            return [self.value(et) for _ in range(n)]
        if t == 11:
            n = self.varint()
            if n:
                kv = self.byte()
                for _ in range(n):
                    self.value(kv >> 4)
                    self.value(kv & 0x0F)
            return None
        if t == 12:
            return self.struct()
        raise ValueError(f"thrift type {t}")

    def struct(self):
        out, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return out
            delta, t = h >> 4, h & 0x0F
            fid = last + delta if delta else self.zigzag()
            last = fid
            out[fid] = self.value(t)


def parquet_field_ids(path):
    """The Parquet schema of a data file as nested (name, field_id, children) tuples."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[-4:] == b"PAR1", f"{path} is not Parquet")
    n = int.from_bytes(data[-8:-4], "little")
    elements = CompactReader(data[-8 - n:-8]).struct()[2]
    pos = 0

    def node():
        nonlocal pos
        e = elements[pos]
        pos += 1
        children = [node() for _ in range(e.get(5) or 0)]
        return (e[4].decode(), e.get(9), children)

    return node()[2]


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

    # Field ids are the column mapping ids, names the logical names; list elements and map
    # keys/values have the ids of delta.columnMapping.nested.ids (Delta's
    # rewriteFieldIdsForIceberg), keyed by their path from the nearest struct field's physical
    # name. `ids` maps a top-level/struct path to its id (for the partition spec).
    delta_schema = json.loads(delta_md["schemaString"])
    ids = {}
    primitive = {"integer": "int", "short": "int", "byte": "int", "long": "long",
                 "timestamp": "timestamptz", "timestamp_ntz": "timestamp"}

    def expected_type(t, holder, path, prefix):
        if isinstance(t, str):
            if t.startswith("decimal"):
                return t.replace(",", ", ")
            return primitive.get(t, t)
        nested = holder["metadata"].get("delta.columnMapping.nested.ids", {}) if holder else {}
        if t["type"] == "struct":
            return {"type": "struct", "fields": expected_fields(t["fields"], prefix)}
        if t["type"] == "array":
            key = path + ".element"
            check(key in nested, f"no nested id {key} in {holder['name']}'s metadata")
            return {"type": "list", "element-id": nested.get(key),
                    "element": expected_type(t["elementType"], holder, key, prefix + "[]."),
                    "element-required": not t["containsNull"]}
        key, value = path + ".key", path + ".value"
        check(key in nested and value in nested, f"no nested ids {key}/{value}")
        return {"type": "map", "key-id": nested.get(key),
                "key": expected_type(t["keyType"], holder, key, prefix + "{key}."),
                "value-id": nested.get(value),
                "value": expected_type(t["valueType"], holder, value, prefix + "{value}."),
                "value-required": not t["valueContainsNull"]}

    def expected_fields(fields, prefix):
        out = []
        for f in fields:
            md_ = f["metadata"]
            ids[prefix + f["name"]] = md_["delta.columnMapping.id"]
            physical = md_.get("delta.columnMapping.physicalName", f["name"])
            out.append({"id": md_["delta.columnMapping.id"], "name": f["name"],
                        "required": not f["nullable"],
                        "type": expected_type(f["type"], f, physical, prefix + f["name"] + ".")})
        return out

    def strip(fields):  # the Iceberg fields without optional keys (doc, defaults)
        keep = ("id", "name", "required", "type")
        out = []
        for f in fields:
            out.append({k: strip_type(f[k]) if k == "type" else f[k] for k in keep})
        return out

    def strip_type(t):
        if isinstance(t, str):
            return t
        t = dict(t)
        if t["type"] == "struct":
            t["fields"] = strip(t["fields"])
        for k in ("element", "key", "value"):
            if k in t:
                t[k] = strip_type(t[k])
        return t

    want_fields = expected_fields(delta_schema["fields"], "")
    check(strip(schema[0]["fields"]) == want_fields,
          f"Iceberg schema {schema[0]['fields']} != the Delta schema's {want_fields}")

    def all_ids(t, out):
        if isinstance(t, dict):
            for k in ("id", "element-id", "key-id", "value-id"):
                if k in t:
                    out.append(t[k])
            for f in t.get("fields", []):
                all_ids(f, out)
            for k in ("type", "element", "key", "value"):
                all_ids(t.get(k), out)
        return out

    every_id = all_ids({"fields": schema[0]["fields"]}, [])
    check(len(every_id) == len(set(every_id)), f"duplicate Iceberg field ids {sorted(every_id)}")
    check(md["last-column-id"] >= max(every_id), "last-column-id below a field id")
    check(int(delta_md["configuration"].get("delta.columnMapping.maxColumnId", "0")) >=
          max(every_id), "delta.columnMapping.maxColumnId below a (nested) field id")

    # The name mapping (Iceberg's MappingUtil.create): every id with its logical name.
    def mapping_ids(entries, out):
        for e in entries:
            out.append(e["field-id"])
            mapping_ids(e.get("fields", []), out)
        return out

    mapping = json.loads(md["properties"]["schema.name-mapping.default"])
    check(sorted(mapping_ids(mapping, [])) == sorted(every_id),
          "name mapping ids != schema ids")
    iceberg_ids = {k: v for k, v in ids.items()}
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

    # History (spec "Snapshots", "Snapshot log", "Metadata log"): every kept snapshot readable,
    # in sequence order, chained by parent ids; the logs name kept snapshots and existing files;
    # no manifest list or manifest of an expired snapshot left behind.
    history = md["snapshots"]
    seqs = [x["sequence-number"] for x in history]
    check(seqs == sorted(seqs) and len(set(seqs)) == len(seqs), f"snapshot sequence numbers {seqs}")
    check(history[-1]["snapshot-id"] == snap["snapshot-id"], "current snapshot is not the last")
    snap_ids = {x["snapshot-id"] for x in history}
    for prev, nxt in zip(history, history[1:]):
        check(nxt.get("parent-snapshot-id") == prev["snapshot-id"],
              f"snapshot {nxt['snapshot-id']}'s parent is not {prev['snapshot-id']}")
    referenced = set()
    for x in history:
        lpath = local_path(x["manifest-list"])
        if check(os.path.exists(lpath), f"manifest list {lpath} of a kept snapshot is missing"):
            referenced.add(lpath)
            for m in read_avro(lpath)[2]:
                mpath = local_path(m["manifest_path"])
                check(os.path.exists(mpath), f"manifest {mpath} of a kept snapshot is missing")
                referenced.add(mpath)
    log = md.get("snapshot-log", [])
    check(log and log[-1]["snapshot-id"] == snap["snapshot-id"], "snapshot-log does not end at current")
    for e in log:
        check(e["snapshot-id"] in snap_ids, f"snapshot-log names expired snapshot {e['snapshot-id']}")
    mlog = md.get("metadata-log", [])
    check(len(mlog) == min(n - 1, 100), f"metadata-log has {len(mlog)} entries for v{n}")
    for i, e in enumerate(mlog):
        want_file = os.path.join(mdir, f"v{n - len(mlog) + i}.metadata.json")
        check(local_path(e["metadata-file"]) == want_file, f"metadata-log entry {e['metadata-file']}")
        check(os.path.exists(want_file), f"{want_file} is missing")
    avro_files = set(glob.glob(os.path.join(mdir, "*.avro")))
    check(avro_files == referenced,
          f"Avro files no kept snapshot references: {sorted(avro_files - referenced)}")
    if os.environ.get("EXPECT_SNAPSHOTS"):
        check(len(history) == int(os.environ["EXPECT_SNAPSHOTS"]),
              f"{len(history)} snapshots kept, expected {os.environ['EXPECT_SNAPSHOTS']}")

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
            if e["status"] == 1:
                check(e["snapshot_id"] == snap["snapshot-id"], "ADDED entry of another snapshot")
            else:
                check(e["sequence_number"] < snap["sequence-number"] and
                      e["file_sequence_number"] <= e["sequence_number"],
                      "EXISTING entry without its original sequence numbers")
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
                if isinstance(value, decimal.Decimal):
                    check(value == decimal.Decimal(text), f"{path}: partition {name} {value} != {text}")
                    continue
                if isinstance(value, datetime.datetime):
                    check(value.replace(tzinfo=None) == datetime.datetime.fromisoformat(text),
                          f"{path}: partition {name} {value} != {text}")
                    continue
                if isinstance(value, bytes):
                    value = value.decode()
                elif field["type"] == "timestamp_ntz":
                    value = str(datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=value))
                    text = str(datetime.datetime.fromisoformat(text))
                elif isinstance(value, datetime.date):
                    value = value.isoformat()
                elif field["type"] == "date":
                    value = (datetime.date(1970, 1, 1) + datetime.timedelta(days=value)).isoformat()
                check(str(value).lower() == text.lower(), f"{path}: partition {name} {value} != {text}")
    # Each data file's Parquet schema carries the ids Iceberg reads it by: the column mapping
    # ids on struct fields and the nested ids on list elements and map keys/values (Delta's
    # parquet.field.nested.ids).
    def expect_parquet(nodes, fields, path):
        by_name = {name: (fid, kids) for name, fid, kids in nodes}
        for f in fields:
            physical = f["metadata"].get("delta.columnMapping.physicalName", f["name"])
            # Partition columns are written into the files too, as Delta does under IcebergCompat.
            if fields is delta_schema["fields"] and f["name"] in delta_md["partitionColumns"]:
                check(physical in by_name, f"{path}: partition column {f['name']} not in the file")
            if physical not in by_name:
                continue  # a column added after the file was written
            fid, kids = by_name[physical]
            parquet_checked[0] += 1
            check(fid == f["metadata"]["delta.columnMapping.id"], f"{path}: field_id of {physical}")
            expect_type(kids, f["type"], f, physical, path)

    def expect_type(kids, t, holder, key, path):
        if isinstance(t, str):
            return
        if t["type"] == "struct":
            expect_parquet(kids, t["fields"], path)
            return
        nested = holder["metadata"].get("delta.columnMapping.nested.ids", {})
        inner = kids[0][2] if kids else []  # the repeated "list" / "key_value" group
        names = ["element"] if t["type"] == "array" else ["key", "value"]
        types = [t["elementType"]] if t["type"] == "array" else [t["keyType"], t["valueType"]]
        for (name, fid, grand), want_name, sub in zip(inner, names, types):
            check(name == want_name and fid == nested.get(f"{key}.{want_name}"),
                  f"{path}: Parquet {key}.{name} field_id {fid} != "
                  f"{nested.get(key + '.' + want_name)}")
            expect_type(grand, sub, holder, f"{key}.{want_name}", path)

    parquet_checked = [0]
    for path in want:
        if os.path.exists(path) and any(k == "ICEBERG_COMPAT_VERSION"
                                        for k in (want[path].get("tags") or {})):
            before = parquet_checked[0]
            expect_parquet(parquet_field_ids(path), delta_schema["fields"], path)
            check(parquet_checked[0] > before, f"{path}: no column of the schema in the file")
    check(snap["summary"].get("total-records") == str(total), "summary total-records")
    check(snap["summary"].get("total-data-files") == str(len(want)), "summary total-data-files")
    if expected_rows is not None:
        check(total == expected_rows, f"Iceberg row count {total} != table row count {expected_rows}")


main()
for f in failures:
    print("FAIL:", f)
print(f"{'ok' if not failures else 'failed'}: {sys.argv[1]}")
sys.exit(1 if failures else 0)
