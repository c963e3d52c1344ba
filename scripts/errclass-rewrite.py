#!/usr/bin/env python3
"""Keeps silt's error classes in one catalogue (include/silt/error_classes.def).

Default (rewrite) mode, idempotent, safe to re-run on code it has not seen:
  1. finds every error class src/ raises: a string literal in a class position (the class argument
     of `Status::<Factory>(msg, cls)` or `Status(StatusCode::…, cls, msg)`, a comparison with
     `error_class()`, a `kError… = "…"` constant) or any literal naming a class of the reference
     catalogues (Spark's error conditions, Delta's error classes) or of the catalogue itself;
  2. adds the classes not yet catalogued to error_classes.def (SQLSTATE and origin from the
     reference catalogues; SILT_* classes are silt's own; others are marked OTHER), keeping the
     entries already there;
  3. replaces each such literal by its constant (`errc::kDeltaFileNotFound`), adding
     `#include "common/error_classes.h"` where needed; a `char kErrorX[] = "CLASS"` constant
     becomes a reference to the catalogue's (`auto& kErrorX = errc::…`);
  4. drops a "[CLASS] " prefix from a message literal when the call's class argument is CLASS
     (Status::ToString() renders the class; the message must not repeat it);
  5. formats the changed lines of the files scripts/format-files.txt holds (clang-format --lines).

--check: changes nothing; prints one FAIL line per error-class literal left in src/ (outside the
catalogue) and per "[CLASS] " message prefix, then "N passed, N failed" (run by `make test`).

--reference DIR (default ../shared/reference next to the repository, or /work/shared/reference).
"""

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF_PATH = os.path.join(ROOT, 'include/silt/error_classes.def')
HEADER = 'common/error_classes.h'
# Files that define the catalogue or the code names themselves.
EXEMPT = {'include/silt/error_classes.def', 'include/silt/error_classes.h', 'src/common/error_classes.cc',
          'src/common/status.cc'}
FACTORIES = ('InvalidArgument', 'NotFound', 'AlreadyExists', 'CommitConflict', 'Corruption', 'IoError',
             'NotImplemented', 'Unsupported', 'OutOfMemory')
CLASS_RE = re.compile(r'_LEGACY_ERROR_TEMP_[0-9A-Z_]+|[A-Z][A-Z0-9_]*(\.[A-Z][A-Z0-9_]*)*')


# ----------------------------------------------------------------------------------------------
# Reference catalogues and the .def file

def load_reference(ref_dir):
    ref = {}
    for name, origin in (('spark-error-conditions.json', 'SPARK'), ('delta-error-classes.json', 'DELTA')):
        path = os.path.join(ref_dir, name)
        if not os.path.exists(path):
            sys.exit(f'errclass-rewrite: {path} is missing (pass --reference DIR)')
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
        for cls, body in data.items():
            state = body.get('sqlState', '')
            ref.setdefault(cls, (origin, state))
            for sub in body.get('subClass', {}):
                ref.setdefault(cls + '.' + sub, (origin, state))
    return ref


DEF_LINE = re.compile(r'^SILT_ERROR_CLASS\((\w+), "([^"]+)", "([^"]*)", (\w+)\)')


def read_def():
    entries = {}
    if os.path.exists(DEF_PATH):
        with open(DEF_PATH, encoding='utf-8') as f:
            for line in f:
                m = DEF_LINE.match(line)
                if m:
                    entries[m.group(2)] = (m.group(1), m.group(3), m.group(4))
    return entries


