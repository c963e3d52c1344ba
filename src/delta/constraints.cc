#include "delta/constraints.h"

#include <simdjson.h>
#include <strings.h>

#include <cctype>
#include <cmath>

#include "delta/schema_json.h"

namespace silt::delta {
namespace {

// ------------------------------------------------------------------ NOT NULL

bool HasNonNullable(const TypePtr& t) {
  switch (t->id()) {
    case TypeId::kStruct:
      for (const Field& f : t->fields())
        if (!f.nullable || HasNonNullable(f.type)) return true;
      return false;
    case TypeId::kList:
      return !t->contains_null() || HasNonNullable(t->element_type());
    case TypeId::kMap:
      return !t->value_contains_null() || HasNonNullable(t->key_type()) ||
             HasNonNullable(t->value_type());
    default:
      return false;
  }
}

Status NotNullViolation(const std::string& path) {
  return Status::InvalidArgument("NOT NULL constraint violated for column: " + path + ".",
                                 kNotNullViolatedClass);
}

// `rows`: the rows of `v` whose ancestors are all non-null (only those are checked, as Spark's
// nested checks are "parent is null OR child is not null").
Status CheckNulls(const Vector& v, const TypePtr& type, bool nullable, const std::string& path,
                  const std::vector<uint32_t>& rows) {
  std::vector<uint32_t> valid;
  valid.reserve(rows.size());
  for (uint32_t r : rows) {
    if (v.IsValid(r)) {
      valid.push_back(r);
    } else if (!nullable) {
      return NotNullViolation(path);
    }
  }
  if (!HasNonNullable(type)) return Status::OK();
  switch (type->id()) {
    case TypeId::kStruct:
      for (size_t k = 0; k < type->fields().size(); ++k) {
        const Field& f = type->fields()[k];
        SILT_RETURN_NOT_OK(CheckNulls(v.child(k), f.type, f.nullable, path + "." + f.name, valid));
      }
      return Status::OK();
    case TypeId::kList:
    case TypeId::kMap: {
      std::vector<uint32_t> elems;
      const uint32_t* off = v.offsets();
      for (uint32_t r : valid)
        for (uint32_t e = off[r]; e < off[r + 1]; ++e) elems.push_back(e);
      if (type->id() == TypeId::kList)
        return CheckNulls(v.child(0), type->element_type(), type->contains_null(),
                          path + ".element", elems);
      SILT_RETURN_NOT_OK(CheckNulls(v.child(0), type->key_type(), false, path + ".key", elems));
      return CheckNulls(v.child(1), type->value_type(), type->value_contains_null(),
                        path + ".value", elems);
    }
    default:
      return Status::OK();
  }
}

// ------------------------------------------------------------------ invariant expressions

enum class Category { kNumber, kString, kBoolean, kOther };

Category CategoryOf(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
      return Category::kNumber;
    case TypeId::kString:
      return Category::kString;
    case TypeId::kBoolean:
      return Category::kBoolean;
    default:
      return Category::kOther;
  }
}

struct Expr {
  enum Kind { kColumn, kLiteral, kCompare, kIsNull, kIsNotNull, kAnd, kOr, kNot } kind = kLiteral;
  std::string op;
  std::string name;        // column: as written
  std::vector<int> index;  // column: field index per level
  Category category = Category::kOther;
  Value literal;
  std::vector<std::unique_ptr<Expr>> args;
};

struct Token {
  enum Kind {
    kIdent,
    kQuotedIdent,
    kNumber,
    kString,
    kOp,
    kDot,
    kLParen,
    kRParen,
    kEnd
  } kind = kEnd;
  std::string text;
};

// Parses the supported subset; nullopt for anything else (the validator's job then).
class InvariantParser {
 public:
  InvariantParser(std::string_view text, const Schema& schema) : text_(text), schema_(schema) {}

  std::unique_ptr<Expr> Parse() {
    if (!Tokenize()) return nullptr;
    auto e = ParseOr();
    if (!e || Peek().kind != Token::kEnd || !IsPredicate(*e)) return nullptr;
    return e;
  }

