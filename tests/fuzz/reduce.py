#!/usr/bin/env python3
"""reduce.py — shrinks a failing Tile program (a generated one, or any
file with // diff: cases) to a small reproducer by delta debugging.

    reduce.py FILE.tile -k KERNEL [-c N] [-o OUT.tile] [predicate]

predicate (what "still failing" means; the default is --mismatch):
  --mismatch          tilec builds the program, the simulation builds, the
                      interpreter runs it without error, and difftest
                      (on simulated warps, -s SEED) reports differing
                      elements for KERNEL
  --tilec-error RE    tilec rejects the program with a message matching
                      the regular expression RE (an internal error, a
                      crash: "internal error|Segmentation")
  --cmd 'CMD {}'      a shell command, {} replaced by the candidate's
                      path: exit 0 means still failing

The candidate keeps KERNEL only, with its case line number N (0-based
among KERNEL's cases; default 0). Then, to a fixpoint, each of these is
tried and kept when the predicate still holds:
  - dropping each statement of the kernel (and each store / atomic), in
    chunks first, then one at a time;
  - replacing a `let`'s value, a store's value or mask, or any
    parenthesized or call-argument subexpression, by one of its operands
    or by a constant;
  - shrinking @tune lists to the configuration the case picks, then
    halving block sizes and warps (the case's config= follows);
  - dropping case keys (special=, config=, modes= narrowed to a or u).
Each candidate runs in a scratch directory; the smallest program found is
written to OUT (default FILE.reduced.tile) after every success, so an
interrupted run leaves its best result.

Environment: TILEC, DIFFTEST, TILE_SRCDIR as for gen-run.sh (run from
the build tree), SEED (difftest's, default 1), ARCH (default sm_90).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('TILE_SRCDIR') or os.path.abspath(
    os.path.join(os.path.dirname(__file__), '..', '..'))
TILEC = os.environ.get('TILEC') or os.path.abspath('tilec')
DIFFTEST = os.environ.get('DIFFTEST') or os.path.abspath('tests/gpu/ops/difftest')
SEED = os.environ.get('SEED', '1')
ARCH = os.environ.get('ARCH', 'sm_90')


def split_kernels(text):
    """[(header lines: cases and attributes, kernel text)] and the rest."""
    lines = text.split('\n')
    out, i, pending = [], 0, []
    while i < len(lines):
        l = lines[i]
        if l.startswith('// diff:') or l.startswith('@'):
            pending.append(l)
            i += 1
            continue
        if l.startswith('kernel '):
            body = []
            while i < len(lines):
                body.append(lines[i])
                if lines[i] == '}':
                    break
                i += 1
            out.append((pending, body))
            pending = []
        else:
            pending = [p for p in pending if not p.startswith('@')]
        i += 1
    return out


def kname(body):
    return re.match(r'kernel\s+(\w+)', body[0]).group(1)


class Reducer:
    def __init__(self, args):
        self.a = args
        self.tmp = tempfile.mkdtemp(prefix='tile-reduce-')
        self.n = 0
        self.tries = 0
        if args.mismatch:
            os.makedirs(os.path.join(self.tmp, 'sim'))
            subprocess.run(['sh', os.path.join(SRC, 'tests/gpu/ops/sim/build.sh'), 'lib',
                            os.path.join(self.tmp, 'sim')], check=True)

    def test(self, text):
        """1 when the predicate holds for this program text."""
        self.tries += 1
        self.n += 1
        name = 'r%d' % self.n
        path = os.path.join(self.tmp, name + '.tile')
        with open(path, 'w') as f:
            f.write(text)
        try:
            if self.a.cmd:
                return subprocess.run(self.a.cmd.replace('{}', path), shell=True,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      timeout=300).returncode == 0
            tl = subprocess.run([TILEC, '--arch=' + ARCH, '-o',
                                 os.path.join(self.tmp, name + '.tlb'), path],
                                capture_output=True, text=True, timeout=300)
            if self.a.tilec_error:
                return tl.returncode != 0 and re.search(self.a.tilec_error,
                                                        tl.stderr) is not None
            if tl.returncode != 0:
                return False
            b = subprocess.run(['sh', os.path.join(SRC, 'tests/gpu/ops/sim/build.sh'),
                                'kernel', os.path.join(self.tmp, 'sim'), path, ARCH],
                               capture_output=True, timeout=300)
            if b.returncode != 0:
                return False
            d = subprocess.run([DIFFTEST, '-q', '-s', SEED, '-k', self.a.kernel, '-x',
                                os.path.join(self.tmp, 'sim'), self.tmp, path],
                               capture_output=True, text=True, timeout=300)
            out = d.stdout + d.stderr
            if 'interpreter:' in out or 'does not compile' in out:
                return False
            return re.search(r'element\(s\) differ|guard element', out) is not None
        except subprocess.TimeoutExpired:
            return False
        finally:
            for e in ('.tile', '.tlb'):
                try:
                    os.unlink(os.path.join(self.tmp, name + e))
                except OSError:
                    pass
            for e in ('.so', '.ll', '.host.ll', '.o'):
                try:
                    os.unlink(os.path.join(self.tmp, 'sim', name + e))
                except OSError:
                    pass

    def save(self, text):
        self.best = text
        with open(self.a.output, 'w') as f:
            f.write(text)

    @staticmethod
    def size(text):
        """Smaller is better: the length, then the @tune values' sum."""
        tune = sum(int(x) for l in text.split('\n') if l.startswith('@')
                   for x in re.findall(r'\b\d+\b', l))
        return (len(text), tune)

    def attempt(self, text):
        if self.size(text) < self.size(self.best) and self.test(text):
            self.save(text)
            sys.stderr.write('reduce.py: %d bytes (%d tries)\n' % (len(text), self.tries))
            return True
        return False


