"""ncu_lines — where a kernel's warps stall, by source line, from Nsight
Compute's source page: the ranking of `tile profile` (python/tile/profile.py,
whose parse this uses) as a short list, for scripts/gpu-profile.sh.

    python3 bench/ncu_lines.py SOURCE.csv [TOP]

SOURCE.csv is `ncu --import R.ncu-rep --page source --csv --print-source
cuda,sass` (scripts/gpu-profile.sh writes it as ncu/source-lines.csv; the
kernels need line info: tilec -g). For each function in it: the share of
all warp-stall samples on each source line, the TOP lines (default 8)
with the four largest stall reasons of each (tile.profile.REASONS says
what each means). `python -m tile profile --csv SOURCE.csv` prints the
same samples beside the source text.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
from tile.profile import SAMPLES, functions, report  # noqa: E402,F401


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    top = int(argv[2]) if len(argv) > 2 else 8
    for name, hdr, rows, _path in functions(argv[1]):
        if SAMPLES in hdr:
            print("\n".join(report(name, hdr, rows, top)))


if __name__ == "__main__":
    main(sys.argv)
