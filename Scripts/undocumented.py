#!/usr/bin/env python3
"""Lists public and open Swift declarations that have no `///` doc comment directly above,
and those whose signature shows a raw C type.

    Scripts/undocumented.py [--check] [--summary] PATH ...

A declaration is a type (class, struct, enum, actor, protocol), a typealias or associated
type, a func, init or subscript, a var or let, a case of a public enum, or a requirement of a
public protocol; it is public when it says `public` or `open`, or when it stands in a public
protocol, a public enum (cases) or a `public extension` without an access modifier of its
own. Declarations inside a type that is not public, and anything in a function body, are not
counted. The doc comment must end on the line above, or above the declaration's attributes
(`@available(...)`, `@inlinable`, ...); a blank line or a `//` comment in between breaks it.
`/** ... */` counts too.

A raw C type (`GType`, `GValue`, `GstElement`, `gint`, `OpaquePointer`, …) in a public
signature is a finding too: the bindings keep those `package` (docs/architecture.md).

Each finding is printed as `FILE:LINE: kind name`, then a count per target (the folder under
Sources/ or Plugins/, else the path given). With --check it exits 1 when any is found.
Generated code (Generated/, *.pb.swift, files whose first line is `// DO NOT EDIT.`) is left
out, as in Scripts/long-functions.py.
"""
import argparse, os, re, sys

SKIP = ("/.build/", "/Generated/", ".pb.swift", "KnownElements+Table.swift")
TYPES = ("class", "struct", "enum", "actor", "protocol")
KEYWORDS = TYPES + ("extension", "typealias", "associatedtype", "func", "init", "subscript", "var", "let", "case")
# Modifiers that may stand before the keyword, besides the access levels.
MODIFIERS = {"static", "class", "final", "override", "mutating", "nonmutating", "nonisolated", "convenience",
             "required", "dynamic", "lazy", "weak", "unowned", "indirect", "optional", "isolated",
             "consuming", "borrowing", "distributed", "prefix", "postfix", "infix", "package", "internal",
             "private", "fileprivate", "public", "open", "unowned(safe)", "unowned(unsafe)"}
ATTRIBUTE = re.compile(r'@\w+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*')
ATTRIBUTE_LINE = re.compile(r'^\s*(?:@\w+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*)+$')


# GLib and GStreamer C names as Swift imports them. Swift's own `Gst` namespace and `GstError`
# are not among them.
RAW_C = re.compile(
    r'\b(G(?:Type|Value|Object|Error|List|SList|Quark|ParamSpec|Closure|MainLoop|MainContext|Variant|Bytes|Array'
    r'|PtrArray|HashTable|Source)|Gst(?!Error\b)[A-Z]\w*|g(?:int|uint|int8|uint8|int16|uint16|int32|uint32|int64|uint64'
    r'|boolean|pointer|constpointer|char|uchar|size|ssize|double|float|long|ulong)|OpaquePointer)\b')


# Swift types of the scanned files whose names look like C ones (`GstLaunchFragment`).
SWIFT_NAMES = set()


def raw_c_types(lines, n):
    """The raw C type names in the signature that starts on cleaned line `n`: up to its body's
    `{`, or the end of a line where its brackets are closed (at most 8 lines). A stored
    property's initial value is not its signature."""
    text, depth = '', 0
    for line in lines[n:n + 8]:
        part = line.split('{')[0]
        text += ' ' + part
        depth += part.count('(') + part.count('[') + part.count('<') - part.count(')') - part.count(']') - part.count('>')
        if '{' in line or (depth <= 0 and not part.rstrip().endswith((',', '->', ':'))): break
    if re.match(r'\s*(?:@\w+\s*)*(?:public|open)\s+(?:static\s+)?(?:let|var)\b', lines[n]):
        text = re.sub(r'=.*', '', text)
    return sorted(set(m.group(1) for m in RAW_C.finditer(text)) - SWIFT_NAMES)