  std::vector<const Expr*> columns;  // the column references, in order (owned by the tree)

 private:
  static bool IsPredicate(const Expr& e) {
    return e.kind != Expr::kColumn && e.kind != Expr::kLiteral ? true
                                                               : e.category == Category::kBoolean;
  }

  bool Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t b = i;
        while (i < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_'))
          ++i;
        tokens_.push_back({Token::kIdent, std::string(text_.substr(b, i - b))});
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t b = i;
        while (i < text_.size() &&
               (std::isdigit(static_cast<unsigned char>(text_[i])) || text_[i] == '.'))
          ++i;
        tokens_.push_back({Token::kNumber, std::string(text_.substr(b, i - b))});
      } else if (c == '`' || c == '\'' || c == '"') {
        std::string s;
        ++i;
        bool closed = false;
        while (i < text_.size()) {
          if (text_[i] == c && i + 1 < text_.size() && text_[i + 1] == c) {
            s += c;
            i += 2;
          } else if (text_[i] == c) {
            ++i;
            closed = true;
            break;
          } else if (c != '`' && text_[i] == '\\' && i + 1 < text_.size()) {
            s += text_[i + 1];
            i += 2;
          } else {
            s += text_[i++];
          }
        }
        if (!closed) return false;
        tokens_.push_back({c == '`' ? Token::kQuotedIdent : Token::kString, std::move(s)});
      } else if (c == '.') {
        tokens_.push_back({Token::kDot, "."}), ++i;
      } else if (c == '(') {
        tokens_.push_back({Token::kLParen, "("}), ++i;
      } else if (c == ')') {
        tokens_.push_back({Token::kRParen, ")"}), ++i;
      } else {
        static const char* kOps[] = {"<=>", "==", "!=", "<>", "<=", ">=", "=", "<", ">", "-"};
        bool found = false;
        for (const char* op : kOps) {
          if (text_.substr(i).rfind(op, 0) == 0) {
            tokens_.push_back({Token::kOp, op});
            i += std::string_view(op).size();
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
    }
    return true;
  }

  const Token& Peek() const {
    static const Token kEnd;
    return pos_ < tokens_.size() ? tokens_[pos_] : kEnd;
  }
  bool Keyword(const char* kw) {
    if (Peek().kind == Token::kIdent && strcasecmp(Peek().text.c_str(), kw) == 0) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::unique_ptr<Expr> Binary(Expr::Kind kind, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b) {
    if (!a || !b || !IsPredicate(*a) || !IsPredicate(*b)) return nullptr;
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  std::unique_ptr<Expr> ParseOr() {
    auto e = ParseAnd();
    while (e && Keyword("OR")) e = Binary(Expr::kOr, std::move(e), ParseAnd());
    return e;
  }
  std::unique_ptr<Expr> ParseAnd() {
    auto e = ParseNot();
    while (e && Keyword("AND")) e = Binary(Expr::kAnd, std::move(e), ParseNot());
    return e;
  }
  std::unique_ptr<Expr> ParseNot() {
    if (Keyword("NOT")) {
      auto inner = ParseNot();
      if (!inner || !IsPredicate(*inner)) return nullptr;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::kNot;
      e->args.push_back(std::move(inner));
      return e;
    }
    return ParseCompare();
  }
  std::unique_ptr<Expr> ParseCompare() {
    auto left = ParsePrimary();
    if (!left) return nullptr;
    if (Keyword("IS")) {
      bool negated = Keyword("NOT");
      if (!Keyword("NULL")) return nullptr;
      auto e = std::make_unique<Expr>();
      e->kind = negated ? Expr::kIsNotNull : Expr::kIsNull;
      e->args.push_back(std::move(left));
      return e;
    }
    if (Peek().kind != Token::kOp || Peek().text == "-" || Peek().text == "<=>") return left;
    std::string op = tokens_[pos_++].text;
    auto right = ParsePrimary();
    if (!right || left->category != right->category || left->category == Category::kOther)
      return nullptr;
    if (left->category == Category::kBoolean && op != "=" && op != "==" && op != "!=" && op != "<>")
      return nullptr;
    auto e = std::make_unique<Expr>();
    e->kind = Expr::kCompare;
    e->op = op;
    e->args.push_back(std::move(left));
    e->args.push_back(std::move(right));
    return e;
  }
  std::unique_ptr<Expr> ParsePrimary() {
    const Token& t = Peek();
    auto e = std::make_unique<Expr>();
    if (t.kind == Token::kLParen) {
      ++pos_;
      auto inner = ParseOr();
      if (!inner || Peek().kind != Token::kRParen) return nullptr;
      ++pos_;
      return inner;
    }
    if (t.kind == Token::kOp && t.text == "-") {
      ++pos_;
      if (Peek().kind != Token::kNumber) return nullptr;
      return Number("-" + tokens_[pos_++].text);
    }
    if (t.kind == Token::kNumber) return Number(tokens_[pos_++].text);
    if (t.kind == Token::kString) {
      e->literal = Value::String(tokens_[pos_++].text);
      e->category = Category::kString;
      return e;
    }
    if (t.kind == Token::kIdent &&
        (strcasecmp(t.text.c_str(), "true") == 0 || strcasecmp(t.text.c_str(), "false") == 0)) {
      e->literal = Value::Boolean(strcasecmp(tokens_[pos_++].text.c_str(), "true") == 0);
      e->category = Category::kBoolean;
      return e;
    }
    if (t.kind == Token::kIdent || t.kind == Token::kQuotedIdent) {
      static const char* kReserved[] = {"AND", "OR", "NOT", "IS", "NULL"};
      if (t.kind == Token::kIdent)
        for (const char* r : kReserved)
          if (strcasecmp(t.text.c_str(), r) == 0) return nullptr;
      // A column path, resolved case-insensitively as Spark's resolver does.
      e->kind = Expr::kColumn;
      const std::vector<Field>* fields = &schema_;
      TypePtr type;
      while (true) {
        const Token& part = Peek();
        if (part.kind != Token::kIdent && part.kind != Token::kQuotedIdent) return nullptr;
        if (!fields) return nullptr;
        int found = -1;
        for (size_t k = 0; k < fields->size(); ++k)
          if (strcasecmp((*fields)[k].name.c_str(), part.text.c_str()) == 0)
            found = static_cast<int>(k);
        if (found < 0) return nullptr;
        e->index.push_back(found);
        e->name += (e->name.empty() ? "" : ".") + part.text;
        type = (*fields)[static_cast<size_t>(found)].type;
        fields = type->id() == TypeId::kStruct ? &type->fields() : nullptr;
        ++pos_;
        if (Peek().kind != Token::kDot) break;
        ++pos_;
      }
      e->category = CategoryOf(type->id());
      if (e->category == Category::kOther) return nullptr;
      columns.push_back(e.get());
      return e;
    }
    return nullptr;
  }
  std::unique_ptr<Expr> Number(const std::string& text) {
    auto e = std::make_unique<Expr>();
    e->category = Category::kNumber;
    char* end = nullptr;
    if (text.find('.') == std::string::npos) {
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (*end) return nullptr;
      e->literal = Value::Int64(v);
    } else {
      double v = std::strtod(text.c_str(), &end);
      if (*end) return nullptr;
      e->literal = Value::Double(v);
    }
    return e;
  }

  std::string_view text_;
  const Schema& schema_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

enum class Tri { kFalse, kTrue, kNull };

long double AsNumber(const Value& v) {
  switch (v.type()->id()) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return v.floating();
    case TypeId::kDecimal:
      return static_cast<long double>(v.decimal()) / std::pow(10.0L, v.type()->scale());
    default:
      return static_cast<long double>(v.integer());
  }
}

Value ColumnValue(const Expr& e, const DataChunk& chunk, size_t row) {
  Value v = chunk.columns[static_cast<size_t>(e.index[0])].GetValue(row);
  for (size_t k = 1; k < e.index.size() && !v.is_null(); ++k)
    v = v.children()[static_cast<size_t>(e.index[k])];
  return v;
}

Value Eval(const Expr& e, const DataChunk& chunk, size_t row) {
  return e.kind == Expr::kColumn ? ColumnValue(e, chunk, row) : e.literal;
}

Tri Test(const Expr& e, const DataChunk& chunk, size_t row) {
  switch (e.kind) {
    case Expr::kColumn:
    case Expr::kLiteral: {
      Value v = Eval(e, chunk, row);
      return v.is_null() ? Tri::kNull : (v.boolean() ? Tri::kTrue : Tri::kFalse);
    }
    case Expr::kIsNull:
    case Expr::kIsNotNull: {
      bool null = Eval(*e.args[0], chunk, row).is_null();
      return null == (e.kind == Expr::kIsNull) ? Tri::kTrue : Tri::kFalse;
    }
    case Expr::kNot: {
      Tri t = Test(*e.args[0], chunk, row);
      return t == Tri::kNull ? t : (t == Tri::kTrue ? Tri::kFalse : Tri::kTrue);
    }
    case Expr::kAnd: {
      Tri a = Test(*e.args[0], chunk, row), b = Test(*e.args[1], chunk, row);
      if (a == Tri::kFalse || b == Tri::kFalse) return Tri::kFalse;
      return a == Tri::kNull || b == Tri::kNull ? Tri::kNull : Tri::kTrue;
    }
    case Expr::kOr: {
      Tri a = Test(*e.args[0], chunk, row), b = Test(*e.args[1], chunk, row);
      if (a == Tri::kTrue || b == Tri::kTrue) return Tri::kTrue;
      return a == Tri::kNull || b == Tri::kNull ? Tri::kNull : Tri::kFalse;
    }
    case Expr::kCompare: {
      Value a = Eval(*e.args[0], chunk, row), b = Eval(*e.args[1], chunk, row);
      if (a.is_null() || b.is_null()) return Tri::kNull;
      int c;
      if (e.args[0]->category == Category::kNumber) {
        long double x = AsNumber(a), y = AsNumber(b);
        c = x < y ? -1 : (x > y ? 1 : 0);
      } else if (e.args[0]->category == Category::kString) {
        int r = a.str().compare(b.str());
        c = r < 0 ? -1 : (r > 0 ? 1 : 0);
      } else {
        c = a.boolean() == b.boolean() ? 0 : 1;
      }
      bool r = false;
      if (e.op == "=" || e.op == "==")
        r = c == 0;
      else if (e.op == "!=" || e.op == "<>")
        r = c != 0;
      else if (e.op == "<")
        r = c < 0;
      else if (e.op == "<=")
        r = c <= 0;
      else if (e.op == ">")
        r = c > 0;
      else if (e.op == ">=")
        r = c >= 0;
      return r ? Tri::kTrue : Tri::kFalse;
    }
  }
  return Tri::kNull;
}

void CollectInvariants(const std::vector<Field>& fields, const std::string& prefix,
                       std::vector<std::pair<std::string, std::string>>* out) {
  for (const Field& f : fields) {
    std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
    if (f.metadata_json.find("delta.invariants") != std::string::npos)
      out->emplace_back(path, MetadataString(f, "delta.invariants").value_or(""));
    // As Spark's filterRecursively(checkComplexTypes = false): structs only.
    if (f.type->id() == TypeId::kStruct) CollectInvariants(f.type->fields(), path, out);
  }
}

}  // namespace

struct TableConstraints::Invariant {
  std::string sql;
  std::unique_ptr<Expr> expr;
  std::vector<const Expr*> columns;
};

TableConstraints::TableConstraints() = default;
TableConstraints::~TableConstraints() = default;
TableConstraints::TableConstraints(TableConstraints&&) noexcept = default;
TableConstraints& TableConstraints::operator=(TableConstraints&&) noexcept = default;

bool TableConstraints::empty() const {
  return !has_not_null_ && invariants_.empty() && needs_validator_.empty();
}

Result<TableConstraints> TableConstraints::Make(const Schema& schema, const Metadata& metadata) {
  TableConstraints c;
  c.schema_ = schema;
  for (const Field& f : schema) c.has_not_null_ |= !f.nullable || HasNonNullable(f.type);
  std::vector<std::pair<std::string, std::string>> raw;
  CollectInvariants(schema, "", &raw);
  for (const auto& [column, json] : raw) {
    // {"expression":{"expression":"<sql>"}} (Invariants.PersistedRule).
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string_view sql;
    if (parser.parse(json).get(doc) || doc["expression"]["expression"].get_string().get(sql))
      return Status::InvalidArgument("unrecognized invariant on column " + column + ": " + json,
                                     kUnrecognizedInvariantClass);
    auto inv = std::make_unique<Invariant>();
    inv->sql = std::string(sql);
    InvariantParser p(inv->sql, schema);
    inv->expr = p.Parse();
    if (!inv->expr) {
      c.needs_validator_.push_back({"EXPRESSION(" + inv->sql + ")", inv->sql});
      continue;
    }
    inv->columns = std::move(p.columns);
    c.invariants_.push_back(std::move(inv));
  }
  // Generated columns (PROTOCOL.md "Generated Columns"): every written row must satisfy
  // `(<value> <=> <generation expression>) IS TRUE`; Spark enforces it as the CHECK constraint
  // "Generated Column".
  for (const Field& f : schema) {
    if (f.metadata_json.find("delta.generationExpression") == std::string::npos) continue;
    std::optional<std::string> expr = MetadataString(f, "delta.generationExpression");
    if (!expr) continue;
    std::string quoted = "`";
    for (char ch : f.name) quoted += ch == '`' ? std::string("``") : std::string(1, ch);
    c.needs_validator_.push_back({"Generated Column", "(" + quoted + "` <=> (" + *expr + "))"});
  }
  for (const auto& [k, v] : metadata.configuration.entries())
    if (k.rfind("delta.constraints.", 0) == 0)
      c.needs_validator_.push_back({k.substr(std::string_view("delta.constraints.").size()), v});
  return c;
}

Status TableConstraints::Check(const DataChunk& chunk, const RowValidator& validator) const {
  if (has_not_null_) {
    std::vector<uint32_t> all(chunk.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint32_t>(i);
    for (size_t i = 0; i < schema_.size() && i < chunk.columns.size(); ++i) {
      const Field& f = schema_[i];
      if (f.nullable && !HasNonNullable(f.type)) continue;
      SILT_RETURN_NOT_OK(CheckNulls(chunk.columns[i], f.type, f.nullable, f.name, all));
    }
  }
  for (const auto& inv : invariants_) {
    for (size_t r = 0; r < chunk.size(); ++r) {
      if (Test(*inv->expr, chunk, r) == Tri::kTrue) continue;
      // Spark's DeltaInvariantViolationException for a Check: name, expression, row values.
      std::string msg = "CHECK constraint EXPRESSION(" + inv->sql + ") " + inv->sql +
                        " violated by row with values:";
      for (const Expr* col : inv->columns) {
        Value v = Eval(*col, chunk, r);
        msg += "\n - " + col->name + " : " + (v.is_null() ? std::string("null") : v.ToString());
      }
      return Status::InvalidArgument(msg, kConstraintViolatedClass);
    }
  }
  if (!needs_validator_.empty()) {
    if (!validator) {
      std::string list;
      for (const auto& n : needs_validator_)
        list += (list.empty() ? "" : ", ") + n.name + " (" + n.sql + ")";
      return Status::Unsupported(
          "the table has constraints that need a SQL row validator, and the write has none: " +
              list,
          kValidatorRequiredClass);
    }
    SILT_RETURN_NOT_OK(validator(chunk));
  }
  return Status::OK();
}

}  // namespace silt::delta
