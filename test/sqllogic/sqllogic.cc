#include "sqllogic/sqllogic.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/render.h"
#include "cli/shell_input.h"
#include "delta/history.h"
#include "io/memory_object_store.h"
#include "io/object_store_factory.h"
#include "support/wall_clock.h"

namespace silt::sqllogic {

namespace {

struct Line {
  int number;
  std::string text;
};

std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < s.size()) {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
    size_t b = p;
    while (p < s.size() && !std::isspace(static_cast<unsigned char>(s[p]))) ++p;
    if (p > b) out.emplace_back(s.substr(b, p - b));
  }
  return out;
}

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  size_t p = 0;
  while ((p = s->find(from, p)) != std::string::npos) {
    s->replace(p, from.size(), to);
    p += to.size();
  }
}

bool IsBlankLine(const std::string& s) { return cli::IsBlank(s); }

class Parser {
 public:
  Parser(const std::string& path, const Variables& vars, TestFile* file)
      : path_(path), vars_(vars), file_(file) {}

  Status Parse(const std::vector<Line>& lines) {
    size_t i = 0;
    while (i < lines.size()) {
      SILT_RETURN_NOT_OK(ParseOne(lines, &i));
      if (!file_->skip_reason.empty()) return Status::OK();
    }
    if (skip_next_) return Error(lines.back().number, "skipif/onlyif without a record after it");
    return Status::OK();
  }

 private:
  Status Error(int line, const std::string& msg) const {
    return Status::InvalidArgument(path_ + ":" + std::to_string(line) + ": " + msg,
                                   "SQLLOGIC_MALFORMED_TEST");
  }

  // Lines from *i up to a blank line or "----" (not consumed), joined.
  static std::string Block(const std::vector<Line>& lines, size_t* i) {
    std::string out;
    while (*i < lines.size() && !IsBlankLine(lines[*i].text) && lines[*i].text != "----") {
      if (!out.empty()) out += '\n';
      out += lines[*i].text;
      ++*i;
    }
    return out;
  }
  static std::vector<std::string> Lines(const std::vector<Line>& lines, size_t* i) {
    std::vector<std::string> out;
    while (*i < lines.size() && !IsBlankLine(lines[*i].text)) out.push_back(lines[(*i)++].text);
    return out;
  }

  void Add(Record r) {
    r.skip = skip_mode_ || skip_next_;
    skip_next_ = false;
    file_->records.push_back(std::move(r));
  }