def clean(text):
    """The text with comments and the contents of string literals blanked (newlines kept), so
    braces and keywords can be read from it line by line."""
    out, i, n = [], 0, len(text)
    # A stack of what we are in: ('code', parens) for code or an interpolation, ('str', hashes,
    # multiline) for a string literal.
    stack = [['code', 0]]
    while i < n:
        c = text[i]
        top = stack[-1]
        if top[0] == 'str':
            hashes, multiline = top[1], top[2]
            closing = ('"""' if multiline else '"') + '#' * hashes
            if text.startswith(closing, i):
                stack.pop(); out.append(closing); i += len(closing); continue
            if c == '\\' and text.startswith('#' * hashes, i + 1):
                j = i + 1 + hashes
                if j < n and text[j] == '(':
                    stack.append(['code', 1]); out.append(' ' * (j - i) + '('); i = j + 1; continue
                out.append('  ' if j < n and text[j] != '\n' else ' '); i = j + 1; continue
            out.append('\n' if c == '\n' else ' '); i += 1; continue
        # In code (the file, or an interpolation).
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j; continue
        if text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j): depth += 1; j += 2
                elif text.startswith('*/', j): depth -= 1; j += 2
                else: j += 1
            out.append(''.join('\n' if ch == '\n' else ' ' for ch in text[i:j])); i = j; continue
        m = re.match(r'(#*)("""|")', text[i:i + 12])
        if m and (m.group(1) == '' or c == '#'):
            hashes, multiline = len(m.group(1)), m.group(2) == '"""'
            stack.append(['str', hashes, multiline]); out.append(m.group(0)); i += len(m.group(0)); continue
        if len(stack) > 1:
            if c == '(':
                top[1] += 1
            elif c == ')':
                top[1] -= 1
                if top[1] == 0:
                    stack.pop(); out.append(')'); i += 1; continue
        out.append(c); i += 1
    return ''.join(out)


def declaration(line):
    """(access, modifiers, keyword, rest) when the cleaned line starts a declaration."""
    s = line.strip()
    while True:
        m = ATTRIBUTE.match(s)
        if not m: break
        s = s[m.end():]
    words, access, modifiers = s.split(), None, set()
    i = 0
    while i < len(words):
        w = words[i]
        base = w.split('(')[0]
        nxt = words[i + 1].split('(')[0] if i + 1 < len(words) else ''
        if w == "class" and nxt not in ("func", "var", "let", "subscript") and nxt not in MODIFIERS:
            break  # `class Name`: the keyword, not the modifier of `class func`
        if w in ("public", "open"): access = w
        elif base in ("private", "fileprivate", "internal", "package") and access is None:
            # `private(set)` narrows only the setter; `internal`, `private` set the access.
            if '(' not in w: access = base
        elif w == "public(set)" or w == "open(set)":
            pass
        elif base not in MODIFIERS:
            break
        modifiers.add(base)
        i += 1
    if i >= len(words): return None
    kw = re.match(r'(\w+)', words[i])
    if not kw or kw.group(1) not in KEYWORDS: return None
    keyword = kw.group(1)
    rest = ' '.join(words[i:])[len(keyword):]
    if keyword == "init" and not re.match(r'\s*[?!]?\s*[(<]', rest): return None
    if keyword not in ("init", "subscript") and not re.match(r'\s+\S', rest) and keyword != "case": return None
    return access, modifiers, keyword, rest


def name_of(keyword, rest):
    rest = rest.strip()
    if keyword == "init": return "init" + (rest[0] if rest[:1] in "?!" else "")
    if keyword == "subscript": return "subscript"
    if keyword in ("var", "let"):
        m = re.match(r'\(?\s*([`\w]+)', rest)
        return m.group(1) if m else rest.split()[0]
    if keyword == "case":
        names = []
        depth, cur = 0, ''
        for ch in rest:
            if ch in '(<[': depth += 1
            elif ch in ')>]': depth -= 1
            elif ch == ',' and depth == 0: names.append(cur); cur = ''; continue
            cur += ch
        names.append(cur)
        return ', '.join(re.match(r'\s*([`\w]*)', x).group(1) for x in names if x.strip())
    m = re.match(r'([`\w]+|[^\s(<{:]+)', rest)
    return m.group(1) if m else rest


def documented(raw, index):
    """Whether the declaration on raw line `index` has a doc comment directly above it (above
    its attribute lines)."""
    j = index - 1
    while j >= 0 and ATTRIBUTE_LINE.match(raw[j]) and raw[j].strip():
        j -= 1
    if j < 0: return False
    above = raw[j].strip()
    return above.startswith('///') or (above.endswith('*/') and _doc_block(raw, j))


