// The one place that turns a table or warehouse location into an ObjectStore (like Arrow's
// FileSystemFromUri). Everything that reads or writes tables, the catalog and the commands
// included, opens its storage here, so the engine runs unchanged on any store.
//
// Location forms (io/path.h parses the file: ones):
//   /abs/path, rel/path        local file system; a relative path is resolved against the working
//                              directory (LocalObjectStore)
//   file:/p, file:///p, file://localhost/p
//                              local file system, percent-decoded once
//   memory://<name>[/<path>]   the in-memory store registered under <name> (created on first use,
//                              kept until DropMemoryStore), seen from <path> below its root: two
//                              opens of the same name share the objects (a Database and a test)
//   memory://                  a fresh anonymous in-memory store (nothing shares it)
//   abfss://, abfs://, wasbs://, wasb://, az://, https://<account>.blob.core.windows.net/...
//                              Azure Blob / ADLS Gen2 / OneLake (AzureBlobStore)
//   s3://bucket/path, s3a://bucket/path
//                              Amazon S3 or an S3-compatible endpoint (S3ObjectStore)
//   s3n://, gs://, adl://      NotImplemented (class NOT_IMPLEMENTED)
// Any other scheme is NotImplemented too; an empty location is InvalidArgument.
//
// Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status.h"
#include "io/memory_object_store.h"
#include "io/object_store.h"

namespace silt {

// The store rooted at `location` (forms above).
// `clock` gives the modification times of a memory store this call creates (required for
// memory:// locations; local stores take the file system's times and ignore it).
Result<std::shared_ptr<ObjectStore>> OpenObjectStore(std::string_view location,
                                                     std::shared_ptr<Clock> clock);

// `location` in the form the engine stores and prints: a local location becomes an absolute,
// lexically normal path (no file: scheme, no trailing '/'); memory:// locations lose trailing
// '/'. Errors as OpenObjectStore.
Result<std::string> CanonicalLocation(std::string_view location);

// `child` (a '/'-separated relative path) below `location`, in the same form.
std::string ChildLocation(std::string_view location, std::string_view child);

// The relative key of `location` below `base` (both canonical), or nullopt when it is not
// strictly below it.
std::optional<std::string> RelativeLocation(std::string_view base, std::string_view location);

// Reads the file at an absolute location (a data or DV file a Delta log names by absolute
// path). Local: opened as file.h's OpenLocalFile does (symlinks followed, as Hadoop's local file
// system does); memory: through the named store. NotFound when missing.
Result<std::shared_ptr<RandomAccessFile>> OpenLocationForRead(std::string_view location);

// Whole-location operations (a table directory), each through one store opened on the
// location's parent (a common ancestor for MoveLocation):
// Deletes the location and everything below it (DeleteTree); a missing location is OK.
Status DeleteLocation(std::string_view location);
// Whether an object or a directory exists at the location.
Result<bool> LocationExists(std::string_view location);
// Moves the directory `from` to `to` (ObjectStore::RenameDir: one rename on a local disk).
// Both must lie in the same store (the same file system or memory store): else NotImplemented.
Status MoveLocation(std::string_view from, std::string_view to);

// The named in-memory store "memory://<name>", created (with `clock` for modification times,
// required then) when missing. The whole-location helpers above never create one (a missing
// named store: NotFound, or nothing to delete / not existing). InvalidArgument for an empty name or
// one with '/'.
Result<std::shared_ptr<InMemoryObjectStore>> MemoryStore(const std::string& name,
                                                         std::shared_ptr<Clock> clock);
// Forgets the named store (open handles keep it alive). True when it existed.
bool DropMemoryStore(const std::string& name);

}  // namespace silt
