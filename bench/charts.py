"""charts — the benchmark's PNG charts, from bench.py's rows.

    import charts
    paths = charts.write_charts(ROWS, out_dir)

Two charts, each written only when it has something to show:

- bench-bandwidth.png: memory-bound workloads (rows with GB/s, the copy
  itself and launch/compile rows aside), the best achieved GB/s of each
  system (Tile, Triton, torch eager, torch.compile: the best of its
  configurations), as bars beside the measured copy ceiling (the
  `copy ...` row, a horizontal line), with each bar's percentage of it.
- bench-tflops.png: tensor-core workloads (matmul, mm_bias_relu,
  attention: rows carrying "tflops"), the best TFLOP/s of each system as
  bars, the vendor reference of the workload (cuBLAS: torch.matmul; for
  mm_bias_relu torch eager, cuBLAS plus two element-wise kernels; for
  attention the faster of torch SDPA flash and cuDNN) as a black mark over
  its group, and Tile's and Triton's fraction of it over their bars.

Rows whose check failed are left out. matplotlib is imported here, with
the Agg backend, only when a chart is drawn; bench.py calls this inside a
try so that a charting error never costs the TSV and Markdown.
bench/test_charts.py draws both from fake rows.
"""
import os

BANDWIDTH_PNG = "bench-bandwidth.png"
TFLOPS_PNG = "bench-tflops.png"

# Systems, as families: the first matching prefix names the bar.
FAMILIES = (("tile", "Tile"), ("triton", "Triton"), ("torch.compile", "torch.compile"),
            ("torch eager", "torch eager"), ("torch.matmul", "cuBLAS"),
            ("torch SDPA flash", "SDPA flash"), ("torch SDPA cuDNN", "SDPA cuDNN"))
COLORS = {"Tile": "#d62728", "Triton": "#1f77b4", "torch eager": "#7f7f7f",
          "torch.compile": "#9467bd", "cuBLAS": "#2ca02c", "SDPA flash": "#8c564b",
          "SDPA cuDNN": "#17becf"}
TENSOR_CORE = ("matmul", "mm_bias_relu", "attention")
NOT_BANDWIDTH = ("copy", "launch", "100 tiny", "softmax one config", "autotune")


def family(system):
    for prefix, name in FAMILIES:
        if system.startswith(prefix):
            return name
    return None


def _best(rows, value):
    """{work: {family: best value}} over the rows that passed, in order of
    first appearance."""
    out = {}
    for r in rows:
        v = value(r)
        fam = family(r.get("system", ""))
        if not r.get("ok", True) or v is None or fam is None or not v > 0:
            continue
        d = out.setdefault(r["work"], {})
        d[fam] = max(d.get(fam, 0.0), v)
    return out


def copy_ceiling(rows):
    for r in rows:
        if r.get("work", "").startswith("copy") and r.get("ok", True) and r.get("gbs"):
            return r["gbs"]
    return None


def bandwidth_data(rows):
    def gbs(r):
        if r.get("work", "").startswith(NOT_BANDWIDTH + TENSOR_CORE) or r.get("tflops"):
            return None
        return r.get("gbs")
    return _best(rows, gbs), copy_ceiling(rows)


def reference(work, best):
    """The vendor reference's family for a tensor-core workload."""
    if work.startswith("attention"):
        sdpa = [f for f in ("SDPA flash", "SDPA cuDNN") if f in best]
        return max(sdpa, key=lambda f: best[f]) if sdpa else None
    if work.startswith("mm_bias_relu"):
        return "torch eager" if "torch eager" in best else None
    return "cuBLAS" if "cuBLAS" in best else None


def tflops_data(rows):
    def tf(r):
        return r.get("tflops") if r.get("work", "").startswith(TENSOR_CORE) else None
    return _best(rows, tf)


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _bars(ax, data, order):
    """Grouped bars: one group per workload, one bar per family present.
    Returns {(work, family): (x, height)}."""
    n = max(len(order), 1)
    width = 0.8 / n
    placed = {}
    labelled = set()
    for i, work in enumerate(data):
        fams = [f for f in order if f in data[work]]
        for j, fam in enumerate(fams):
            x = i - 0.4 + width * (j + 0.5) + width * (n - len(fams)) / 2
            ax.bar(x, data[work][fam], width, color=COLORS.get(fam, "#bcbd22"),
                   label=None if fam in labelled else fam)
            labelled.add(fam)
            placed[(work, fam)] = (x, data[work][fam])
    ax.set_xticks(range(len(data)))
    ax.set_xticklabels(list(data), rotation=35, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(data) - 0.4)
    ax.set_ylim(0, 1.15 * max(v for d in data.values() for v in d.values()))
    return placed, width


