// libFuzzer target: a Parquet file from arbitrary bytes — footer (Thrift), schema, page headers,
// levels, encodings, codecs and record assembly. Any outcome but a crash, a sanitizer report or
// an unbounded allocation is fine.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "parquet/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace silt;
  using namespace silt::parquet;
  ReaderOptions opts;
  opts.max_page_bytes = 16 << 20;
  opts.max_page_values = 1 << 20;
  opts.limits.max_string_bytes = 1 << 20;
  opts.limits.max_list_elements = 100000;
  opts.verify_page_crc = false;  // let mutations reach the decoders
  auto file = std::make_shared<BufferFile>(std::string(reinterpret_cast<const char*>(data), size));
  auto pf = ParquetFile::Open(file, opts);
  if (!pf.ok()) return 0;
  // Bound the work a tiny input can ask for (row counts come from the input).
  if ((*pf)->num_rows() > (1 << 20)) return 0;
  for (int rg = 0; rg < (*pf)->num_row_groups() && rg < 8; ++rg) {
    DataChunk chunk;
    (void)(*pf)->ReadRowGroup(rg, {}, &chunk);
    (void)(*pf)->ReadRowGroup(rg, {}, &chunk, 3, 5);
    // Dictionary-encoded strings kept as dictionaries: every index must be inside its dictionary
    // (an out-of-range one is a decoder bug, not a bad input).
    EncodedChunk enc;
    if ((*pf)->ReadRowGroupEncoded(rg, {}, &enc, 2, 7).ok())
      for (size_t c = 0; c < enc.num_columns(); ++c)
        if (enc.is_dictionary(c) && !enc.dict[c]->Validate().ok()) __builtin_trap();
    for (int leaf = 0; leaf < (*pf)->schema().num_leaves() && leaf < 16; ++leaf)
      (void)(*pf)->GetStatistics(rg, leaf);
  }
  return 0;
}