DEF_HEAD = """\
// silt's error-class catalogue: every error class the engine raises, one line each.
//
// SILT_ERROR_CLASS(constant, class, SQLSTATE, origin) with origin
//   kSpark  a Spark error condition (or CLASS.SUBCLASS), SQLSTATE as in Spark's catalogue;
//   kDelta  a Delta Lake error class, SQLSTATE as in Delta's catalogue;
//   kSilt   silt's own (SILT_*), no SQLSTATE unless one is given here;
//   kOther  not in the open-source catalogues (Databricks-documented classes such as AUTO_TTL_*,
//           silt's usage and not-implemented errors), no SQLSTATE unless one is given here.
// test/unit/common/error_classes_test.cc checks the kSpark and kDelta lines against the reference
// catalogues. scripts/errclass-rewrite.py adds the classes it finds in src/ (keeping these lines,
// so a hand-set SQLSTATE stays) and `make test` fails on an error-class literal outside this file.
// Sorted by class.
"""


def constant_name(cls):
    return 'k' + ''.join(p[:1] + p[1:].lower() for p in re.split(r'[_.]', cls) if p)


def write_def(entries):
    names = {}
    for cls, (name, _, _) in entries.items():
        if name in names and names[name] != cls:
            sys.exit(f'errclass-rewrite: {cls} and {names[name]} both map to {name}')
        names[name] = cls
    with open(DEF_PATH, 'w', encoding='utf-8') as f:
        f.write(DEF_HEAD)
        for cls in sorted(entries):
            name, state, origin = entries[cls]
            f.write(f'SILT_ERROR_CLASS({name}, "{cls}", "{state}", {origin})\n')


# ----------------------------------------------------------------------------------------------
# A small C++ scanner: string literals (not in comments), and call arguments

def scan(text):
    """Yields ('str', start, end, content) for ordinary string literals and ('code', start, end)
    stretches; comments and char literals are skipped (inside code)."""
    i, n = 0, len(text)
    out = []
    code_start = 0
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(')' + m.group(1) + '"', i)
                i = n if end < 0 else end + len(m.group(1)) + 2
                continue
        if c == "'":
            # a digit separator (1'000) is not a char literal
            if i > 0 and text[i - 1].isdigit():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append(('str', i, j + 1, text[i + 1:j]))
            i = j + 1
            continue
        i += 1
    return out


def comment_or_string_mask(text):
    """A bytearray: 1 where text is inside a comment, string or char literal."""
    mask = bytearray(len(text))
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        start = i
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
        elif c == 'R' and text.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', text[i:]) and \
                (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(')' + m.group(1) + '"', i)
            i = n if end < 0 else end + len(m.group(1)) + 2
        elif c == "'" and not (i > 0 and text[i - 1].isdigit()):
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        else:
            i += 1
            continue
        for k in range(start, min(i, n)):
            mask[k] = 1
    return mask


