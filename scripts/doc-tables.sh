#!/bin/sh
# doc-tables.sh - regenerate the measured tables of the docs from the bench
# scripts (`make doc-tables`), and check the docs' links (`make doc-check`).
#
#   sh scripts/doc-tables.sh [--only REGEX] [FILE...]   regenerate
#   sh scripts/doc-tables.sh --list [FILE...]           list the commands, run nothing
#   sh scripts/doc-tables.sh --check [FILE...]          markers, README length, links
#   sh scripts/doc-tables.sh --paths [FILE...]          repository paths named in
#                                                       backquotes that do not exist
#                                                       (perf's own util/*.c show up too)
# FILE defaults to README.md and doc/*.md.
#
# A generated table sits between two lines:
#
#   <!-- doc-tables: [table=N] CMD -->
#   ...
#   <!-- /doc-tables -->
#
# CMD is run with `sh -c` from the top of the clone (its stderr goes to
# ours); the block becomes "`CMD`, YYYY-MM-DD:", a blank line and CMD's
# stdout - only its N-th table (N-th run of lines starting with `|`) with
# table=N. A command that feeds several blocks runs once per invocation. When
# CMD fails or prints no table, the block is left as it is and the exit status
# is 1. --only REGEX runs only the blocks whose CMD matches REGEX (Python re).
# Needs python3.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
command -v python3 >/dev/null 2>&1 || { echo "doc-tables: needs python3" >&2; exit 2; }
exec python3 - "$@" <<'PY'
import os, re, subprocess, sys, time

OPEN = re.compile(r'^<!-- doc-tables: (?:table=(\d+) )?(.*\S) -->$')
CLOSE = '<!-- /doc-tables -->'
README_MAX = 300

args = sys.argv[1:]
mode, only, files = 'run', None, []
while args:
    a = args.pop(0)
    if a in ('--list', '-n'): mode = 'list'
    elif a == '--check': mode = 'check'
    elif a == '--paths': mode = 'paths'
    elif a == '--only' and args: only = re.compile(args.pop(0))
    elif a in ('-h', '--help'):
        print(open(os.path.join('scripts', 'doc-tables.sh')).read().split('set -u')[0]); sys.exit(0)
    elif a.startswith('-'): sys.exit('doc-tables: unknown option %s' % a)
    else: files.append(a)
if not files:
    files = ['README.md'] + sorted(os.path.join('doc', f) for f in os.listdir('doc') if f.endswith('.md'))

def blocks(lines, path):
    """(open index, close index, table, cmd) of each marked block."""
    out, i = [], 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j] != CLOSE and not OPEN.match(lines[j]): j += 1
            if j == len(lines) or lines[j] != CLOSE:
                raise SystemExit('doc-tables: %s:%d: marker without %s' % (path, i + 1, CLOSE))
            out.append((i, j, int(m.group(1)) if m.group(1) else None, m.group(2)))
            i = j
        elif lines[i] == CLOSE:
            raise SystemExit('doc-tables: %s:%d: %s without a marker' % (path, i + 1, CLOSE))
        i += 1
    return out

def tables(text):
    out, cur = [], []
    for l in text.split('\n'):
        if l.startswith('|'): cur.append(l)
        elif cur: out.append(cur); cur = []
    if cur: out.append(cur)
    return out

# ---- GitHub-style anchors and links, for --check ---------------------------
def slug(h):
    h = re.sub(r'[`*_]|<[^>]*>', '', h.strip().lower())
    h = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', h)
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')

def anchors(path):
    seen, out, fence = {}, set(), False
    for l in open(path, encoding='utf-8'):
        if l.startswith('```'): fence = not fence
        m = not fence and re.match(r'^#{1,6} (.*)', l)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0); seen[s] = n + 1
            out.add(s if n == 0 else '%s-%d' % (s, n))
    return out

