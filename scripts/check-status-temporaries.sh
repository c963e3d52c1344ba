#!/usr/bin/env bash
# SILT_RETURN_NOT_OK(f(...).status()) binds a reference to the status inside a temporary Result
# that dies at the end of the declaration: a stack-use-after-scope the ASan build finds only when
# that path runs (it did, twice). Keep the Result in a variable first. Run by `make test`.
# Ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import glob, re
pat = re.compile(r'SILT_RETURN_NOT_OK\(')
files = sorted(glob.glob('src/**/*.[ch]*', recursive=True) + glob.glob('test/**/*.[ch]*', recursive=True))
passed = failed = 0
for f in files:
    if not f.endswith(('.cc', '.h')):
        continue
    s = open(f, encoding='utf-8', errors='replace').read()
    for m in pat.finditer(s):
        i, depth = m.end(), 1
        while depth and i < len(s):
            depth += {'(': 1, ')': -1}.get(s[i], 0)
            i += 1
        arg = ' '.join(s[m.end():i - 1].split())
        if (arg.endswith('.status()') or arg.endswith('->status()')) and ')' in arg[:-len('.status()')]:
            line = s[:m.start()].count('\n') + 1
            print(f'FAIL: {f}:{line}: SILT_RETURN_NOT_OK on the status() of a temporary: {arg[:80]}')
            failed += 1
        else:
            passed += 1
print(f'{passed} passed, {failed} failed')
PY