  Status ParseOne(const std::vector<Line>& lines, size_t* i) {
    const Line& header = lines[*i];
    std::string trimmed = header.text;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
      trimmed.erase(trimmed.begin());
    }
    if (trimmed.empty() || trimmed[0] == '#') {
      ++*i;
      return Status::OK();
    }
    std::vector<std::string> w = Words(trimmed);
    const std::string& kw = w[0];
    ++*i;
    if (kw == "statement") {
      Record r;
      r.line = header.number;
      if (w.size() >= 2 && w[1] == "ok" && w.size() == 2) {
        r.kind = Record::kStatementOk;
      } else if (w.size() >= 2 && w[1] == "error" && w.size() <= 3) {
        r.kind = Record::kStatementError;
        if (w.size() == 3) r.error_class = w[2];
      } else {
        return Error(header.number, "expected `statement ok` or `statement error [CLASS]`");
      }
      r.sql = Block(lines, i);
      if (r.sql.empty()) return Error(header.number, "statement without SQL");
      if (*i < lines.size() && lines[*i].text == "----") {
        if (r.kind == Record::kStatementOk) {
          return Error(lines[*i].number, "`statement ok` takes no ---- section");
        }
        ++*i;
        std::vector<std::string> msg = Lines(lines, i);
        for (size_t k = 0; k < msg.size(); ++k) {
          if (k) r.error_substring += '\n';
          r.error_substring += msg[k];
        }
      }
      Add(std::move(r));
      return Status::OK();
    }
    if (kw == "query") {
      Record r;
      r.kind = Record::kQuery;
      r.line = header.number;
      if (w.size() < 2) {
        return Error(header.number, "expected `query TYPES [nosort|rowsort|valuesort] [label]`");
      }
      r.types = w[1];
      for (char c : r.types) {
        if (!std::isalpha(static_cast<unsigned char>(c))) {
          return Error(header.number,
                       "column types must be letters (I, T, R, B, D), got '" + r.types + "'");
        }
      }
      size_t next = 2;
      if (w.size() > 2) {
        if (w[2] == "nosort") {
          next = 3;
        } else if (w[2] == "rowsort") {
          r.sort = SortMode::kRowSort;
          next = 3;
        } else if (w[2] == "valuesort") {
          r.sort = SortMode::kValueSort;
          next = 3;
        }
      }
      if (next < w.size()) r.label = w[next++];
      if (next < w.size()) return Error(header.number, "unexpected '" + w[next] + "'");
      r.sql = Block(lines, i);
      if (r.sql.empty()) return Error(header.number, "query without SQL");
      if (*i < lines.size() && lines[*i].text == "----") {
        ++*i;
        r.has_expected = true;
        r.expected = Lines(lines, i);
      }
      for (const std::string& e : r.expected) {
        if (e.find("values hashing to") != std::string::npos) {
          return Error(header.number, "hashed results are not supported; list the rows");
        }
      }
      Add(std::move(r));
      return Status::OK();
    }
    if (kw == "halt") {
      Record r;
      r.kind = Record::kHalt;
      r.line = header.number;
      Add(std::move(r));
      return Status::OK();
    }
    if (kw == "clock" || kw == "file") return ParseDirective(lines, i, header, trimmed, w);
    if (kw == "hash-threshold") return Status::OK();
    if (kw == "mode") {
      if (w.size() == 2 && w[1] == "skip") {
        skip_mode_ = true;
      } else if (w.size() == 2 && w[1] == "unskip") {
        skip_mode_ = false;
      }
      return Status::OK();  // other DuckDB modes (output_result, ...) do not apply
    }
    if (kw == "skipif" || kw == "onlyif") {
      if (w.size() != 2) return Error(header.number, kw + " needs one engine name");
      bool is_silt = w[1] == "silt";
      if ((kw == "skipif") == is_silt) skip_next_ = true;
      return Status::OK();
    }
    if (kw == "require") {
      if (w.size() >= 2 && w[1] == "local-warehouse") {
        // `require local-warehouse REASON…`: the file needs the warehouse on the local file
        // system (it inspects or edits the warehouse's files); skipped on the in-memory run.
        if (w.size() < 3) return Error(header.number, "require local-warehouse needs a reason");
        if (vars_.memory_warehouse) {
          std::string reason;
          for (size_t i = 2; i < w.size(); ++i) reason += (i > 2 ? " " : "") + w[i];
          file_->skip_reason = "require local-warehouse (in-memory store run): " + reason;
        }
        return Status::OK();
      }
      if (w.size() == 2 && w[1] == "shared") {
        if (vars_.shared_dir.empty()) {
          file_->skip_reason = "require shared: the shared conformance folder is absent";
        }
        return Status::OK();
      }
      file_->skip_reason =
          "require " + (w.size() > 1 ? w[1] : std::string()) + ": not available in silt";
      return Status::OK();
    }
    if (kw == "load") {
      file_->skip_reason = "load: database files are not supported";
      return Status::OK();
    }
    if (kw == "loop" || kw == "foreach" || kw == "concurrentloop" || kw == "concurrentforeach") {
      return ParseLoop(lines, i, header, w);
    }
    if (kw == "endloop") return Error(header.number, "endloop without loop");
    return Error(header.number, "unknown directive '" + kw + "'");
  }

  Status ParseDirective(const std::vector<Line>& lines, size_t* i, const Line& header,
                        const std::string& text, const std::vector<std::string>& w) {
    Record r;
    r.kind = Record::kDirective;
    r.line = header.number;
    r.sql = text;
    Directive& d = r.directive;
    auto fail = [&](const std::string& msg) { return Error(header.number, msg); };
    const std::string sub = w.size() > 1 ? w[1] : "";
    // [mtime <ISO>|mtime clock] at w[from], the end of the line.
    auto mtime = [&](size_t from) -> Status {
      if (from == w.size()) return Status::OK();
      if (from + 2 != w.size() || w[from] != "mtime") {
        return fail("expected `mtime <ISO-8601 UTC>` or `mtime clock` after the path");
      }
      if (w[from + 1] == "clock") return Status::OK();
      auto t = ParseUtcTimestamp(w[from + 1]);
      if (!t.ok()) return fail(std::string(t.status().message()));
      d.mtime_ms = *t;
      return Status::OK();
    };
    if (w[0] == "clock") {
      file_->uses_clock = true;
      if (sub == "set" && w.size() == 3) {
        d.op = Directive::kClockSet;
        auto t = ParseUtcTimestamp(w[2]);
        if (!t.ok()) return fail(std::string(t.status().message()));
        d.millis = *t;
      } else if (sub == "advance" && w.size() == 4) {
        d.op = Directive::kClockAdvance;
        auto ms = ParseDuration(w[2], w[3]);
        if (!ms.ok()) return fail(std::string(ms.status().message()));
        d.millis = *ms;
      } else {
        return fail("expected `clock set <ISO-8601 UTC>` or `clock advance <N> <unit>`");
      }
    } else if (sub == "write" && w.size() >= 3) {
      d.op = Directive::kFileWrite;
      d.path = w[2];
      SILT_RETURN_NOT_OK(mtime(3));
      d.content = Block(lines, i);
    } else if (sub == "touch" && w.size() >= 3) {
      d.op = Directive::kFileTouch;
      d.path = w[2];
      SILT_RETURN_NOT_OK(mtime(3));
    } else if ((sub == "mkdir" || sub == "remove" || sub == "exists" || sub == "missing") &&
               w.size() == 3) {
      d.op = sub == "mkdir"    ? Directive::kFileMkdir
             : sub == "remove" ? Directive::kFileRemove
             : sub == "exists" ? Directive::kFileExists
                               : Directive::kFileMissing;
      d.path = w[2];
    } else if (sub == "count" && w.size() == 5) {
      d.op = Directive::kFileCount;
      d.path = w[2];
      d.glob = w[3];
      char* end = nullptr;
      long long n = std::strtoll(w[4].c_str(), &end, 10);
      if (w[4].empty() || *end || n < 0)
        return fail("file count: N must be a count, got '" + w[4] + "'");
      d.count = n;
    } else {
      return fail(
          "expected `file write|touch <path> [mtime <ISO>|mtime clock]`, `file "
          "mkdir|remove|exists|missing "
          "<path>` or `file count <dir> <glob> <N>`");
    }
    if (*i < lines.size() && lines[*i].text == "----") {
      return Error(lines[*i].number, "`" + w[0] + "` takes no ---- section");
    }
    Add(std::move(r));
    return Status::OK();
  }

  Status ParseLoop(const std::vector<Line>& lines, size_t* i, const Line& header,
                   const std::vector<std::string>& w) {
    std::vector<std::string> values;
    bool numeric = w[0] == "loop" || w[0] == "concurrentloop";
    if (numeric) {
      if (w.size() != 4) return Error(header.number, "expected `loop VAR START END`");
      char* e1 = nullptr;
      char* e2 = nullptr;
      long a = std::strtol(w[2].c_str(), &e1, 10), b = std::strtol(w[3].c_str(), &e2, 10);
      if (*e1 || *e2 || b - a > 100000) return Error(header.number, "bad loop bounds");
      for (long k = a; k < b; ++k) values.push_back(std::to_string(k));
    } else {
      if (w.size() < 3) return Error(header.number, "expected `foreach VAR VALUE...`");
      values.assign(w.begin() + 2, w.end());
    }
    // The body: up to the matching endloop.
    size_t begin = *i;
    int depth = 1;
    while (*i < lines.size()) {
      std::vector<std::string> lw = Words(lines[*i].text);
      if (!lw.empty() && (lw[0] == "loop" || lw[0] == "foreach" || lw[0] == "concurrentloop" ||
                          lw[0] == "concurrentforeach")) {
        ++depth;
      } else if (!lw.empty() && lw[0] == "endloop" && --depth == 0) {
        break;
      }
      ++*i;
    }
    if (depth != 0) return Error(header.number, "loop without endloop");
    size_t end = (*i)++;
    std::string var = "${" + w[1] + "}";
    for (const std::string& v : values) {
      std::vector<Line> body(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                             lines.begin() + static_cast<std::ptrdiff_t>(end));
      for (Line& l : body) ReplaceAll(&l.text, var, v);
      size_t j = 0;
      while (j < body.size()) {
        SILT_RETURN_NOT_OK(ParseOne(body, &j));
        if (!file_->skip_reason.empty()) return Status::OK();
      }
    }
    return Status::OK();
  }

  const std::string& path_;
  const Variables& vars_;
  TestFile* file_;
  bool skip_mode_ = false;
  bool skip_next_ = false;
};