def _doc_block(raw, j):
    while j >= 0:
        if '/**' in raw[j]: return True
        if '/*' in raw[j]: return False
        j -= 1
    return False


def scan(path):
    """(line, kind, qualified name, documented) for each public declaration of a file."""
    text = open(path, encoding='utf-8').read()
    raw = text.split('\n')
    if raw and raw[0].strip().startswith('// DO NOT EDIT'):
        return []
    lines = clean(text).split('\n')
    # Containers: dicts with kind ('file', 'type', 'extension', 'body'), visibility and name.
    stack = [{'kind': 'file', 'visible': True, 'name': '', 'protocol': False, 'enum': False, 'public_ext': False}]
    pending = None
    found = []
    for n, line in enumerate(lines):
        top = stack[-1]
        decl = declaration(line) if top['kind'] != 'body' and all(c['visible'] for c in stack) else None
        if decl:
            access, modifiers, keyword, rest = decl
            name = name_of(keyword, rest)
            public = access in ("public", "open") \
                or (access is None and (top['protocol'] or top['public_ext'] or (keyword == "case" and top['enum'])))
            if keyword == "case" and not top['enum']:
                public = False  # `case` in a switch or an if of a body is never here; in a struct it is not valid
            if keyword in TYPES or keyword == "extension":
                ext_public = keyword == "extension" and access == "public"
                visible = public or (keyword == "extension" and access not in ("private", "fileprivate", "internal", "package"))
                qualified = name if keyword == "extension" else '.'.join(x for x in (top['name'], name) if x)
                pending = {'kind': 'extension' if keyword == "extension" else 'type', 'visible': visible,
                           'name': qualified, 'protocol': keyword == "protocol" and public,
                           'enum': keyword == "enum" and public, 'public_ext': ext_public}
            else:
                pending = None
            if public and keyword != "extension":
                qualified = '.'.join(x for x in (top['name'], name) if x)
                kind = "requirement " + keyword if top['protocol'] and keyword not in TYPES else keyword
                found.append((n + 1, kind, qualified, documented(raw, n), raw_c_types(lines, n)))
        for ch in line:
            if ch == '{':
                stack.append(pending or {'kind': 'body', 'visible': True, 'name': top['name'],
                                         'protocol': False, 'enum': False, 'public_ext': False})
                pending = None
            elif ch == '}' and len(stack) > 1:
                stack.pop()
    return found


def target_of(path):
    parts = os.path.normpath(path).split(os.sep)
    for root in ("Sources", "Plugins"):
        if root in parts:
            i = parts.index(root)
            if i + 1 < len(parts) - 1: return '/'.join(parts[i:i + 2])
    return os.path.dirname(path) or path


def files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, names in os.walk(p):
            dirs.sort()
            for name in sorted(names):
                full = os.path.join(root, name)
                if name.endswith('.swift') and not any(s in '/' + full for s in SKIP):
                    yield full


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='exit 1 when any declaration is undocumented')
    ap.add_argument('--summary', action='store_true', help='print only the count per target')
    ap.add_argument('paths', nargs='+')
    args = ap.parse_args()
    counts = {}
    missing = raw = 0
    for path in files(args.paths):
        SWIFT_NAMES.update(re.findall(r'\b(?:struct|class|enum|protocol|actor|typealias)\s+(G\w+)', open(path, encoding='utf-8').read()))
    for path in files(args.paths):
        target = target_of(path)
        total, undocumented = counts.get(target, (0, 0))
        for line, kind, name, ok, c_types in scan(path):
            total += 1
            if not ok:
                undocumented += 1
                missing += 1
                if not args.summary:
                    print(f"{path}:{line}: {kind} {name}")
            if c_types:
                raw += 1
                print(f"{path}:{line}: {kind} {name} shows raw C type(s) {', '.join(c_types)}: make it package, or wrap them")
        counts[target] = (total, undocumented)
    for target in sorted(counts):
        total, undocumented = counts[target]
        print(f"{target}: {undocumented} undocumented of {total} public declarations")
    if args.check and (missing or raw):
        if missing: print(f"undocumented.py: {missing} public declaration(s) without a /// doc comment", file=sys.stderr)
        if raw: print(f"undocumented.py: {raw} public declaration(s) with raw C types", file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
