"""tile profile — where a kernel's warps stall, line by line of its .tile
source, from Nsight Compute.

    python -m tile profile [options] SCRIPT.py [ARGS...]   (or: tile profile)
    python -m tile profile [options] -- PROGRAM [ARGS...]
    python -m tile profile --import REPORT.ncu-rep
    python -m tile profile --csv SOURCE.csv

The first two run the script (with this Python) or the program under
`ncu` with the source-counter and warp-state sections, profiling at most
--count launches of the kernels whose function names match --kernels
(default: every Tile kernel, named NAME__cN__VARIANT); the environment
gets TILE_DEBUG=1, so that tile.compile builds with -g and the kernels
carry line info (bundles loaded with tile.load need `tilec -g`). Then, as
for --import, the report's source page is exported (`ncu --import R
--page source --csv --print-source cuda,sass`) and, as for --csv, read:
for each kernel function and source file, every line's share of the
function's warp-stall samples and its main stall reasons, printed beside
the source text (the hot region of the file; --full: all of it), then a
legend of the reasons that appear.

The parse (functions, line_table) and the ranking (report) are also what
bench/ncu_lines.py prints for scripts/gpu-profile.sh.
"""

import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile

SAMPLES = "Warp Stall Sampling (All Samples)"
TILE_KERNELS = "regex:__c[0-9]+__"

# Nsight Compute's warp-stall reasons (the source page's stall_* columns,
# as ncu 2025.3 names them).
REASONS = {
    "barrier": "waiting at a barrier (bar.sync)",
    "branch_resolving": "waiting for a branch target",
    "dispatch": "the dispatcher held the warp back",
    "drain": "draining memory stores at exit",
    "imc": "waiting for the immediate constant cache",
    "lg": "the local/global memory queue is full",
    "long_sb": "waiting for global or local memory (long scoreboard)",
    "math": "a math pipe is busy",
    "membar": "waiting at a memory barrier",
    "mio": "the memory input/output queue is full (shared memory, special math)",
    "misc": "miscellaneous",
    "no_inst": "no instruction to issue (instruction cache)",
    "not_selected": "eligible, but another warp issued",
    "selected": "issuing (not a stall)",
    "short_sb": "waiting for shared memory or ldmatrix (short scoreboard)",
    "sleep": "sleeping (nanosleep)",
    "tex": "the texture pipe is full",
    "wait": "a fixed-latency dependency",
}


def functions(path):
    """[(function name (source file), header, rows, file path)] of one
    source-page CSV: one entry per profiled launch and source file."""
    out, name, hdr, file = [], None, None, ""
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if not r:
                continue
            if r[0] == "File Path":
                file = r[1]
            elif r[0] == "Function Name":
                name, hdr = f"{r[1]} ({file.rsplit('/', 1)[-1]})", None
            elif r[0] == "Line No":
                hdr = r
                out.append((name, hdr, [], file))
            elif hdr and r[0].isdigit() and len(r) == len(hdr):
                out[-1][2].append(r)
    return out


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


def _reasons(hdr):
    """{column index: reason} of the stall columns (not the not-issued ones)."""
    return {i: h[6:] for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h}


def report(name, hdr, rows, top):
    """The TOP lines of one function by stall samples, with their four main
    reasons, after a header line with the total."""
    ix = hdr.index(SAMPLES)
    reasons = _reasons(hdr)
    total = sum(num(r[ix]) for r in rows)
    lines = [f"{name}: {total:.0f} stall samples"]
    for r in sorted(rows, key=lambda r: -num(r[ix]))[:top]:
        if not total or not num(r[ix]):
            break
        big = sorted(((num(r[i]), k) for i, k in reasons.items()), reverse=True)[:4]
        lines.append(f"  line {r[0]:>4} {100 * num(r[ix]) / total:5.1f}%  {r[1].strip()[:56]:56s}  "
                     + " ".join(f"{k}={v:.0f}" for v, k in big if v))
    return lines


class LineTable:
    """One kernel function's samples in one source file, summed over its
    profiled launches: per line, the samples and the samples per reason."""

    def __init__(self, name, path):
        self.name, self.path = name, path
        self.launches = 0
        self.samples = {}     # line -> samples
        self.reasons = {}     # line -> {reason: samples}
        self.text = {}        # line -> source text as ncu gave it

    def add(self, hdr, rows):
        ix = hdr.index(SAMPLES)
        reasons = _reasons(hdr)
        self.launches += 1
        for r in rows:
            line = int(r[0])
            self.text.setdefault(line, r[1])
            self.samples[line] = self.samples.get(line, 0.0) + num(r[ix])
            per = self.reasons.setdefault(line, {})
            for i, k in reasons.items():
                per[k] = per.get(k, 0.0) + num(r[i])

    @property
    def total(self):
        return sum(self.samples.values())

    def main_reasons(self, line, n=3):
        per = self.reasons.get(line, {})
        return [(k, v) for v, k in sorted(((v, k) for k, v in per.items()), reverse=True)[:n] if v]


def line_tables(entries):
    """LineTable per (function, file) of functions()'s entries that have
    samples, in their first order."""
    tables = {}
    for name, hdr, rows, path in entries:
        if SAMPLES not in hdr:
            continue
        t = tables.get(name)
        if t is None:
            t = tables[name] = LineTable(name, path)
        t.add(hdr, rows)
    return list(tables.values())


def _source_lines(t):
    """The file's lines (1-based dict), read from disk where it is, else
    the lines ncu quoted."""
    try:
        with open(t.path, encoding="utf-8", errors="replace") as f:
            return {i: s.rstrip("\n") for i, s in enumerate(f, 1)}
    except OSError:
        return dict(t.text)