std::string JoinRow(const std::vector<std::string>& row) {
  std::string s;
  for (size_t c = 0; c < row.size(); ++c) {
    if (c) s += '\t';
    s += row[c];
  }
  return s;
}

std::string Listing(const TextRows& rows) {
  std::string s;
  size_t n = std::min<size_t>(rows.size(), 60);
  for (size_t r = 0; r < n; ++r) s += "    " + JoinRow(rows[r]) + "\n";
  if (n < rows.size()) s += "    … " + std::to_string(rows.size() - n) + " more\n";
  return s;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> out;
  size_t b = 0;
  while (true) {
    size_t t = line.find('\t', b);
    out.push_back(line.substr(b, t == std::string::npos ? std::string::npos : t - b));
    if (t == std::string::npos) break;
    b = t + 1;
  }
  return out;
}

std::string Indent(const std::string& text) {
  std::string s = "    ";
  for (char c : text) {
    s += c;
    if (c == '\n') s += "    ";
  }
  return s;
}

}  // namespace

namespace {

std::string ResolvePath(const std::string& path, const Environment& env) {
  if (!path.empty() && path[0] == '/') return path;
  if (path.starts_with("memory://") || path.starts_with("az://") || path.starts_with("s3://")) {
    return path;
  }
  return env.test_dir + "/" + path;
}

int64_t MtimeOf(const Directive& d, const Environment& env) {
  if (d.mtime_ms) return *d.mtime_ms;
  return env.clock ? env.clock->NowMillis() : SystemClock().NowMillis();
}

std::optional<std::string> SetMtime(const std::string& path, int64_t ms) {
  struct timespec times[2];
  int64_t sec = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(sec);
  times[0].tv_nsec = times[1].tv_nsec = static_cast<long>((ms - sec * 1000) * 1000000);
  if (utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
    return "cannot set the mtime of " + path;
  }
  return std::nullopt;
}

}  // namespace

