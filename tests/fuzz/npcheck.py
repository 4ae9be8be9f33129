#!/usr/bin/env python3
"""npcheck.py — the reference interpreter against an independent model:
numpy (tests/fuzz/npsem.py) evaluating the same generated programs.

    npcheck.py [-d DIR] [-v] SEED_FROM SEED_TO

For each seed, tests/fuzz/tilegen.py --numpy writes DIR/nSEED.tile
(element-wise, masked-load, reduction, scan and shape kernels of one
program, grid(1)) and DIR/nSEED.py, the same statements over numpy arrays.
Every // diff: case of every kernel runs twice on the same random inputs:
through the `tile` package in interpreter mode (libtilec, ctypes) and
through the numpy model; then every buffer is compared: integers and
bools bit for bit, floats within the case's atol.BUF (from the
generator's error bound: the model sums in float64 in another order, and
its fma rounds twice) or exactly, NaN matching NaN and -0 matching +0.
Output buffers start poisoned (the same bytes on both sides), so a store
to an element the model leaves alone differs too.

Needs numpy and the `tile` package (python/; the library found as for
python/run-tests: TILE_LIBDIR). Exit: 0 all agree, 1 a difference or an
error (seed, kernel and elements printed), 77 numpy or libtilec missing.
"""
import argparse
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
except ImportError:
    print('npcheck.py: numpy missing; skipped')
    sys.exit(77)
try:
    import tile
    import npsem
except ImportError as e:
    print('npcheck.py: %s; skipped' % e)
    sys.exit(77)

INTS = ('i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64')


def cases_of(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith('// diff:'):
                w = line.split()
                out.append((w[2], dict(x.split('=', 1) for x in w[3:])))
    return out


def make_args(params, case, rng):
    """The arguments: scalars from the case, buffers random or poisoned."""
    args = []
    dflt = int(case.get('len', 1024))
    for name, ty in params:
        if not ty.startswith('*'):
            v = case[name]
            args.append(float(v) if ty in npsem.FLOATS else int(v))
            continue
        t = ty[1:]
        n = int(case.get('len.' + name, dflt))
        dt = npsem.NP[t]
        if name.startswith('out'):
            a = np.frombuffer(bytes([0x5b]) * (n * np.dtype(dt).itemsize), dtype=dt).copy()
        elif t in npsem.FLOATS:
            lo, hi = map(float, case.get('range.' + name, case.get('range', '-4,4')).split(','))
            a = npsem.fin(rng.uniform(lo, hi, n), t).astype(dt)
        elif t == 'bool':
            a = rng.integers(0, 2, n).astype(np.bool_)
        else:
            r = case.get('range.' + name, case.get('range'))
            if r:
                lo, hi = map(int, r.split(','))
                a = rng.integers(lo, hi + 1, n).astype(dt)
            else:
                a = rng.integers(0, 256, n * np.dtype(dt).itemsize, dtype=np.uint8).view(dt).copy()
        args.append(a)
    return args


def compare(name, t, got, want, atol):
    """Indices where the interpreter (got) and the model (want) differ."""
    if t in npsem.FLOATS:
        g, w = got.astype(np.float64), want.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(w)
        with np.errstate(all='ignore'):
            ok = both_nan | (g == w) | (np.abs(g - w) <= atol)
        return np.nonzero(~ok)[0]
    return np.nonzero(got != want)[0]


def check_seed(seed, d, verbose):
    tpath, ppath = os.path.join(d, 'n%d.tile' % seed), os.path.join(d, 'n%d.py' % seed)
    subprocess.run([sys.executable, os.path.join(HERE, 'tilegen.py'), '--seed', str(seed),
                    '--numpy', ppath, '-o', tpath], check=True)
    spec = importlib.util.spec_from_file_location('n%d' % seed, ppath)
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    try:
        mod = tile.compile(tpath, interpret=True)
    except tile.TileError as e:
        print('FAIL seed %d: does not compile: %s' % (seed, e))
        return 0, 1
    runs = fails = 0
    for ci, (kname, case) in enumerate(cases_of(tpath)):
        fn, params = model.KERNELS[kname]
        rng = np.random.default_rng([seed, ci])
        args = make_args(params, case, rng)
        margs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        runs += 1
        what = 'seed %d %s case %d (%s)' % (seed, kname, ci, tpath)
        try:
            mod[kname](*args)
        except tile.TileError as e:
            print('FAIL %s: interpreter: %s' % (what, e))
            fails += 1
            continue
        try:
            with np.errstate(all='ignore'):
                fn(*margs)
        except Exception as e:   # a model error is a failure of the test itself
            print('FAIL %s: numpy model: %s: %s' % (what, type(e).__name__, e))
            fails += 1
            continue
        bad = []
        for (name, ty), a, m in zip(params, args, margs):
            if not ty.startswith('*'):
                continue
            idx = compare(name, ty[1:], a, m, float(case.get('atol.' + name, 0)))
            if len(idx):
                bad.append((name, idx, a, m))
        if bad:
            fails += 1
            print('FAIL %s' % what)
            for name, idx, a, m in bad:
                for i in idx[:6]:
                    print('  %s[%d]: interpreter %r, numpy %r' % (name, i, a[i], m[i]))
                print('  %s: %d element(s) differ' % (name, len(idx)))
        elif verbose:
            print('ok   %s' % what)
    return runs, fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-d', '--dir', default='npcheck')
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('seed_from', type=int)
    ap.add_argument('seed_to', type=int)
    a = ap.parse_args()
    try:
        tile.compile  # the library loads lazily: try one compile
        os.makedirs(a.dir, exist_ok=True)
        probe = os.path.join(a.dir, 'probe.tile')
        with open(probe, 'w') as f:
            f.write('kernel k(o: *i32) grid(1) { store(o, 1); }\n')
        tile.compile(probe, interpret=True)
    except tile.LibraryNotFoundError as e:
        print('npcheck.py: %s; skipped' % e)
        return 77
    runs = fails = 0
    for s in range(a.seed_from, a.seed_to + 1):
        r, f = check_seed(s, a.dir, a.verbose)
        runs += r
        fails += f
    print('npcheck: seeds %d..%d: %d case runs, %d differ' % (a.seed_from, a.seed_to, runs,
                                                              fails))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
