// SET [key [= value]] / SET -v / RESET [key]: the session's configuration (SessionConfig).
#include "commands/command.h"

namespace silt::commands {

Result<CommandResult> SetCommand(const sql::Statement& stmt, CommandContext& ctx) {
  if (stmt.kind == sql::StatementKind::kReset) {
    const auto& s = static_cast<const sql::ResetStatement&>(stmt);
    if (s.key.empty())
      ctx.config->ResetAll();
    else
      ctx.config->Reset(s.key);
    return CommandResult{};
  }
  const auto& s = static_cast<const sql::SetStatement&>(stmt);
  if (s.verbose) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& k : planner::KnownConfigKeys())
      rows.push_back({k.key, *ctx.config->Get(k.key), k.doc});
    return StringRows({"key", "value", "meaning"}, rows);
  }
  if (s.key.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : ctx.config->values()) rows.push_back({k, v});
    return StringRows({"key", "value"}, rows);
  }
  if (s.value) {
    SILT_RETURN_NOT_OK(ctx.config->Set(s.key, *s.value));
    return StringRows({"key", "value"}, {{s.key, *s.value}});
  }
  auto v = ctx.config->Get(s.key);
  return StringRows({"key", "value"}, {{s.key, v ? *v : "<undefined>"}});
}

}  // namespace silt::commands