Result<int64_t> ParseUtcTimestamp(std::string_view text) {
  // The kernel's TIMESTAMP AS OF parser: the same forms, UTC without a zone.
  Result<int64_t> ms = delta::ParseTimestampLiteralMillis(text);
  if (ms.ok()) return ms;
  return Status::InvalidArgument("bad UTC timestamp '" + std::string(text) +
                                 "' (expected YYYY-MM-DD[THH:MM[:SS[.fff]]][Z])");
}

Result<int64_t> ParseDuration(std::string_view number, std::string_view unit) {
  std::string n(number);
  char* end = nullptr;
  long long v = std::strtoll(n.c_str(), &end, 10);
  if (n.empty() || *end) {
    return Status::InvalidArgument("bad duration '" + n + "' (expected an integer)");
  }
  std::string u(unit);
  int64_t scale = 0;
  if (u == "day" || u == "days") {
    scale = 86400000;
  } else if (u == "hour" || u == "hours") {
    scale = 3600000;
  } else if (u == "minute" || u == "minutes") {
    scale = 60000;
  } else if (u == "second" || u == "seconds") {
    scale = 1000;
  } else if (u == "ms") {
    scale = 1;
  } else {
    return Status::InvalidArgument("bad duration unit '" + u +
                                   "' (expected days, hours, minutes, seconds or ms)");
  }
  return static_cast<int64_t>(v) * scale;
}

