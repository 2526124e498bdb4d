#!/usr/bin/env python3
"""Draws the module graph of Package.swift (the library, plugin, server and CLI targets, not tests or
benchmarks) and checks the sources keep to it.

  Scripts/module-graph.py            prints the graph
  Scripts/module-graph.py --check    exits 1 when docs/architecture.md's copy (between the
                                     module-graph markers) differs from the drawing, or when a
                                     source file imports a module of this package that its
                                     target does not list as a dependency (so no module can
                                     reach one above it, not even through another's imports)
  Scripts/module-graph.py --write    rewrites docs/architecture.md's copy

A module's level is one more than the highest level among its dependencies; each row lists a
module and what it depends on in this package (external packages after a `+`).
"""
import os, re, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
DOC = os.path.join(ROOT, 'docs', 'architecture.md')
BEGIN, END = '<!-- module-graph:begin -->', '<!-- module-graph:end -->'
KINDS = ('target', 'executableTarget', 'systemLibrary', 'testTarget', 'plugin')


def calls(text):
    """(kind, argument text) of each `.target(`-like call, with balanced parentheses."""
    for m in re.finditer(r'\.(' + '|'.join(KINDS) + r')\(', text):
        depth, i = 1, m.end()
        while depth:
            c = text[i]
            if c == '"':
                i = text.index('"', i + 1)
            elif c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
            i += 1
        yield m.group(1), text[m.end():i - 1]


def strip_comments(text):
    return re.sub(r'//[^\n]*', '', text)


def targets():
    """name → {kind, path, local deps, products}."""
    text = strip_comments(open(os.path.join(ROOT, 'Package.swift')).read())
    out = {}
    for kind, args in calls(text):
        name = re.search(r'name:\s*"([^"]+)"', args).group(1)
        deps_m = re.search(r'dependencies:\s*\[', args)
        local, products = [], []
        if deps_m:
            depth, i = 1, deps_m.end()
            while depth:
                depth += {'[': 1, ']': -1}.get(args[i], 0)
                i += 1
            deps = args[deps_m.end():i - 1]
            products = re.findall(r'\.product\(name:\s*"([^"]+)"', deps)
            deps = re.sub(r'\.product\([^)]*\)', '', deps)
            local = re.findall(r'"([^"]+)"', deps)
        path_m = re.search(r'path:\s*"([^"]+)"', args)
        default = ('Tests/' if kind == 'testTarget' else 'Sources/') + name
        out[name] = {'kind': kind, 'path': path_m.group(1) if path_m else default, 'local': local, 'products': products}
    return out


def shipped(ts):
    """The modules the graph shows: the library, the built-in plugins, the server and the CLI."""
    return {n: t for n, t in ts.items()
            if t['kind'] in ('target', 'executableTarget', 'systemLibrary')
            and t['path'].startswith(('Sources/', 'Plugins/'))}


def levels(ts):
    memo = {}
    def level(n):
        if n not in memo:
            memo[n] = 1 + max((level(d) for d in ts[n]['local'] if d in ts), default=-1)
        return memo[n]
    return {n: level(n) for n in ts}


def drawing():
    ts = shipped(targets())
    lv = levels(ts)
    width = max(len(n) for n in ts)
    lines = ['```text', 'level  module' + ' ' * (width - 6) + '  depends on (this package; + other packages)']
    for n in sorted(ts, key=lambda n: (-lv[n], n)):
        t = ts[n]
        deps = ', '.join(sorted(d for d in t['local'] if d in ts))
        ext = ', '.join(sorted(set(t['products'])))
        right = (deps or '-') + (f'  + {ext}' if ext else '')
        lines.append(f'{lv[n]:>5}  {n:<{width}}  {right}')
    lines.append('```')
    return '\n'.join(lines)


def stray_imports():
    """Files that import a module of this package their target does not depend on."""
    ts = targets()
    problems = []
    for n, t in ts.items():
        folder = os.path.join(ROOT, t['path'])
        if t['kind'] == 'plugin' or not os.path.isdir(folder):
            continue
        allowed = set(t['local']) | {n}
        for dirpath, _, files in os.walk(folder):
            for f in files:
                if not f.endswith('.swift'):
                    continue
                p = os.path.join(dirpath, f)
                for i, line in enumerate(open(p, encoding='utf-8'), 1):
                    m = re.match(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:\w+\s+)?import\s+(\w+)\s*$', line)
                    if m and m.group(1) in ts and m.group(1) not in allowed:
                        rel = os.path.relpath(p, ROOT)
                        problems.append(f'{rel}:{i}: {n} imports {m.group(1)}, which is not among its dependencies in Package.swift')
    return problems


def doc_copy():
    text = open(DOC, encoding='utf-8').read()
    if BEGIN not in text or END not in text:
        return text, None
    return text, text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip('\n')


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ''
    graph = drawing()
    if mode == '--write':
        text, _ = doc_copy()
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        open(DOC, 'w', encoding='utf-8').write(text[:start] + '\n' + graph + '\n' + text[end:])
        return 0
    if mode != '--check':
        print(graph)
        return 0
    problems = stray_imports()
    _, copy = doc_copy()
    if copy is None:
        problems.append(f'docs/architecture.md: no {BEGIN} … {END} block')
    elif copy != graph:
        problems.append('docs/architecture.md: the module graph differs from Package.swift; run Scripts/module-graph.py --write')
    for p in problems:
        print(p)
    print(f'module-graph: {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
