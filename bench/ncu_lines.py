"""ncu_lines — where a kernel's warps stall, by source line, from Nsight
Compute's source page.

    python3 bench/ncu_lines.py SOURCE.csv [TOP]

SOURCE.csv is `ncu --import R.ncu-rep --page source --csv --print-source
cuda,sass` (scripts/gpu-profile.sh writes it as ncu/source-lines.csv; the
kernels need line info: tilec -g). For each function in it: the share of
all warp-stall samples on each source line, the TOP lines (default 8)
with the four largest stall reasons of each (barrier, short_sb = waiting
for shared memory or ldmatrix, long_sb = global memory or cp.async, wait =
fixed-latency dependencies, math = a busy pipe, mio = the memory
instruction queue, ...).
"""
import csv
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"


def functions(path):
    """[(function name (source file), header, rows)] of one source-page
    CSV: one entry per profiled launch and source file."""
    out, name, hdr, file = [], None, None, ""
    for r in csv.reader(open(path, newline="")):
        if not r:
            continue
        if r[0] == "File Path":
            file = r[1].rsplit("/", 1)[-1]
        elif r[0] == "Function Name":
            name, hdr = f"{r[1]} ({file})", None
        elif r[0] == "Line No":
            hdr = r
            out.append((name, hdr, []))
        elif hdr and r[0].isdigit() and len(r) == len(hdr):
            out[-1][2].append(r)
    return out


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


def report(name, hdr, rows, top):
    ix = hdr.index(SAMPLES)
    reasons = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
    total = sum(num(r[ix]) for r in rows)
    lines = [f"{name}: {total:.0f} stall samples"]
    for r in sorted(rows, key=lambda r: -num(r[ix]))[:top]:
        if not total or not num(r[ix]):
            break
        big = sorted(((num(r[i]), hdr[i][6:]) for i in reasons), reverse=True)[:4]
        lines.append(f"  line {r[0]:>4} {100 * num(r[ix]) / total:5.1f}%  {r[1].strip()[:56]:56s}  "
                     + " ".join(f"{k}={v:.0f}" for v, k in big if v))
    return lines


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    top = int(argv[2]) if len(argv) > 2 else 8
    for name, hdr, rows in functions(argv[1]):
        if SAMPLES in hdr:
            print("\n".join(report(name, hdr, rows, top)))


if __name__ == "__main__":
    main(sys.argv)