namespace {

// `file` directives on a memory://<name>/<key> path (the warehouse of the in-memory run): the
// same checks and actions through the named in-memory store. Object stores have no empty
// directories: mkdir is a no-op and a directory exists while an object lies below it.
// Cloud locations (the warehouse of the Azure run, az://<container>/<key>) go through the
// container's store; their modification times are the server's, so a directive that sets one
// fails there.
std::optional<std::string> RunMemoryDirective(const Directive& d, const Environment& env,
                                              const std::string& path) {
  std::string rest = path.substr(path.find("://") + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t slash = rest.find('/');
  if (slash == std::string::npos) return "no object key in " + path;
  std::shared_ptr<ObjectStore> holder;
  InMemoryObjectStore* memory = nullptr;
  if (path.starts_with("memory://")) {
    // The Database created the store (with its clock); the fallback only runs before it exists.
    auto store_or = MemoryStore(rest.substr(0, slash), WallClock());
    if (!store_or.ok()) return store_or.status().ToString();
    memory = store_or->get();
    holder = *store_or;
  } else {
    auto store_or =
        OpenObjectStore(path.substr(0, path.find("://") + 3) + rest.substr(0, slash), WallClock());
    if (!store_or.ok()) return store_or.status().ToString();
    holder = *store_or;
  }
  ObjectStore& store = *holder;
  auto set_mtime = [&](const std::string& k, int64_t ms) -> Status {
    if (memory != nullptr) return memory->SetModificationTime(k, ms);
    if (!d.mtime_ms && !env.clock) return Status::OK();  // "now": the server's time
    return Status::NotImplemented("cannot set modification times on " + store.root());
  };
  std::string key = rest.substr(slash + 1);
  auto is_dir = [&](const std::string& k) {
    Result<bool> r = store.DirExists(k);
    return r.ok() && *r;
  };
  switch (d.op) {
    case Directive::kClockSet:
    case Directive::kClockAdvance:
      return std::nullopt;
    case Directive::kFileWrite: {
      Status st = store.Put(key, d.content);
      if (st.ok()) st = set_mtime(key, MtimeOf(d, env));
      if (!st.ok()) return "cannot write " + path + ": " + st.ToString();
      return std::nullopt;
    }
    case Directive::kFileTouch: {
      size_t cut = key.rfind('/');
      std::string dir = cut == std::string::npos ? "" : key.substr(0, cut + 1);
      std::string pattern = key.substr(dir.size());
      auto listed = store.ListFrom(dir);
      if (!listed.ok()) return listed.status().ToString();
      int n = 0;
      for (const ObjectMeta& m : *listed) {
        if (fnmatch(pattern.c_str(), m.key.substr(dir.size()).c_str(), 0) != 0) continue;
        Status st = set_mtime(m.key, MtimeOf(d, env));
        if (!st.ok()) return st.ToString();
        ++n;
      }
      if (n == 0) return "no file matches " + path;
      return std::nullopt;
    }
    case Directive::kFileMkdir:
      return std::nullopt;
    case Directive::kFileRemove:
      if (!store.Head(key).ok()) return "cannot remove " + path + ": it does not exist";
      if (Status st = store.Delete(key); !st.ok())
        return "cannot remove " + path + ": " + st.ToString();
      return std::nullopt;
    case Directive::kFileExists:
      if (store.Head(key).ok() || is_dir(key)) return std::nullopt;
      return path + " does not exist";
    case Directive::kFileMissing:
      if (!store.Head(key).ok() && !is_dir(key)) return std::nullopt;
      return path + " exists";
    case Directive::kFileCount: {
      if (!is_dir(key)) return path + " is not a directory";
      int64_t n = 0;
      std::string names;
      Status st = store.ListRecursive(key, [&](const ObjectMeta& m) {
        if (m.is_dir) return Status::OK();
        std::string rel = m.key.substr(key.size() + 1);
        if (fnmatch(d.glob.c_str(), rel.c_str(), FNM_PATHNAME) == 0) {
          ++n;
          names += "\n    " + rel;
        }
        return Status::OK();
      });
      if (!st.ok()) return st.ToString();
      if (n == d.count) return std::nullopt;
      return "expected " + std::to_string(d.count) + " file(s) matching " + d.glob + " under " +
             path + ", found " + std::to_string(n) + names;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RunDirective(const Directive& d, const Environment& env) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string path = ResolvePath(d.path, env);
  if ((path.starts_with("memory://") || path.starts_with("az://") || path.starts_with("s3://")) &&
      d.op != Directive::kClockSet && d.op != Directive::kClockAdvance) {
    return RunMemoryDirective(d, env, path);
  }
  switch (d.op) {
    case Directive::kClockSet:
    case Directive::kClockAdvance:
      if (!env.clock) return "no manual clock (the runner gives one to files with `clock`)";
      if (d.op == Directive::kClockSet) {
        env.clock->SetMillis(d.millis);
      } else {
        env.clock->AdvanceMillis(d.millis);
      }
      return std::nullopt;
    case Directive::kFileWrite: {
      fs::create_directories(fs::path(path).parent_path(), ec);
      {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << d.content;
        if (!out) return "cannot write " + path;
      }
      return SetMtime(path, MtimeOf(d, env));
    }
    case Directive::kFileTouch: {
      fs::path p(path);
      std::string pattern = p.filename().string();
      int n = 0;
      for (auto it = fs::directory_iterator(p.parent_path(), ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (fnmatch(pattern.c_str(), it->path().filename().c_str(), 0) != 0) continue;
        if (auto err = SetMtime(it->path().string(), MtimeOf(d, env))) return err;
        ++n;
      }
      if (n == 0) return "no file matches " + path;
      return std::nullopt;
    }
    case Directive::kFileMkdir:
      fs::create_directories(path, ec);
      if (ec) return "cannot create " + path + ": " + ec.message();
      return std::nullopt;
    case Directive::kFileRemove:
      if (!fs::remove(path, ec)) {
        return "cannot remove " + path + (ec ? ": " + ec.message() : ": it does not exist");
      }
      return std::nullopt;
    case Directive::kFileExists:
      if (fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
      return path + " does not exist";
    case Directive::kFileMissing:
      if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
      return path + " exists";
    case Directive::kFileCount: {
      int64_t n = 0;
      std::string names;
      if (!fs::is_directory(path, ec)) return path + " is not a directory";
      for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        std::string rel = fs::relative(it->path(), path, ec).string();
        if (fnmatch(d.glob.c_str(), rel.c_str(), FNM_PATHNAME) != 0) continue;
        ++n;
        names += "\n    " + rel;
      }
      if (n == d.count) return std::nullopt;
      return "expected " + std::to_string(d.count) + " file(s) matching " + d.glob + " under " +
             path + ", found " + std::to_string(n) + names;
    }
  }
  return std::nullopt;
}

Result<TestFile> ParseTestFile(std::string_view text, const std::string& path,
                               const Variables& vars) {
  TestFile file;
  file.path = path;
  std::string body(text);
  if (body.find("${SHARED}") != std::string::npos && vars.shared_dir.empty()) {
    file.skip_reason = "uses ${SHARED} but the shared conformance folder is absent";
    return file;
  }
  ReplaceAll(&body, "__TEST_DIR__", vars.test_dir);
  // The warehouse as a URI, as store roots print it: file:///… locally, memory://… otherwise.
  ReplaceAll(&body, "__WAREHOUSE_URI__",
             vars.memory_warehouse ? vars.warehouse : "file://" + vars.warehouse);
  ReplaceAll(&body, "__WAREHOUSE__", vars.warehouse);
  ReplaceAll(&body, "${SHARED}", vars.shared_dir);
  std::vector<Line> lines;
  size_t b = 0;
  int number = 1;
  while (b <= body.size()) {
    size_t e = body.find('\n', b);
    std::string l = body.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back({number++, std::move(l)});
    if (e == std::string::npos) break;
    b = e + 1;
  }
  Parser parser(path, vars, &file);
  SILT_RETURN_NOT_OK(parser.Parse(lines));
  return file;
}

TextRows ResultToText(const Schema& schema, const std::vector<DataChunk>& chunks,
                      const std::string& time_zone) {
  std::shared_ptr<const TimeZone> zone = cli::RenderZone(time_zone);
  TextRows rows;
  for (const DataChunk& chunk : chunks) {
    for (size_t r = 0; r < chunk.size(); ++r) {
      std::vector<std::string> row(schema.size());
      for (size_t c = 0; c < schema.size(); ++c) {
        row[c] = cli::FormatCell(chunk.columns[c], r, cli::CellStyle::kHive, zone.get());
        if (row[c].empty()) row[c] = "(empty)";
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

bool ErrorClassMatches(std::string_view actual, std::string_view expected) {
  if (actual == expected) return true;
  // Spark's "CLASS.SUBCLASS": the main class alone matches any of its subclasses.
  return actual.size() > expected.size() && actual.substr(0, expected.size()) == expected &&
         actual[expected.size()] == '.';
}

bool RealEquals(std::string_view expected, std::string_view actual) {
  if (expected == actual) return true;
  std::string e(expected), a(actual);
  char* ee = nullptr;
  char* ae = nullptr;
  double x = std::strtod(e.c_str(), &ee), y = std::strtod(a.c_str(), &ae);
  if (e.empty() || a.empty() || *ee || *ae) return false;
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  double diff = std::fabs(x - y);
  return diff <= 1e-12 || diff <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

TextRows SortRows(TextRows rows, SortMode mode) {
  if (mode == SortMode::kRowSort) {
    std::sort(rows.begin(), rows.end());
  } else if (mode == SortMode::kValueSort) {
    std::vector<std::string> values;
    for (auto& r : rows) {
      for (auto& v : r) values.push_back(std::move(v));
    }
    std::sort(values.begin(), values.end());
    rows.clear();
    for (auto& v : values) rows.push_back({std::move(v)});
  }
  return rows;
}

std::optional<std::string> CompareQuery(const Record& record, size_t num_columns,
                                        const TextRows& actual_rows) {
  if (record.types.size() != num_columns) {
    return "the header declares " + std::to_string(record.types.size()) + " column(s) ('" +
           record.types + "'), the query returned " + std::to_string(num_columns) +
           "\n  actual:\n" + Listing(actual_rows);
  }
  // Expected rows: row-wise (TAB-separated) or value-wise (one value per line).
  TextRows expected;
  bool row_wise = true;
  for (const std::string& l : record.expected) {
    if (SplitTabs(l).size() != num_columns) row_wise = false;
  }
  if (row_wise) {
    for (const std::string& l : record.expected) expected.push_back(SplitTabs(l));
  } else {
    bool value_wise = record.expected.size() % num_columns == 0;
    for (const std::string& l : record.expected) value_wise &= l.find('\t') == std::string::npos;
    if (!value_wise) {
      for (size_t k = 0; k < record.expected.size(); ++k) {
        size_t n = SplitTabs(record.expected[k]).size();
        if (n != num_columns) {
          return "expected line " + std::to_string(k + 1) + " has " + std::to_string(n) +
                 " TAB-separated value(s), the query returned " + std::to_string(num_columns) +
                 " column(s)\n  actual:\n" + Listing(actual_rows);
        }
      }
    }
    for (size_t k = 0; k < record.expected.size(); k += num_columns) {
      expected.emplace_back(record.expected.begin() + static_cast<std::ptrdiff_t>(k),
                            record.expected.begin() + static_cast<std::ptrdiff_t>(k + num_columns));
    }
  }
  expected = SortRows(std::move(expected), record.sort);
  TextRows actual = SortRows(actual_rows, record.sort);
  bool all_real = std::all_of(record.types.begin(), record.types.end(),
                              [](char c) { return c == 'R' || c == 'r'; });
  std::string diff;
  if (expected.size() != actual.size()) {
    diff = "expected " + std::to_string(expected.size()) + " row(s), got " +
           std::to_string(actual.size());
  } else {
    for (size_t r = 0; r < expected.size() && diff.empty(); ++r) {
      for (size_t c = 0; c < expected[r].size(); ++c) {
        bool real = record.sort == SortMode::kValueSort
                        ? all_real
                        : (record.types[c] == 'R' || record.types[c] == 'r');
        bool eq = expected[r][c].starts_with("<REGEX>:")
                      ? std::regex_match(actual[r][c], std::regex(expected[r][c].substr(8)))
                  : real ? RealEquals(expected[r][c], actual[r][c])
                         : expected[r][c] == actual[r][c];
        if (!eq) {
          diff = "row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                 ": expected '" + expected[r][c] + "', got '" + actual[r][c] + "'";
          break;
        }
      }
    }
  }
  if (diff.empty()) return std::nullopt;
  return diff + "\n  expected (" + std::to_string(expected.size()) + " rows):\n" +
         Listing(expected) + "  actual (" + std::to_string(actual.size()) + " rows):\n" +
         Listing(actual);
}

FileOutcome RunTestFile(const TestFile& file, const Executor& execute, const Environment& env) {
  FileOutcome out;
  if (!file.skip_reason.empty()) {
    out.skipped = std::max<int>(1, static_cast<int>(file.records.size()));
    return out;
  }
  std::map<std::string, TextRows> labels;
  auto fail = [&](const Record& r, const std::string& why) {
    ++out.failed;
    out.report += "FAIL " + file.path + ":" + std::to_string(r.line) + "\n" + Indent(r.sql) +
                  "\n  " + why + "\n";
  };
  for (size_t k = 0; k < file.records.size(); ++k) {
    const Record& r = file.records[k];
    if (r.skip) {
      ++out.skipped;
      continue;
    }
    if (r.kind == Record::kHalt) {
      out.skipped += static_cast<int>(file.records.size() - k - 1);
      break;
    }
    if (r.kind == Record::kDirective) {
      const Directive::Op op = r.directive.op;
      if (auto err = RunDirective(r.directive, env)) {
        fail(r, *err);
      } else if (op == Directive::kFileExists || op == Directive::kFileMissing ||
                 op == Directive::kFileCount) {
        ++out.passed;  // the checks count; clock and file actions do not
      }
      continue;
    }
    auto result = execute(r.sql);
    switch (r.kind) {
      case Record::kHalt:
      case Record::kDirective:
        break;
      case Record::kStatementOk:
        if (result.ok()) {
          ++out.passed;
        } else {
          fail(r, "statement failed: " + cli::FormatError(result.status()));
        }
        break;
      case Record::kStatementError: {
        if (result.ok()) {
          fail(r, "statement succeeded, expected an error" +
                      (r.error_class.empty() ? std::string() : " " + r.error_class));
          break;
        }
        std::string text = cli::FormatError(result.status());
        if (!r.error_class.empty() &&
            !ErrorClassMatches(result.status().error_class(), r.error_class)) {
          fail(r, "expected error class " + r.error_class + ", got " + text);
        } else if (!r.error_substring.empty() &&
                   text.find(r.error_substring) == std::string::npos) {
          fail(r, "the error does not contain '" + r.error_substring + "': " + text);
        } else {
          ++out.passed;
        }
        break;
      }
      case Record::kQuery: {
        if (!result.ok()) {
          fail(r, "query failed: " + cli::FormatError(result.status()));
          break;
        }
        const QueryResult& qr = **result;
        TextRows rows = ResultToText(qr.schema(), qr.chunks(), qr.time_zone);
        std::optional<std::string> diff;
        if (r.has_expected || r.label.empty()) diff = CompareQuery(r, qr.schema().size(), rows);
        if (!diff && !r.label.empty()) {
          TextRows sorted = SortRows(rows, r.sort);
          auto it = labels.find(r.label);
          if (it == labels.end()) {
            labels.emplace(r.label, std::move(sorted));
          } else if (it->second != sorted) {
            diff = "result differs from the earlier query labelled '" + r.label +
                   "'\n  earlier:\n" + Listing(it->second) + "  now:\n" + Listing(sorted);
          }
        }
        if (diff) {
          fail(r, *diff);
        } else {
          ++out.passed;
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace silt::sqllogic
