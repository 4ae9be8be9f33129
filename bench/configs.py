"""configs — which Tile bundles the benchmark uses, shared by
bench/build_bundles.py (which builds them where tilec runs) and
bench/bench.py (which loads them on the GPU machine).

Each bundle here but TUNE_BUNDLE holds exactly one configuration (so
libtile has nothing to tune and runs the one named in the row): the
compile-time parameters are given with -D, and the warps by rewriting the
source's @warps(...) or `warps = [...]` (tilec has no -D for warps). The
first Tile configuration of each workload is the one Triton uses in the
same run (same block and warps); the others are there to show how much the
choice matters until the autotuner makes it.
"""

SOFTMAX_N = (1024, 4096, 16384)
LAYERNORM_N = (1024, 4096, 8192)
TRANSPOSE_TILES = ((64, 64, 4), (64, 64, 8), (32, 32, 4), (32, 64, 4))
MATMUL_SIZES = (4096, 8192)
# BM, BN, BK, warps. The two 8-warp tiles of 64x64 per warp came first in
# run 13's sweep once ldmatrix was pipelined against mma.sync (432-438
# TFLOP/s at 4096^3); 128x128x32 with 8 warps (32x64 per warp) lost
# occupancy to that change and left the list.
MATMUL_TILES = ((128, 256, 64, 8), (256, 128, 32, 8), (128, 128, 32, 4), (64, 64, 32, 4))
ATTENTION_D = (64, 128)
# 128x128 with 8 warps: D = 128 ran 1.14x (1.11x causal) faster than 128x64
# on an H100 (session 30's run 1); D = 64 slower (0.94x)
ATTENTION_TILES = ((64, 64, 4), (128, 64, 8), (128, 128, 8))             # BM, BN, warps


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def softmax_warps(block):
    """Triton's tutorial choice, as in the anchors."""
    return 4 if block <= 2048 else (8 if block <= 8192 else 16)


