// Spark's LIKE matcher (declared in regex_util.h).
#include "common/error_classes.h"
#include "exec/functions/function_util.h"
#include "exec/functions/regex_util.h"

namespace silt::exec::fn {

// ---------------------------------------------------------------------------------------------
// LIKE

Result<LikeMatcher> LikeMatcher::Compile(std::string_view pattern, uint32_t escape) {
  LikeMatcher m;
  std::vector<std::string> segs(1);
  std::string regex = "(?s)";
  bool has_underscore = false, has_percent = false;
  size_t i = 0;
  while (i < pattern.size()) {
    uint32_t cp = Utf8Decode(pattern, &i);
    std::string lit;
    if (cp == escape) {
      if (i >= pattern.size()) {
        return Status::InvalidArgument("The format is invalid: '" + std::string(pattern) +
                                           "'. It is not allowed to end with the escape character.",
                                       errc::kInvalidFormatEscAtTheEnd);
      }
      uint32_t next = Utf8Decode(pattern, &i);
      if (next != '_' && next != '%' && next != escape) {
        std::string n;
        Utf8Encode(next, &n);
        return Status::InvalidArgument("The format is invalid: '" + std::string(pattern) +
                                           "'. The escape character is not allowed to precede '" +
                                           n + "'.",
                                       errc::kInvalidFormatEscInTheMiddle);
      }
      Utf8Encode(next, &lit);
    } else if (cp == '_') {
      has_underscore = true;
      regex += '.';
      continue;
    } else if (cp == '%') {
      has_percent = true;
      regex += ".*";
      segs.emplace_back();
      continue;
    } else {
      Utf8Encode(cp, &lit);
    }
    segs.back() += lit;
    regex += RE2::QuoteMeta(lit);
  }
  if (has_underscore) {
    RE2::Options opts;
    opts.set_log_errors(false);
    auto re = std::make_shared<RE2>(regex, opts);
    if (!re->ok()) return Status::Internal("LIKE regex failed to compile: " + re->error());
    m.kind_ = Kind::kRegex;
    m.re_ = std::move(re);
  } else {
    m.kind_ = has_percent ? Kind::kSegments : Kind::kExact;
    m.segments_ = std::move(segs);
  }
  return m;
}

bool LikeMatcher::Match(std::string_view s) const {
  switch (kind_) {
    case Kind::kExact:
      return s == segments_[0];
    case Kind::kRegex:
      return RE2::FullMatch(s, *re_);
    case Kind::kSegments: {
      const std::string& first = segments_.front();
      const std::string& last = segments_.back();
      if (s.size() < first.size() + last.size()) return false;
      if (s.compare(0, first.size(), first) != 0) return false;
      if (s.compare(s.size() - last.size(), last.size(), last) != 0) return false;
      std::string_view mid = s.substr(first.size(), s.size() - first.size() - last.size());
      for (size_t k = 1; k + 1 < segments_.size(); ++k) {
        const std::string& seg = segments_[k];
        if (seg.empty()) continue;
        size_t at = mid.find(seg);
        if (at == std::string_view::npos) return false;
        mid.remove_prefix(at + seg.size());
      }
      return true;
    }
  }
  return false;
}

}  // namespace silt::exec::fn
