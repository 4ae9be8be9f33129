#!/bin/bash
# Session 35's device call: the differential tests of the stepped
# pointers TMA now fills (induction.tile, and styles, splitk, tma.tile);
# TMA against cp.async rings and Triton where row strides are not
# multiples of 128 bytes (-session35-stride.py); the stepped-pointer
# matmul before and after (-session35-ptrs.py); mlp.tile's
# matmul_strided before and after its unit-stride variants took TMA
# (-session35-strided.py); then one launch of each
# at N = 4096 and 4104 under Nsight Compute (-session35-ncu.py: L2
# requests and sectors, DRAM bytes, speed of light).
# Here: bash bench/results/2026-12-06-session35-prepare.sh OLD_TILEC (8d6f419's)
# Device call: run(command="bash bench/results/2026-12-06-session35-gpu.sh", carry=["build-s35"])
cd "$(dirname "$0")/../.."
o=build-s35
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$o PYTHONPATH=python:bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
difftests() {
    for f in "$@"; do
        echo "difftest $f.tile sm_90a:"
        timeout 30 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
    done
}
# most wanted first: the device may be taken back, or its time run out
difftests induction tma
timeout 240 python3 bench/results/2026-12-06-session35-stride.py $o/nt
timeout 120 python3 bench/results/2026-12-06-session35-strided.py $o
timeout 90 python3 bench/results/2026-12-06-session35-ptrs.py $o/ptrs-old.tlb $o/ptrs-new.tlb \
    $o/nt/tma.tlb
difftests styles splitk
m=gpu__time_duration.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct
m=$m,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum
timeout 150 ncu --clock-control none -k "regex:matmul|gemm|nvjet|xmma|cutlass" \
    --metrics "$m" --csv --page raw \
    python3 bench/results/2026-12-06-session35-ncu.py $o/nt > /tmp/ncu.csv 2> /tmp/ncu.err
echo "ncu rc=$?"; tail -3 /tmp/ncu.err
python3 - /tmp/ncu.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: sys.exit("no ncu rows")
head, units, data = rows[0], rows[1], rows[2:]
want = [h for h in head if "__" in h]
if "Kernel Name" not in head:
    sys.exit("\n".join(",".join(r[:12]) for r in rows[:4]))
name = head.index("Kernel Name")
print("| kernel | " + " | ".join(want) + " |")
for r in data:
    print(f"| {r[name][:40]} | " + " | ".join(r[head.index(h)] for h in want) + " |")
PY