def compose(cases, attrs, body):
    return '\n'.join(cases + attrs + body) + '\n'


def parts(text):
    ks = split_kernels(text)
    pend, body = ks[0]
    cases = [p for p in pend if p.startswith('// diff:')]
    attrs = [p for p in pend if p.startswith('@')]
    return cases, attrs, body


def subexprs(s):
    """(start, end) of every balanced (...) group and call argument of s."""
    out = []
    stack = []
    for i, ch in enumerate(s):
        if ch in '([':
            stack.append((i, []))
        elif ch == ',' and stack:
            stack[-1][1].append(i)
        elif ch in ')]' and stack:
            j, commas = stack.pop()
            if s[j] == '(':
                out.append((j, i + 1))
            cuts = [j] + commas + [i]
            if commas:
                for a, b in zip(cuts, cuts[1:]):
                    # a named argument: its value only
                    m = re.match(r'\s*\w+=(?!=)', s[a + 1:b])
                    out.append((a + 1 + (m.end() if m else 0), b))
    return out


def operands(e):
    """Candidate replacements of expression e: its operands, constants."""
    e = e.strip()
    c = []
    inner = e[1:-1] if e.startswith('(') and e.endswith(')') else None
    for a, b in subexprs(e):
        x = e[a:b].strip()
        if x and x != e and '=' not in x.split('(')[0] and not x.startswith('['):
            c.append(x)
    if inner:
        depth = 0
        for i, ch in enumerate(inner):
            depth += ch in '(['
            depth -= ch in ')]'
            if depth == 0 and ch in '+-*/%&|^<>' and 0 < i:
                c += [inner[:i].strip(), inner[i + 1:].strip().lstrip('=<>').strip()]
    c = [x for x in c if x]
    return sorted(set(c), key=len)


