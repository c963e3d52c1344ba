// libFuzzer target: Delta commit files (newline-delimited JSON actions) and, when an action
// carries them, stats and schema strings.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "delta/actions.h"
#include "delta/schema_json.h"
#include "delta/stats_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace silt;
  using namespace silt::delta;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<Action> actions;
  if (!ParseCommit(bytes, &actions, "fuzz.json").ok()) return 0;
  Schema schema;
  for (const auto& a : actions) {
    if (const Metadata* m = a.get_if<Metadata>())
      if (m->schema_string) {
        auto s = ParseSchemaString(*m->schema_string);
        if (s.ok()) schema = *s;
      }
    (void)SerializeAction(a);
  }
  for (const auto& a : actions)
    if (const AddFile* f = a.get_if<AddFile>())
      if (f->stats) (void)ParseStats(*f->stats, schema);
  return 0;
}
