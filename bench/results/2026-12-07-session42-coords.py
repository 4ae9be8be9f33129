"""Session 42: TMA copies' coordinates computed before the product's
wait (lw_pipe_prepare_copy) against after the barrier (the tilec before
it), examples/matmul.tile f16 128x256x64, 8 warps: s3/s4 (3/4 stages),
p3 (--persistent, 3 stages), each `old` and `new`, and p4new
(--persistent, 4 stages: the epilogue's conversion in two pieces), beside
cuBLAS.
Outputs poisoned and checked against float64 first, then best of three
alternated do_bench medians, µs.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR"""
import os
import sys

import torch
import tile
from abtime import mm_table

d = sys.argv[1]
names = ("s3old", "s3new", "s4old", "s4new", "p3old", "p3new", "p4new")
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in names}
print(torch.cuda.get_device_name(), flush=True)
shapes = ((4096, 4096, 4096), (8192, 8192, 4096), (4104, 4104, 4104), (4000, 4000, 4000))
mm_table(ks, names, shapes[:2] if os.environ.get("SHAPES") == "short" else shapes)