def reduce(r, kernel, ncase):
    ks = split_kernels(r.best)
    mine = [(p, b) for p, b in ks if kname(b) == kernel]
    if not mine:
        sys.exit('reduce.py: no kernel %s' % kernel)
    pend, body = mine[0]
    cases = [p for p in pend if p.startswith('// diff:') and p.split()[2] == kernel]
    attrs = [p for p in pend if p.startswith('@')]
    if ncase >= len(cases):
        sys.exit('reduce.py: kernel %s has %d cases' % (kernel, len(cases)))
    one = compose([cases[ncase]], attrs, body)
    if not r.test(one):
        sys.exit('reduce.py: the predicate does not hold for %s case %d alone' % (kernel, ncase))
    r.save(one)
    changed = True
    while changed:
        changed = False
        # 1. statements, in chunks then one by one
        cases, attrs, body = parts(r.best)
        stm = [i for i in range(len(body)) if body[i].startswith('    ')
               and body[i].rstrip().endswith(';') and not body[i].strip().startswith('var ')]
        size = max(1, len(stm) // 2)
        while size >= 1:
            i = 0
            while True:
                cases, attrs, body = parts(r.best)
                stm = [j for j in range(len(body)) if body[j].startswith('    ')
                       and body[j].rstrip().endswith(';')
                       and not body[j].strip().startswith('var ')]
                if i >= len(stm):
                    break
                drop = set(stm[i:i + size])
                nb = [l for j, l in enumerate(body) if j not in drop]
                if r.attempt(compose(cases, attrs, nb)):
                    changed = True
                else:
                    i += size
            size //= 2
        # 2. expressions
        cases, attrs, body = parts(r.best)
        for li in range(len(body)):
            progress = True
            while progress:
                progress = False
                cases, attrs, body = parts(r.best)
                if li >= len(body):
                    break
                line = body[li]
                m = re.match(r'(\s*let \w+ = )(.*)(;\s*)$', line)
                spans = []
                if m:
                    spans.append((len(m.group(1)), len(m.group(1)) + len(m.group(2))))
                for a, b in subexprs(line):
                    spans.append((a, b))
                for a, b in sorted(spans, key=lambda s: s[0] - s[1]):
                    e = line[a:b]
                    for rep in operands(e) + ['0', '0.0', 'true']:
                        if len(rep) >= len(e):
                            continue
                        sep = ' ' if a and line[a - 1] == ',' else ''
                        nl = line[:a] + sep + rep.strip() + line[b:]
                        nb = body[:li] + [nl] + body[li + 1:]
                        if r.attempt(compose(cases, attrs, nb)):
                            changed = progress = True
                            break
                    if progress:
                        break
        # 3. configurations
        cases, attrs, body = parts(r.best)
        case = cases[0]
        cfg = re.search(r'config=(\S+)', case)
        for ai, at in enumerate(attrs):
            if not at.startswith('@tune('):
                continue
            for m in re.finditer(r'(\w+) = \[([^\]]*)\]', at):
                name, vals = m.group(1), [v.strip() for v in m.group(2).split(',')]
                want = None
                if cfg:
                    mm = re.search(r'\b%s=(\d+)' % name, cfg.group(1))
                    want = mm.group(1) if mm else None
                choices = [v for v in ([want] if want else vals[:1]) if v]
                for v in choices + [str(max(1, int(choices[0]) // 2))]:
                    if [v] == vals:
                        continue
                    na = at[:m.start(2)] + v + at[m.end(2):]
                    nc = re.sub(r'\b%s=\d+' % name, '%s=%s' % (name, v), case)
                    if r.attempt(compose([nc], attrs[:ai] + [na] + attrs[ai + 1:], body)):
                        changed = True
                        break
                if changed:
                    break
        # 4. case keys
        cases, attrs, body = parts(r.best)
        case = cases[0]
        for pat, rep in ((r' special=\S+', ''), (r' config=\S+', ''), (r' modes=\S+', ''),
                         (r'$', ' modes=a'), (r'$', ' modes=u')):
            if 'modes=' in case and rep.startswith(' modes'):
                continue
            nc = re.sub(pat, rep, case, count=1)
            if nc != case and r.attempt(compose([nc], attrs, body)):
                changed = True
                case = nc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('file')
    ap.add_argument('-k', '--kernel', required=True)
    ap.add_argument('-c', '--case', type=int, default=0)
    ap.add_argument('-o', '--output')
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--mismatch', action='store_true')
    g.add_argument('--tilec-error', metavar='RE')
    g.add_argument('--cmd')
    a = ap.parse_args()
    if not a.tilec_error and not a.cmd:
        a.mismatch = True
    a.output = a.output or re.sub(r'\.tile$', '', a.file) + '.reduced.tile'
    r = Reducer(a)
    with open(a.file) as f:
        r.best = f.read()
    try:
        reduce(r, a.kernel, a.case)
    finally:
        shutil.rmtree(r.tmp, ignore_errors=True)
    sys.stderr.write('reduce.py: %s: %d bytes after %d tries\n' % (a.output, len(r.best),
                                                                   r.tries))
    sys.stdout.write(r.best)


if __name__ == '__main__':
    main()
