// libFuzzer target: the SQL lexer/parser (scripts, standalone expressions, type strings), the
// statement splitter and the expression printer. Any input must give a value or an error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sql/parser.h"

namespace {

void PrintQuery(const silt::sql::Query* q) {
  if (!q) return;
  for (const auto& item : q->select) (void)item.expr->ToString();
  if (q->where) (void)q->where->ToString();
  for (const auto& o : q->order_by) (void)o.expr->ToString();
  PrintQuery(q->left.get());
  PrintQuery(q->right.get());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace silt::sql;
  if (size > 8192) return 0;  // long inputs only slow the search down
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto script = ParseScript(text);
  if (script.ok()) {
    for (const auto& s : *script) {
      if (s->kind == StatementKind::kQuery) {
        PrintQuery(static_cast<const QueryStatement*>(s.get())->query.get());
      }
    }
  }
  auto expr = ParseExpression(text);
  if (expr.ok()) (void)(*expr)->ToString();
  auto type = ParseDataType(text);
  if (type.ok()) (void)(*type)->ToString();
  bool complete = false;
  (void)SplitStatements(text, &complete);
  return 0;
}
