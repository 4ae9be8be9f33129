# Session 21: register caps on examples/stencil.tile's heat2 (the 8-warp tiles, whose generic
# entries get .maxnreg), before (074c60e) / after, one process, 3 alternations, best median;
# 8190^2 takes the generic entry, 8192^2 (control) the aligned one. DIR/{uold,unew}/st/heat2_*.tlb
# built here by the two tilecs with @warps fixed and -DBM -DBN. python3 THIS DIR
import os, sys, torch
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64, f64
D = sys.argv[1]
lib = Libtile(os.path.join(D, "unew", "libtile.so")); lib.init()
st = lambda: torch.cuda.current_stream().cuda_stream
def ref_heat2(u, a):
    def step(v):
        p = torch.nn.functional.pad(v, (1, 1, 1, 1))
        return v + a * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * v)
    return step(step(u.double()))
lines = []
for tile in ("16x64_w8", "32x32_w8", "32x64_w8", "16x32_w8"):
    for n in (8190, 8192):
        u = torch.randn(n, n, device="cuda"); out = torch.empty_like(u); a = 0.1
        ref = ref_heat2(u, a)
        fns = {v: lib.kernel(os.path.join(D, v, "st", f"heat2_{tile}.tlb"), "heat2").bind(
            [ptr(out.data_ptr()), ptr(u.data_ptr()), i64(n), i64(n), i64(n), f64(a)], st()) for v in ("uold", "unew")}
        best, ok = {}, {}
        for rep in range(3):
            for v, f in fns.items():
                if rep == 0:
                    out.fill_(float("nan")); f(); torch.cuda.synchronize()
                    ok[v] = ((out.double() - ref).abs().max() / ref.abs().max()).item() < 1e-5
                t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
                best[v] = min(best.get(v, t), t)
        lines.append(f"| heat2 {tile} | {n}^2 | {best['uold']:.1f}{'' if ok['uold'] else ' BAD'} | "
                     f"{best['unew']:.1f}{'' if ok['unew'] else ' BAD'} | {best['uold'] / best['unew']:.3f} |")
        print(lines[-1], flush=True)
print("\n| kernel | n | before µs | after µs | before ÷ after |\n| --- | --- | ---: | ---: | ---: |")
print("\n".join(lines))
