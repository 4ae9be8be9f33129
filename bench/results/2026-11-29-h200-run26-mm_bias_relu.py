import sys, torch, statistics as st
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
lib = Libtile("build-gpu/libtile.so")
def t(fn, reps=30):
    for _ in range(5): fn()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); fn(); e1.record(); e1.synchronize(); ts.append(e0.elapsed_time(e1) * 1000)
    return st.median(ts)
for n in (8192, 4096):
    a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    bias = torch.rand(n, device="cuda", dtype=torch.float16) * 2 - 1
    out = torch.empty(n, n, device="cuda", dtype=torch.float16)
    ref = torch.relu(a.float() @ b.float() + bias.float())
    ks = {}
    for v in ("s3", "s4", "s3g16", "k32s4"):
        k = lib.kernel(f"build-gpu/mm/lr_{v}.tlb", "linear_relu")
        ks[v] = k.bind([ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr()), ptr(bias.data_ptr())] + [i64(n)] * 6, torch.cuda.current_stream().cuda_stream)
        out.fill_(float("nan")); ks[v](); torch.cuda.synchronize()
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        assert err < 1e-2, (v, err)
    res = {k: [] for k in ["eager", "matmul"] + list(ks)}
    for r in range(3):
        res["eager"].append(t(lambda: torch.relu(a @ b + bias)))
        res["matmul"].append(t(lambda: torch.matmul(a, b)))
        for v, f in ks.items(): res[v].append(t(f))
    for k, v in res.items():
        print(f"n={n} {k:8s} " + " ".join(f"{x:8.1f}" for x in v) + f"  median {st.median(v):8.1f} us")