def check(files):
    bad = 0
    def err(msg):
        nonlocal bad; bad += 1; print('doc-check: ' + msg)
    if os.path.exists('README.md'):
        n = sum(1 for _ in open('README.md', encoding='utf-8'))
        if n > README_MAX: err('README.md has %d lines (at most %d)' % (n, README_MAX))
        readme = open('README.md', encoding='utf-8').read()
        for f in sorted(os.listdir('doc')):
            if f.endswith('.md') and '(doc/%s' % f not in readme:
                err('README.md does not link doc/%s' % f)
    for path in files:
        text = open(path, encoding='utf-8').read()
        blocks(text.split('\n'), path)
        body = re.sub(r'```.*?```', '', text, flags=re.S)
        body = re.sub(r'^(    |\t).*$', '', body, flags=re.M)     # indented code
        body = re.sub(r'`[^`\n]*`', '', body)
        for m in re.finditer(r'\]\(([^)\s]+)\)', body):
            t = m.group(1)
            if re.match(r'[a-z]+:', t): continue
            f, _, a = t.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), f)) if f else path
            if not os.path.exists(dest):
                err('%s: link to %s: no such file' % (path, t)); continue
            if a and dest.endswith('.md') and a not in anchors(dest):
                err('%s: link to %s: no heading #%s in %s' % (path, t, a, dest))
    return bad

def paths(files):
    bad = 0
    pat = re.compile(r'`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.*-]+)+/?)`')
    for path in files:
        for i, l in enumerate(open(path, encoding='utf-8'), 1):
            for m in pat.finditer(l):
                p = m.group(1)
                if p.startswith(('build/', 'tmp/')) or '*' in p or not re.match(
                        r'(shim|cmd|core|index|perfdata|textsrc|util|tests|fuzz|scripts|examples|doc|mk|pending)/', p):
                    continue
                if not any(os.path.exists(p + x) for x in ('', '.c', '.cc', '.sh', '.py')):
                    bad += 1; print('%s:%d: %s' % (path, i, p))
    return bad

if mode == 'check':
    n = check(files)
    print('doc-check: %s' % ('ok' if n == 0 else '%d problem(s)' % n))
    sys.exit(1 if n else 0)
if mode == 'paths':
    sys.exit(1 if paths(files) else 0)

cache, failed, changed = {}, 0, []
today = time.strftime('%Y-%m-%d', time.gmtime())
for path in files:
    lines = open(path, encoding='utf-8').read().split('\n')
    bl = blocks(lines, path)
    if mode == 'list':
        for i, j, t, cmd in bl:
            print('%s:%d: %s%s' % (path, i + 1, 'table=%d ' % t if t else '', cmd))
        continue
    for i, j, t, cmd in reversed(bl):
        if only and not only.search(cmd): continue
        if cmd not in cache:
            print('doc-tables: %s:%d: running %s' % (path, i + 1, cmd), file=sys.stderr)
            r = subprocess.run(['sh', '-c', cmd], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
            cache[cmd] = (r.returncode, r.stdout.decode('utf-8', 'replace'))
        rc, out = cache[cmd]
        tb = tables(out)
        if rc != 0 or not tb or (t and t > len(tb)):
            failed += 1
            print('doc-tables: %s:%d: %s: %s; block left as it was' % (path, i + 1, cmd,
                  'exit status %d' % rc if rc else 'no table %d in its output' % (t or 1)), file=sys.stderr)
            continue
        new = tb[t - 1] if t else out.strip('\n').split('\n')
        lines[i + 1:j] = ['`%s`, %s:' % (cmd, today), ''] + new + ['']
    if mode == 'run':
        text = '\n'.join(lines)
        if text != open(path, encoding='utf-8').read():
            with open(path + '.tmp', 'w', encoding='utf-8') as f: f.write(text)
            os.replace(path + '.tmp', path)
            changed.append(path)
if mode == 'run':
    print('doc-tables: %d command(s) run, %s%s' % (len(cache), 'changed: ' + ' '.join(changed) if changed else 'nothing changed',
          '; %d block(s) failed' % failed if failed else ''), file=sys.stderr)
sys.exit(1 if failed else 0)
PY
