"""test_charts — bench/charts.py on fake rows, without a GPU.

    python3 bench/test_charts.py [OUTDIR]

Checks what the charts are drawn from (always), then draws both PNGs into
OUTDIR (default: a temporary directory) when matplotlib is importable.
Exit 0: passed; 1: failed; 77: matplotlib missing, the drawing skipped
(the data checks passed).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import charts  # noqa: E402


def r(work, system, ms, gbs=None, ok=True, tflops=None):
    d = dict(work=work, system=system, ms=ms, gbs=gbs, note="", ok=ok)
    if tflops is not None:
        d["tflops"] = tflops
    return d


ROWS = [
    r("copy 1 GiB fp32", "torch copy_ (D2D)", 0.2, 4000.0),
    r("vadd fp32 2^28", "torch eager", 1.0, 3500.0),
    r("vadd fp32 2^28", "triton BLOCK=1024 w4", 1.0, 3600.0),
    r("vadd fp32 2^28", "tile BLOCK=1024 w4", 1.0, 3550.0),
    r("softmax f32 4096x1024", "torch eager", 1.0, 2000.0),
    r("softmax f32 4096x1024", "torch.compile", 1.0, 2500.0),
    r("softmax f32 4096x1024", "triton BLOCK=1024 w4", 1.0, 2900.0),
    r("softmax f32 4096x1024", "tile BLOCK=1024 w4", 1.0, 2700.0),
    r("softmax f32 4096x1024", "tile BLOCK=1024 w8", 1.0, 3100.0),
    r("softmax f32 4096x1024", "tile BLOCK=1024 w16", 1.0, 9999.0, ok=False),
    r("transpose fp32 8192^2", "tile 64x64 w4", 1.0, 3000.0),
    r("launch vadd 1 block (host)", "tile_launch via ctypes", 0.003),
    r("100 tiny launches, eager", "tile", 0.4),
    r("softmax one config, compile", "triton first call (empty cache)", 900.0),
    r("autotune softmax f32 4096x1000", "tile first launch (tuning)", 300.0),
    r("matmul f16 4096^3", "torch.matmul (cuBLAS)", 0.2, tflops=700.0),
    r("matmul f16 4096^3", "triton 128x128x32 w8 s3", 0.25, tflops=560.0),
    r("matmul f16 4096^3", "tile 128x128x32 w8", 0.3, tflops=450.0),
    r("matmul f16 4096^3", "tile 64x64x32 w4", 0.5, tflops=250.0),
    r("mm_bias_relu f16 4096^3", "torch eager", 0.3, tflops=500.0),
    r("mm_bias_relu f16 4096^3", "torch.compile", 0.25, tflops=600.0),
    r("mm_bias_relu f16 4096^3", "tile 128x128x32 w8", 0.3, tflops=480.0),
    r("attention D=64 causal", "torch SDPA flash", 1.0, tflops=400.0),
    r("attention D=64 causal", "torch SDPA cuDNN", 1.0, tflops=450.0),
    r("attention D=64 causal", "tile 64x64 w4", 1.0, tflops=300.0),
]


SHAPE_POINTS = [dict(family=f, shape=sh, ratio=x) for f, sh, x in (
    ("vadd f32", "n=5", 1.0), ("bias_gelu f32", "n=5", 1.3), ("vadd f32", "n=6", 1.02),
    ("bias_gelu f32", "n=6", 1.4), ("matmul f16", "7^3", 0.8))]


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    bw, ceiling = charts.bandwidth_data(ROWS)
    check(ceiling == 4000.0, f"copy ceiling {ceiling}")
    check(list(bw) == ["vadd fp32 2^28", "softmax f32 4096x1024", "transpose fp32 8192^2"],
          f"bandwidth workloads {list(bw)}")
    check(bw["softmax f32 4096x1024"]["Tile"] == 3100.0,
          "best Tile configuration, the failed check left out")
    check(bw["softmax f32 4096x1024"]["torch.compile"] == 2500.0, "torch.compile family")
    tf = charts.tflops_data(ROWS)
    check(list(tf) == ["matmul f16 4096^3", "mm_bias_relu f16 4096^3", "attention D=64 causal"],
          f"tensor-core workloads {list(tf)}")
    check(tf["matmul f16 4096^3"]["Tile"] == 450.0, "best Tile matmul")
    check(charts.reference("matmul f16 4096^3", tf["matmul f16 4096^3"]) == "cuBLAS", "ref mm")
    check(charts.reference("attention D=64 causal", tf["attention D=64 causal"])
          == "SDPA cuDNN", "ref attention: the faster SDPA")
    check(charts.reference("mm_bias_relu f16 4096^3", tf["mm_bias_relu f16 4096^3"])
          == "torch eager", "ref mm_bias_relu")
    check(charts.shape_labels(SHAPE_POINTS) == ["vadd f32", "bias_gelu f32", None, None,
                                                "matmul f16"],
          "each workload once in the shapes legend, though vadd and bias_gelu interleave")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("test_charts: data checks passed; matplotlib missing, drawing skipped")
        return 77
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tile-charts-")
    os.makedirs(out, exist_ok=True)
    shape = os.path.join(out, "shapes.png")
    check(charts.shapes_chart(SHAPE_POINTS, shape) == shape, "the shapes chart drawn")
    with open(shape, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "shapes.png is a PNG")
    paths = charts.write_charts(ROWS, out, title="fake rows")
    check(len(paths) == 2, f"two charts written: {paths}")
    for p in paths:
        with open(p, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{p} is a PNG")
    check(charts.write_charts([], out) == [], "no rows: no charts")
    check(charts.write_charts(ROWS[:5], out) == [os.path.join(out, charts.BANDWIDTH_PNG)],
          "only memory-bound rows: only the bandwidth chart")
    print("test_charts: passed;", " ".join(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
