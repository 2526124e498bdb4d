#!/usr/bin/env python3
"""Lists Swift functions, initializers, closures-as-properties and computed properties whose
bodies are longer than a limit (default 60 lines), outside generated code.

    Scripts/long-functions.py [--limit N] [--check] [PATH ...]

With --check it exits 1 when any is found (CI runs it on Sources/). A body is counted from
the line of its declaration to its closing brace, comments and blank lines included, the way
a reader sees it. Test tables and generated code (Generated/, *.pb.swift,
KnownElements+Table.swift) are left out.
"""
import argparse, os, re, sys

SKIP = ("/.build/", "/Generated/", ".pb.swift", "KnownElements+Table.swift")
DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|static|class|final|override|mutating|nonisolated|convenience|required|dynamic|@MainActor)\s+)*'
                  r'(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit|subscript|var\s+\w+\s*:[^={]*\{\s*(?://.*)?$)')

def strip(line):
    """The line without string literals and comments, for brace counting."""
    out, i, q = [], 0, False
    while i < len(line):
        c = line[i]
        if q:
            if c == '\\': i += 2; continue
            if c == '"': q = False
        elif c == '"': q = True
        elif line.startswith('//', i): break
        else: out.append(c)
        i += 1
    return ''.join(out)

def functions(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    found, in_multiline = [], False
    for n, line in enumerate(lines):
        if line.count('"""') % 2: in_multiline = not in_multiline
        if in_multiline or not DECL.match(line): continue
        # The body opens on the declaration's line or within its next few (a long signature).
        opening, parens = None, 0
        for m in range(n, min(n + 8, len(lines))):
            text = strip(lines[m])
            if '{' in text: opening = m; break
            parens += text.count('(') - text.count(')')
            if parens <= 0: break  # a complete signature without a body: a protocol requirement
        if opening is None: continue
        depth, end = 0, None
        for m in range(opening, len(lines)):
            s = strip(lines[m]) if '"""' not in lines[m] else ''
            depth += s.count('{') - s.count('}')
            if depth <= 0:
                end = m; break
        if end is None: continue
        name = DECL.match(line).group(1).strip()
        found.append((end - n + 1, path, n + 1, name))
    return found

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--limit', type=int, default=60)
    ap.add_argument('--check', action='store_true')
    ap.add_argument('paths', nargs='*', default=['Sources'])
    a = ap.parse_args()
    long = []
    for root in a.paths:
        for d, _, files in os.walk(root):
            for f in files:
                p = os.path.join(d, f)
                if f.endswith('.swift') and not any(s in p for s in SKIP):
                    long += [x for x in functions(p) if x[0] > a.limit]
    for length, path, line, name in sorted(long, reverse=True):
        print(f"{path}:{line}: {name} is {length} lines (limit {a.limit})")
    if a.check and long:
        print(f"long-functions: {len(long)} over {a.limit} lines; split them along their ideas", file=sys.stderr)
        return 1
    print(f"long-functions: {len(long)} over {a.limit} lines", file=sys.stderr)
    return 0

sys.exit(main())