def call_args(text, mask, open_paren):
    """Top-level argument spans [(start, end)] of the call whose '(' is at open_paren."""
    depth = 0
    args = []
    start = open_paren + 1
    i = open_paren
    n = len(text)
    while i < n:
        if mask[i]:
            i += 1
            continue
        c = text[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append((start, i))
                return args
        elif c == ',' and depth == 1:
            args.append((start, i))
            start = i + 1
        i += 1
    return args


def strip_span(text, a, b):
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


# ----------------------------------------------------------------------------------------------

def source_files():
    out = []
    for top in ('src', 'include'):
        for base, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(('.cc', '.h')):
                    rel = os.path.relpath(os.path.join(base, f), ROOT)
                    if rel not in EXEMPT:
                        out.append(rel)
    return sorted(out)


CALL_RE = re.compile(r'\bStatus::(' + '|'.join(FACTORIES + ('Internal',)) + r')\s*\(|\bStatus\s*\(\s*StatusCode::')
# The class of a factory called without one.
IMPLIED = {'Internal': 'INTERNAL_ERROR', 'NotImplemented': 'NOT_IMPLEMENTED'}
CMP_RE = re.compile(r'error_class\(\)\s*(==|!=)\s*$')
CMP_AFTER_RE = re.compile(r'^\s*(==|!=)\s*[\w.\->()]*error_class\(\)')
RFIND_RE = re.compile(r'error_class\(\)\.(rfind|starts_with|find)\(\s*$')
# `constexpr char kX[] = ` / `constexpr const char* kX = ` right before a literal.
KCONST_RE = re.compile(r'(?:constexpr|const)\s+(?:const\s+)?char\s*(?:\*\s*(k\w+)|(k\w+)\s*\[\])\s*=\s*$')


def kconst_is_class(m, content):
    name = m.group(1) or m.group(2)
    return 'Error' in name or 'Class' in name


def class_literal_positions(text, mask):
    """Start offsets of string literals in class positions, with the calls' (msg, cls) spans."""
    pos = set()
    calls = []
    for m in CALL_RE.finditer(text):
        if mask[m.start()]:
            continue
        paren = text.index('(', m.start() if m.group(1) else m.start()) if m.group(1) else \
            text.index('(', m.start())
        args = call_args(text, mask, paren)
        if m.group(1):
            if len(args) >= 2:
                msg, cls = args[0], args[1]
            elif len(args) == 1 and m.group(1) in IMPLIED:
                calls.append((strip_span(text, *args[0]), IMPLIED[m.group(1)]))
                continue
            else:
                continue
        else:
            if len(args) >= 3:
                msg, cls = args[2], args[1]
            else:
                continue
        a, b = strip_span(text, *cls)
        if a < b and text[a] == '"':
            pos.add(a)
        calls.append((strip_span(text, *msg), (a, b)))
    return pos, calls


def find_classes(text, lits, mask, known):
    """Literals naming an error class: (start, end, class)."""
    pos, calls = class_literal_positions(text, mask)
    found = []
    for kind, a, b, content in lits:
        if not CLASS_RE.fullmatch(content):
            continue
        before = text[max(0, a - 200):a]
        after = text[b:b + 120]
        kc = KCONST_RE.search(before)
        positional = (a in pos or CMP_RE.search(before) or CMP_AFTER_RE.match(after) or
                      RFIND_RE.search(before) or (kc and kconst_is_class(kc, content)))
        if positional or content in known:
            found.append((a, b, content))
    return found, calls


def replace_kerror_decl(text, a, name):
    """`…constexpr char kX[] = ` before offset a → `…constexpr auto& kX = ` (an array cannot be
    initialised from the catalogue's array; a reference to it keeps the type)."""
    before = text[max(0, a - 200):a]
    m = re.search(r'(constexpr|const)\s+char\s+(k\w+)\s*\[\]\s*=\s*$', before)
    if not m:
        return None
    return a - len(before) + m.start(), a, f'{m.group(1)} auto& {m.group(2)} = '


DECL_RE = re.compile(r'(?:constexpr|const)\s+(?:const\s+)?(?:char\s*\*?\s*|auto&\s*)(k\w+)\s*(?:\[\])?\s*=\s*'
                     r'(?:"([A-Z][A-Z0-9_.]*)"|(?:silt::)?errc::(k\w+))\s*;')


def constant_aliases(texts, const):
    """Names of the constants src/ declares for a class (kErrorX = "CLASS" / errc::kY) → class;
    a name declared for two classes is left out."""
    by_const = {v: k for k, v in const.items()}
    out = {}
    for text in texts.values():
        for m in DECL_RE.finditer(text):
            cls = m.group(2) or by_const.get(m.group(3))
            if not cls:
                continue
            if out.get(m.group(1), cls) != cls:
                out[m.group(1)] = None
            else:
                out[m.group(1)] = cls
    return {k: v for k, v in out.items() if v}


def add_include(text, path):
    if re.search(r'#include\s+"' + re.escape(HEADER) + '"', text):
        return text
    lines = text.split('\n')
    line = f'#include "{HEADER}"'
    incs = [i for i, l in enumerate(lines) if l.startswith('#include ')]
    own = None
    if incs and path.endswith('.cc'):
        stem = os.path.splitext(os.path.basename(path))[0]
        m = re.match(r'#include "(?:.*/)?([^/"]+)\.h"', lines[incs[0]])
        if m and m.group(1) == stem:
            own = incs[0]
    quoted = [i for i in incs if lines[i].startswith('#include "') and i != own]
    if quoted:
        # sorted position among the project's includes
        for i in quoted:
            if lines[i] > line:
                lines.insert(i, line)
                return '\n'.join(lines)
        lines.insert(quoted[-1] + 1, line)
        return '\n'.join(lines)
    if incs:
        lines[incs[-1] + 1:incs[-1] + 1] = ['', line]
        return '\n'.join(lines)
    anchors = [i for i, l in enumerate(lines) if l.startswith('#pragma once')]
    at = anchors[0] + 1 if anchors else 0
    lines[at:at] = ['', line]
    return '\n'.join(lines)


def prefix_edits(text, lits_by_start, calls, cls_of_span):
    """Edits removing "[CLASS] " from the first literal of a call's message."""
    edits = []
    for (ma, mb), cspan in calls:
        cls = cspan if isinstance(cspan, str) else cls_of_span(*cspan)
        if not cls or ma >= mb:
            continue
        wrapped = re.match(r'std::string\(\s*', text[ma:mb])
        lit = lits_by_start.get(ma + (wrapped.end() if wrapped else 0))
        if not lit:
            continue
        _, a, b, content = lit
        for pre in ('[' + cls + '] ', '[' + cls + ']'):
            if content.startswith(pre):
                rest = content[len(pre):]
                if rest == '' and wrapped:
                    # `std::string("[CLASS] ") + x` → `std::string() + x`
                    edits.append((a, b, ''))
                    break
                if rest == '':
                    # `"[CLASS] " + x` → `x`, unless the literal is the whole message
                    m = re.match(r'\s*\+\s*', text[b:mb])
                    if m:
                        edits.append((a, b + m.end(), ''))
                        break
                edits.append((a, b, '"' + rest + '"'))
                break
    return edits


def changed_ranges(old, new):
    """1-based line ranges of `new` that differ from `old`."""
    import difflib
    sm = difflib.SequenceMatcher(None, old.split('\n'), new.split('\n'), autojunk=False)
    return [(j1 + 1, j2) for tag, _, _, j1, j2 in sm.get_opcodes() if tag in ('replace', 'insert') and j2 > j1]


def format_lines(path, ranges):
    fmt_list = os.path.join(ROOT, 'scripts/format-files.txt')
    if not ranges or not os.path.exists(fmt_list):
        return
    import fnmatch
    with open(fmt_list, encoding='utf-8') as f:
        pats = [l.strip() for l in f if l.strip() and not l.startswith('#')]
    if not any(fnmatch.fnmatch(path, p) for p in pats):
        return
    args = ['clang-format', '-i'] + [f'--lines={a}:{b}' for a, b in ranges] + [path]
    subprocess.run(args, cwd=ROOT, check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--reference')
    opt = ap.parse_args()

    ref_dir = opt.reference
    if not ref_dir:
        for d in (os.path.join(ROOT, '../shared/reference'), '/work/shared/reference'):
            if os.path.isdir(d):
                ref_dir = d
                break
    entries = read_def()

    if opt.check:
        return check(entries)
    if not ref_dir:
        sys.exit('errclass-rewrite: no reference catalogues (pass --reference DIR)')
    ref = load_reference(ref_dir)

    known = set(ref) | set(entries)
    files = source_files()
    texts = {}
    # Pass 1: find the classes.
    for f in files:
        with open(os.path.join(ROOT, f), encoding='utf-8') as fh:
            texts[f] = fh.read()
    new = {}
    for f in files:
        text = texts[f]
        lits = scan(text)
        mask = comment_or_string_mask(text)
        found, _ = find_classes(text, lits, mask, known)
        for _, _, cls in found:
            if cls not in entries and cls not in new:
                if cls in ref:
                    origin, state = ref[cls]
                    new[cls] = (constant_name(cls), state, 'k' + origin.capitalize())
                else:
                    new[cls] = (constant_name(cls), '', 'kSilt' if cls.startswith('SILT_') else 'kOther')
    if new or not os.path.exists(DEF_PATH):
        entries.update(new)
        write_def(entries)
    const = {cls: v[0] for cls, v in entries.items()}

    # Pass 2: rewrite.
    aliases = constant_aliases(texts, const)
    changed = 0
    for f in files:
        text = texts[f]
        lits = scan(text)
        mask = comment_or_string_mask(text)
        found, calls = find_classes(text, lits, mask, set(entries))
        edits = []
        for a, b, cls in found:
            decl = replace_kerror_decl(text, a, const[cls])
            if decl:
                edits.append((decl[0], b, decl[2] + 'errc::' + const[cls]))
            else:
                edits.append((a, b, 'errc::' + const[cls]))
        lits_by_start = {l[1]: l for l in lits}

        def cls_of_span(ca, cb, text=text):
            s = text[ca:cb]
            if s.startswith('"') and s.endswith('"') and s[1:-1] in entries:
                return s[1:-1]
            m = re.fullmatch(r'(?:::)?(?:silt::)?errc::(k\w+)', s)
            if m:
                for cls, name in const.items():
                    if name == m.group(1):
                        return cls
            m = re.fullmatch(r'(?:::)?(?:silt::)?(?:\w+::)*(k\w+)', s)
            if m:
                return aliases.get(m.group(1))
            return None

        edits += prefix_edits(text, lits_by_start, calls, cls_of_span)
        if not edits:
            continue
        # Drop edits that overlap (a literal both a class and a message prefix cannot happen).
        edits.sort()
        out = []
        last = len(text) + 1
        ranges = []
        for a, b, rep in sorted(edits, reverse=True):
            if b > last:
                continue
            text = text[:a] + rep + text[b:]
            last = a
        if any(rep.find('errc::') >= 0 for _, _, rep in edits):
            text = add_include(text, f)
        if text != texts[f]:
            with open(os.path.join(ROOT, f), 'w', encoding='utf-8') as fh:
                fh.write(text)
            changed += 1
            format_lines(f, changed_ranges(texts[f], text))
    print(f'errclass-rewrite: {len(new)} classes added to the catalogue, {changed} files rewritten')
    return 0


def check(entries):
    if not entries:
        print(f'FAIL: {os.path.relpath(DEF_PATH, ROOT)} is missing or empty')
        print('0 passed, 1 failed')
        return 1
    passed = failed = 0
    # The detector itself: planted literals must be found (a lint that cannot fail is no lint).
    planted = ('Status f() { return Status::NotFound("[DELTA_FILE_NOT_FOUND] gone",\n'
               '                                "DELTA_FILE_NOT_FOUND"); }\n'
               'bool g(const Status& s) { return s.error_class() == "SILT_NEW_CLASS"; }\n')
    found, _ = find_classes(planted, scan(planted), comment_or_string_mask(planted), set(entries))
    if sorted(c for _, _, c in found) != ['DELTA_FILE_NOT_FOUND', 'SILT_NEW_CLASS']:
        print(f'FAIL: the detector missed planted literals (found {[c for _, _, c in found]})')
        failed += 1
    else:
        passed += 1
    for f in source_files():
        with open(os.path.join(ROOT, f), encoding='utf-8') as fh:
            text = fh.read()
        lits = scan(text)
        mask = comment_or_string_mask(text)
        found, calls = find_classes(text, lits, mask, set(entries))
        for a, _, cls in found:
            line = text[:a].count('\n') + 1
            print(f'FAIL: {f}:{line}: error class "{cls}" as a string literal: use errc:: (scripts/errclass-rewrite.py)')
            failed += 1
        for kind, a, b, content in lits:
            m = re.match(r'\[([A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\.[A-Z][A-Z0-9_]*)*)\]', content)
            if m:
                line = text[:a].count('\n') + 1
                print(f'FAIL: {f}:{line}: a message repeats "[{m.group(1)}]": Status::ToString() renders the class')
                failed += 1
        passed += 1
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