def _order(data, prefer):
    seen = [f for f in prefer if any(f in d for d in data.values())]
    return seen + sorted({f for d in data.values() for f in d} - set(seen))


def bandwidth_chart(rows, path, title=""):
    data, ceiling = bandwidth_data(rows)
    if not data:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(data) + 5), 5.5))
    order = _order(data, ("Tile", "Triton", "torch.compile", "torch eager"))
    placed, width = _bars(ax, data, order)
    if ceiling:
        ax.set_ylim(0, 1.1 * max(ax.get_ylim()[1], ceiling))
        ax.axhline(ceiling, color="black", linestyle="--", linewidth=1,
                   label=f"copy ceiling {ceiling:.0f} GB/s")
        for (_work, _fam), (x, h) in placed.items():
            ax.text(x, h, f"{100 * h / ceiling:.0f}", ha="center", va="bottom", fontsize=6)
    return _finish(plt, fig, ax, path, "achieved GB/s (best configuration per system)",
                   "Memory-bound workloads: bandwidth"
                   + (" (numbers: % of the copy ceiling)" if ceiling else ""), title)


def tflops_chart(rows, path, title=""):
    data = tflops_data(rows)
    if not data:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(data) + 5), 5.5))
    order = _order(data, ("Tile", "Triton", "torch.compile", "cuBLAS", "torch eager",
                          "SDPA flash", "SDPA cuDNN"))
    placed, width = _bars(ax, data, order)
    marked = False
    for i, work in enumerate(data):
        ref = reference(work, data[work])
        if not ref:
            continue
        rv = data[work][ref]
        ax.hlines(rv, i - 0.42, i + 0.42, colors="black", linewidth=1.5,
                  label=None if marked else "reference (cuBLAS / SDPA / torch eager)")
        marked = True
        for fam in ("Tile", "Triton", "torch.compile"):
            if (work, fam) in placed and fam != ref:
                x, h = placed[(work, fam)]
                ax.text(x, h, f"{h / rv:.2f}x", ha="center", va="bottom", fontsize=6,
                        rotation=90)
    return _finish(plt, fig, ax, path, "TFLOP/s (best configuration per system)",
                   "Tensor-core workloads: TFLOP/s (numbers: fraction of the reference)", title)


def shape_labels(points):
    """The legend label of each bar of shapes_chart: its workload at the
    workload's first bar, None after, so that each appears once though
    workloads interleave (vadd and bias_gelu alternate by size)."""
    seen, out = set(), []
    for p in points:
        out.append(None if p["family"] in seen else p["family"])
        seen.add(p["family"])
    return out


def shapes_chart(points, path, title=""):
    """bench.py step `shapes`: Triton's time over Tile's per shape (dicts
    with family, shape, ratio), one colour per workload, lines at 1 and at
    the 0.95 floor."""
    if not points:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(8, 0.28 * len(points) + 4), 5.5))
    families = list(dict.fromkeys(p["family"] for p in points))
    cmap = plt.get_cmap("tab10")
    for i, (p, label) in enumerate(zip(points, shape_labels(points))):
        ax.bar(i, p["ratio"], 0.8, color=cmap(families.index(p["family"]) % 10), label=label)
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels([p["shape"] for p in points], rotation=60, ha="right", fontsize=7)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.axhline(0.95, color="black", linestyle="--", linewidth=1, label="0.95")
    ax.set_ylim(0, max(1.3, 1.1 * max(p["ratio"] for p in points)))
    return _finish(plt, fig, ax, path, "Triton time / Tile time (> 1: Tile faster)",
                   "Shape sweep: Tile against Triton, same configuration", title)


def _finish(plt, fig, ax, path, ylabel, heading, title):
    """Labels, legend and grid of a chart, written to path; returns path."""
    ax.set_ylabel(ylabel)
    ax.set_title(heading + (f"\n{title}" if title else ""), fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_charts(rows, out_dir, title=""):
    """Both charts under out_dir; returns the paths written. Each chart is
    drawn on its own, so one failing does not stop the other; the first
    error is raised after both were tried."""
    os.makedirs(out_dir, exist_ok=True)
    written, error = [], None
    for fn, name in ((bandwidth_chart, BANDWIDTH_PNG), (tflops_chart, TFLOPS_PNG)):
        try:
            p = fn(rows, os.path.join(out_dir, name), title)
            if p:
                written.append(p)
        except Exception as e:  # noqa: BLE001
            error = error or e
    if error:
        raise error
    return written