def layernorm_warps(block):
    return min(max(block // 256, 1), 8)


def _tile_bundles():
    """(name, source, kernel, defines, warps or None): one bundle each."""
    out = [("vadd", "examples/vadd.tile", "vadd", {}, None)]
    for t in ("f32", "bf16"):
        for block, w in ((1024, 4), (4096, 8)):
            out.append((f"bias_gelu_{t}_b{block}_w{w}", "examples/bias_gelu.tile", "bias_gelu",
                        {"T": t, "BLOCK": block}, w))
    for t in ("f32", "bf16"):
        for n in SOFTMAX_N:
            block = next_pow2(n)
            ws = [softmax_warps(block)] + [w for w in (4, 8, 16) if w != softmax_warps(block)]
            for w in ws:
                out.append((f"softmax_{t}_{n}_w{w}", "bench/kernels/softmax.tile", "softmax",
                            {"T": t, "BLOCK": block}, w))
    for n in LAYERNORM_N:
        block = next_pow2(n)
        ws = [layernorm_warps(block)] + [w for w in (4, 8, 16) if w != layernorm_warps(block)]
        for w in ws:
            out.append((f"layernorm_f16_{n}_w{w}", "bench/kernels/layernorm.tile", "layernorm",
                        {"T": "f16", "BLOCK": block}, w))
    for bm, bn, w in TRANSPOSE_TILES:
        out.append((f"transpose_{bm}x{bn}_w{w}", "examples/transpose.tile", "transpose",
                    {"BM": bm, "BN": bn}, w))
    # Tensor cores: one tile configuration each (the first `stages` of the
    # source's @tune; 48 KiB of static shared memory at most until the
    # lowering has dynamic shared memory).
    for t in ("f16", "bf16"):
        for bm, bn, bk, w in MATMUL_TILES:
            out.append((f"matmul_{t}_{bm}x{bn}x{bk}_w{w}", "examples/matmul.tile", "matmul",
                        {"T": t, "BM": bm, "BN": bn, "BK": bk}, w))
    for bm, bn, bk, w in MATMUL_TILES:
        out.append((f"mm_bias_relu_{bm}x{bn}x{bk}_w{w}", "examples/matmul_bias_relu.tile",
                    "matmul_bias_relu", {"BM": bm, "BN": bn, "BK": bk}, w))
    # the same in grouped program order (examples/linear_relu.tile), as
    # Triton's fused kernel beside it runs
    for bm, bn, bk, w in MATMUL_TILES:
        out.append((f"linear_relu_{bm}x{bn}x{bk}_w{w}", "examples/linear_relu.tile",
                    "linear_relu", {"BM": bm, "BN": bn, "BK": bk}, w))
    for d in ATTENTION_D:
        for causal in ("false", "true"):
            for bm, bn, w in ATTENTION_TILES:
                out.append((f"attention_d{d}_{'causal' if causal == 'true' else 'full'}"
                            f"_{bm}x{bn}_w{w}", "examples/attention.tile", "attention",
                            {"D": d, "CAUSAL": causal, "BM": bm, "BN": bn}, w))
    return out


TILE_BUNDLES = _tile_bundles()

# Operand layouts of matrix products (bench.py step `mmlayout`, run only
# when named): f32 (TF32) and f16 products with B stored [K, N]
# (examples/matmul.tile, `x @ w`) and [N, K] (bench/kernels/matmul_bt.tile,
# `x @ w.T`, nn.Linear's weight), and A stored [K, M] with B [K, N]
# (bench/kernels/matmul_tn.tile, `x.T @ g`), at n^3 for each n below (4093: the
# generic variant), beside cuBLAS and Triton in the same configurations.
MMLAYOUT_SIZES = (4096, 4093, 8192)
MMLAYOUT_TILES = {"f32": ((128, 128, 32, 4), (128, 256, 32, 8), (64, 128, 32, 4)),
                  "f16": ((128, 256, 64, 8), (128, 128, 64, 8))}


# layout -> (source, kernel): B [K, N]; B [N, K]; A stored [K, M] and
# B [K, N] (x.T @ g, a weight gradient)
MMLAYOUT_KERNELS = (("kn", "examples/matmul.tile", "matmul"),
                    ("nk", "bench/kernels/matmul_bt.tile", "matmul_bt"),
                    ("tn", "bench/kernels/matmul_tn.tile", "matmul_tn"))


def mmlayout_bundle(t, layout, bm, bn, bk, w):
    return f"mml_{t}_{layout}_{bm}x{bn}x{bk}_w{w}"


for _t, _tiles in MMLAYOUT_TILES.items():
    for _bm, _bn, _bk, _w in _tiles:
        for _lay, _src, _kern in MMLAYOUT_KERNELS:
            TILE_BUNDLES.append((mmlayout_bundle(_t, _lay, _bm, _bn, _bk, _w), _src, _kern,
                                 {"T": _t, "BM": _bm, "BN": _bn, "BK": _bk}, _w))

# FP8 products (bench.py step `fp8mm`, run only when named): e4m3 A [n, n]
# times B stored [N, K] (bench/kernels/matmul_f8.tile), bf16 out, beside
# torch._scaled_mm (cuBLAS) and Triton in the same configurations.
FP8MM_SIZES = (4096, 8192)
FP8MM_TILES = ((128, 256, 128, 8, 3), (128, 256, 128, 8, 4), (128, 128, 128, 8, 3),
               (128, 128, 128, 8, 4), (128, 128, 128, 8, 5), (64, 256, 128, 4, 4))


def fp8mm_bundle(bm, bn, bk, w, s):
    return f"mm_f8_{bm}x{bn}x{bk}_w{w}_s{s}"


for _bm, _bn, _bk, _w, _s in FP8MM_TILES:
    TILE_BUNDLES.append((fp8mm_bundle(_bm, _bn, _bk, _w, _s), "bench/kernels/matmul_f8.tile",
                         "matmul_f8", {"BM": _bm, "BN": _bn, "BK": _bk}, _w, _s))

# The shape sweep (bench.py step `shapes`, issue 13): each workload at
# sizes around a power of two or a model size — n-3, n-1, n, n+1, n+3,
# n+8 — and attention at the sequence lengths users run, Tile and Triton
# in the same configuration (the first of each workload above; a row
# longer than the block takes the next power of two, as @require would
# have it choose). SHAPES_BUNDLES adds the one configuration that list
# lacks (softmax f32 BLOCK=8192 for rows of 4097..4104).
SHAPES_OFFSETS = (-3, -1, 0, 1, 3, 8)
SHAPES_N1D = 1 << 24                   # vadd, bias_gelu: elements
SHAPES_ROWS = 4096                     # softmax, layernorm: rows x cols
SHAPES_ROW_COUNTS = (1000, 1008, 4097)  # ...and other row counts at cols 4096
# (rows 1000's aligned neighbour is 1008, 4097's is 4096)
SHAPES_TRANSPOSE = 8192
SHAPES_MATMUL = 4096                   # n^3 around it, then M alone (N = K = n)
SHAPES_MATMUL_TILE = MATMUL_TILES[0]
# a language model's head, x @ W.T with W [vocab, hidden] as nn.Linear
# keeps it (bench/kernels/matmul_bt.tile): tokens, hidden, then GPT-2's
# vocabulary of 50257 words beside the 50304 that nanoGPT pads it to (the
# aligned neighbour), in SHAPES_MATMUL_TILE
SHAPES_LM_HEAD = (4096, 768, (50257, 50304))
SHAPES_ATTENTION_S = (1000, 1008, 1023, 1024, 2000, 2048, 4095, 4096)
SHAPES_ATTENTION_TILE = (128, 64, 8)   # BM, BN, warps (D=64, not causal)
# cross-entropy (examples/cross_entropy.tile, one program per row walking
# the vocabulary in BLOCK chunks twice): rows of a batch of tokens, the
# vocabulary around Llama's 32000
SHAPES_XENT_ROWS = 4096
SHAPES_XENT_VOCAB = 32000
SHAPES_XENT_TILE = (4096, 8)           # BLOCK, warps
SHAPES_BUNDLES = [("shapes_softmax_f32_b8192_w8", "bench/kernels/softmax.tile", "softmax",
                   {"T": "f32", "BLOCK": 8192}, 8),
                  ("shapes_xent_b4096_w8", "examples/cross_entropy.tile", "cross_entropy",
                   {"BLOCK": 4096}, 8)]
TILE_BUNDLES += SHAPES_BUNDLES

# Autotuning wall time (bench.py step `tune`): examples/softmax.tile as it
# is, with all its configurations (@tune: 7 BLOCKs x 3 warps), f32. The
# number of candidates of a launch is the configurations whose
# @require(BLOCK >= cols) holds, so each row length below is a new key
# with its own candidate count.
TUNE_BUNDLE = "softmax_tune"
TUNE_ROWS = 4096
TUNE_COLS = (1000, 4000, 16000)
TILE_BUNDLES.append((TUNE_BUNDLE, "examples/softmax.tile", "softmax", {}, None))

# Column sums (bench.py step `colsum`, run only when named; issue 13's
# "reductions across rows"): bench/kernels/colsum.tile at each (rows,
# cols) of COLSUM_SHAPES, f32 and f16 inputs (sums in f32), one bundle
# per (T, BM, BN, warps) of COLSUM_TILES, Triton's same algorithm at the
# same BM, BN and warps beside each. Every tile keeps the carried
# [BM, BN] accumulator within plan/carry_reduce.c's 64 registers a thread.
COLSUM_SHAPES = ((8192, 4096), (100000, 256))
COLSUM_TYPES = ("f32", "f16")
COLSUM_TILES = ((64, 32, 4), (128, 32, 8), (256, 32, 8), (32, 64, 4), (256, 16, 8))


def colsum_bundle(t, bm, bn, w):
    return f"colsum_{t}_{bm}x{bn}_w{w}"


TILE_BUNDLES.extend((colsum_bundle(t, bm, bn, w), "bench/kernels/colsum.tile", "colsum",
                     {"T": t, "BM": bm, "BN": bn}, w)
                    for t in COLSUM_TYPES for bm, bn, w in COLSUM_TILES)

# Issue 17's user kernels (bench.py step `user`, run only when named;
# bench/user_bench.py): each workload's Tile variants, one bundle each,
# as (label, source, kernel, defines, warps). Every variant of a workload
# takes the same parameters (bench/kernels/user_*.tile), so a new one --
# the 5120-column RMSNorm in one [5120] tile, say -- is one more entry
# in its list (user_bench.py launches it, checks it and times it beside
# the others). The shapes and the Triton variants are in user_bench.py.
USER_TILES = {
    "rope": [("BH=32 HALF=64 w4", "bench/kernels/user_rope.tile", "rope",
              {"BH": 32, "HALF": 64}, 4)],
    "gelu_bwd": [("BLOCK=1024 w4", "bench/kernels/user_gelu_bwd.tile", "gelu_bwd",
                  {"BLOCK": 1024}, 4)],
    "top1": [("BLOCK=4096 w8", "bench/kernels/user_top1.tile", "top1", {"BLOCK": 4096}, 8)],
    "rmsnorm": [("loop BLOCK=1024 w4", "bench/kernels/user_rmsnorm.tile", "add_rmsnorm",
                 {"BLOCK": 1024}, 4),
                ("loop BLOCK=2048 w8", "bench/kernels/user_rmsnorm.tile", "add_rmsnorm",
                 {"BLOCK": 2048}, 8),
                ("tile BLOCK=8192 w8", "bench/kernels/user_rmsnorm_tile.tile",
                 "add_rmsnorm_tile", {"BLOCK": 8192}, 8),
                ("tile BLOCK=8192 w16", "bench/kernels/user_rmsnorm_tile.tile",
                 "add_rmsnorm_tile", {"BLOCK": 8192}, 16),
                # one [5120] tile, not a power of two (issue 17 item 6)
                ("tile N=5120 w8", "bench/kernels/user_rmsnorm_row.tile", "add_rmsnorm_row",
                 {"N": 5120}, 8),
                ("tile N=5120 w16", "bench/kernels/user_rmsnorm_row.tile", "add_rmsnorm_row",
                 {"N": 5120}, 16)],
    # rows of 80: one [96, 80] tile (issue 17 item 6) against power-of-two
    # tiles with a column mask
    "softmax_rows": [("96x80 w4", "bench/kernels/user_softmax_rows.tile", "softmax_rows",
                      {"BM": 96, "N": 80}, 4),
                     ("96x80 w8", "bench/kernels/user_softmax_rows.tile", "softmax_rows",
                      {"BM": 96, "N": 80}, 8),
                     ("64x128 w4", "bench/kernels/user_softmax_rows_pow2.tile",
                      "softmax_rows_pow2", {"BM": 64, "BN": 128}, 4),
                     ("128x128 w8", "bench/kernels/user_softmax_rows_pow2.tile",
                      "softmax_rows_pow2", {"BM": 128, "BN": 128}, 8)],
    "swiglu": [("128x128x32 w8", "bench/kernels/user_swiglu.tile", "swiglu",
                {"BM": 128, "BN": 128, "BK": 32}, 8),
               ("128x64x32 w4", "bench/kernels/user_swiglu.tile", "swiglu",
                {"BM": 128, "BN": 64, "BK": 32}, 4),
               ("64x64x32 w4", "bench/kernels/user_swiglu.tile", "swiglu",
                {"BM": 64, "BN": 64, "BK": 32}, 4)],
    "quant_i8": [("BLOCK=4096 w8", "bench/kernels/user_quant_i8.tile", "quant_i8",
                  {"BLOCK": 4096}, 8)],
    "quant_f8": [("BLOCK=4096 w8", "bench/kernels/user_quant_f8.tile", "quant_f8",
                  {"BLOCK": 4096}, 8),
                 ("BLOCK=4096 w4", "bench/kernels/user_quant_f8.tile", "quant_f8",
                  {"BLOCK": 4096}, 4)],
    "cumsum": [("BLOCK=1024 w4", "bench/kernels/user_cumsum.tile", "row_cumsum",
                {"BLOCK": 1024}, 4)],
    # examples/stencil.tile as written (helpers at shifted coordinates)
    "heat2": [("16x32 w4", "examples/stencil.tile", "heat2", {"BM": 16, "BN": 32}, 4),
              ("32x64 w4", "examples/stencil.tile", "heat2", {"BM": 32, "BN": 64}, 4)],
    "jacobi": [("16x32 w4", "examples/stencil.tile", "jacobi", {"BM": 16, "BN": 32}, 4),
               ("32x64 w4", "examples/stencil.tile", "jacobi", {"BM": 32, "BN": 64}, 4)],
}


def user_bundle(work, label):
    """The bundle name of a USER_TILES variant."""
    return "user_" + work + "_" + "".join(c if c.isalnum() else "_" for c in label)


TILE_BUNDLES.extend((user_bundle(w, v[0]),) + v[1:] for w, vs in USER_TILES.items() for v in vs)

# The tensor-core sweep (bench.py step `sweep`, not among the default
# steps; bundles only with build_bundles.py --sweep): more tile shapes,
# warps and stages of matmul f16 at MATMUL_SIZES, beside cuBLAS and Triton
# both as it compiles for the H200 (wgmma) and with DISABLE_MMA_V3=1
# (mma.sync, what Tile emits), and attention D=64 tiles. Each bundle has
# exactly one configuration: stages fixed in the source like warps.
SWEEP_MATMUL = ((128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 3),
                (128, 128, 64, 8, 4), (128, 128, 64, 4, 4), (256, 128, 64, 8, 3),
                (256, 128, 64, 8, 4), (128, 256, 32, 8, 4), (64, 256, 64, 4, 4))
SWEEP_ATTENTION = ((64, 64, 4, 2), (64, 64, 4, 3), (128, 64, 8, 2), (128, 128, 8, 2))
SWEEP_ATTENTION_D = 64


def _sweep_bundles():
    """(name, source, kernel, defines, warps, stages)."""
    out = []
    for bm, bn, bk, w, s in SWEEP_MATMUL:
        out.append((f"sweep_matmul_f16_{bm}x{bn}x{bk}_w{w}_s{s}", "examples/matmul.tile",
                    "matmul", {"T": "f16", "BM": bm, "BN": bn, "BK": bk}, w, s))
    for causal in ("false", "true"):
        for bm, bn, w, s in SWEEP_ATTENTION:
            out.append((f"sweep_attention_d{SWEEP_ATTENTION_D}_"
                        f"{'causal' if causal == 'true' else 'full'}_{bm}x{bn}_w{w}_s{s}",
                        "examples/attention.tile", "attention",
                        {"D": SWEEP_ATTENTION_D, "CAUSAL": causal, "BM": bm, "BN": bn}, w, s))
    return out


SWEEP_BUNDLES = _sweep_bundles()

# Tile's compile time is measured where tilec runs, on this one
# configuration (bench/compile_time.sh).
COMPILE_TIME_BUNDLE = "softmax_f32_1024_w4"
