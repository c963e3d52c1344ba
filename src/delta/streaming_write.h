// Streaming writes: data files written from rows handed over a chunk at a time as a query
// produces them (INSERT … SELECT and CREATE TABLE … AS SELECT), so a write larger than the memory
// limit holds only the writer's row groups. The implementation is table_writer.cc's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/status.h"
#include "delta/table_writer.h"

namespace silt::delta {

// Hands rows to `write` a chunk at a time (a query's rows as they come, e.g.) and returns the
// first error, its own or write's.
using RowSource = std::function<Status(const std::function<Status(const DataChunk&)>& write)>;

// What WriteDataFilesFrom wrote: the add actions (not yet committed) and the rows.
struct WrittenFiles {
  std::vector<AddFile> adds;
  int64_t rows = 0;
};
// Writes the rows of `rows` through a DataFileWriter as they arrive (so only its row groups are
// held): on any failure, the source's or the writer's, the files started are deleted and the
// error returned.
Result<WrittenFiles> WriteDataFilesFrom(ObjectStore& store, const Metadata& metadata,
                                        const Schema& schema, const RowSource& rows,
                                        const DataWriteOptions& options = {});
// Where a command's rows go instead of WriteDataFilesFrom (same signature and contract): the
// distributed writes of silt/distributed.h write them on other processes.
using WriteFiles = std::function<Result<WrittenFiles>(ObjectStore&, const Metadata&, const Schema&,
                                                      const RowSource&, const DataWriteOptions&)>;

// CreateTable with the rows of `rows`, written as they arrive (CREATE TABLE AS SELECT streams the
// query's rows into the files): version 0 is committed after the last file is complete; on
// failure the files started are deleted and nothing is committed. The operation is CREATE TABLE
// AS SELECT, with or without rows. `write_files` set: the rows are written by it.
Result<CommitResult> CreateTableFrom(std::shared_ptr<ObjectStore> store, const Schema& schema,
                                     const RowSource& rows, CreateTableOptions options = {},
                                     const WriteFiles& write_files = nullptr);

}  // namespace silt::delta