def _shown(lines, hot, context, full):
    """The line numbers to print: all, or those within `context` of a hot
    line; None marks an elided gap."""
    if full or not hot:
        return sorted(lines)
    keep = sorted({n for h in hot for n in range(h - context, h + context + 1) if n in lines})
    out = []
    for n in keep:
        if out and n != out[-1] + 1:
            out.append(None)
        out.append(n)
    return out


def annotate(t, context=2, full=False, width=64):
    """The source listing of one LineTable: share, line number, text, main
    reasons."""
    total = t.total
    launches = f"{t.launches} launch{'es' if t.launches != 1 else ''}"
    out = [f"{t.name}: {total:.0f} stall samples over {launches} -- {t.path}",
           f"{'share':>6}  {'line':>4}  {'source':{width}}  main stall reasons (samples)"]
    lines = _source_lines(t)
    hot = [n for n, s in t.samples.items() if s and n in lines]
    for n in _shown(lines, hot, context, full):
        if n is None:
            out.append(f"{'':6}  {'...':>4}")
            continue
        s = t.samples.get(n, 0.0)
        share = f"{100 * s / total:5.1f}%" if s and total else ""
        why = " ".join(f"{k}={v:.0f}" for k, v in t.main_reasons(n)) if s else ""
        out.append(f"{share:>6}  {n:>4}  {lines[n][:width]:{width}}  {why}".rstrip())
    return out


def legend(tables):
    seen = sorted({k for t in tables for per in t.reasons.values() for k, v in per.items() if v})
    return [f"  {k:16} {REASONS.get(k, '')}".rstrip() for k in seen]


def print_csv(path, context=2, full=False, out=None):
    """Prints the annotated sources of an exported source page (on `out`,
    default stdout); returns the number of functions with samples."""
    out = out or sys.stdout
    tables = line_tables(functions(path))
    for t in tables:
        print("\n".join(annotate(t, context, full)) + "\n", file=out)
    if tables:
        print("stall reasons:\n" + "\n".join(legend(tables)), file=out)
    else:
        print("tile profile: no warp-stall samples by source line in the report: were the kernels "
              "built with line info (tilec -g; tile.compile under `tile profile` is) and matched "
              "by --kernels?", file=out)
    return len(tables)


def find_ncu():
    """$NCU, ncu on PATH, or the CUDA toolkit's; None when none is there."""
    cands = [os.environ.get("NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu"]
    cands += sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True)
    return next((c for c in cands if c and os.access(c, os.X_OK)), None)


def ncu_command(ncu, report, target, kernels, count):
    """The ncu command line that profiles `target` (a .py script, run with
    this Python, or a program with its arguments) into `report`."""
    if target[0].endswith(".py"):
        target = [sys.executable] + target
    return [ncu, "--target-processes", "all", "--clock-control", "none",
            "--kernel-name-base", "function",
            "-k", kernels, "-c", str(count), "--section", "SourceCounters",
            "--section", "WarpStateStats", "--import-source", "yes",
            "-o", report, "-f"] + target


def export_csv(ncu, report, csv_path):
    """Writes the report's source page (CUDA-source view) as CSV."""
    with open(csv_path, "w") as f:
        r = subprocess.run([ncu, "--import", report, "--page", "source", "--csv",
                            "--print-source", "cuda,sass"], stdout=f, stderr=subprocess.PIPE,
                           text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ncu --import {report} failed: {r.stderr.strip()}")


def _args(argv):
    ap = argparse.ArgumentParser(prog="tile profile", description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", "--kernels", default=TILE_KERNELS,
                    help="ncu -k filter of kernel function names (default: Tile's kernels)")
    ap.add_argument("-c", "--count", type=int, default=10, help="launches to profile (default 10)")
    ap.add_argument("-o", "--output", help="keep the ncu report here (a .ncu-rep path)")
    ap.add_argument("--import", dest="imported", metavar="REPORT", help="an existing ncu report")
    ap.add_argument("--csv", help="an exported source page (ncu --page source --csv)")
    ap.add_argument("--context", type=int, default=2, help="lines shown around hot lines")
    ap.add_argument("--full", action="store_true", help="show every line of each source")
    ap.add_argument("target", nargs=argparse.REMAINDER, help="SCRIPT.py [ARGS] or -- PROGRAM [ARGS]")
    a = ap.parse_args(argv)
    if a.target and a.target[0] == "--":
        a.target = a.target[1:]
    if sum(map(bool, (a.target, a.imported, a.csv))) != 1:
        ap.error("give one of: a script or program to run, --import REPORT, --csv FILE")
    return a


def main(argv):
    a = _args(argv)
    if a.csv:
        return 0 if print_csv(a.csv, a.context, a.full) else 1
    ncu = find_ncu()
    if ncu is None:
        print("tile profile: Nsight Compute (ncu) not found: put it on PATH or set NCU",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tile-profile-") as tmp:
        report = a.imported or a.output or os.path.join(tmp, "profile.ncu-rep")
        status = 0
        if a.target:
            env = dict(os.environ, TILE_DEBUG="1")
            status = subprocess.run(ncu_command(ncu, report, a.target, a.kernels, a.count),
                                    env=env).returncode
            if not report.endswith(".ncu-rep"):
                report += ".ncu-rep"
            if not os.path.exists(report):
                print(f"tile profile: ncu wrote no report (exit status {status})", file=sys.stderr)
                return status or 1
        csv_path = os.path.join(tmp, "source.csv")
        try:
            export_csv(ncu, report, csv_path)
        except RuntimeError as e:
            print(f"tile profile: {e}", file=sys.stderr)
            return 1
        found = print_csv(csv_path, a.context, a.full)
    return status or (0 if found else 1)
