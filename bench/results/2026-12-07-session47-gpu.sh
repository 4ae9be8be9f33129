#!/bin/bash
# Session 47's device calls (carry ["build-s47"], built by
# -session47-prepare.sh):
#   bash bench/results/2026-12-07-session47-gpu.sh check
#       early.tile's differential test against the interpreter at
#       sm_90a, compute-sanitizer racecheck over it (bench/abcheck.sh)
#   bash bench/results/2026-12-07-session47-gpu.sh time
#       bench/abvariants.py att over build-s47/ab, base `last`
#   bash bench/results/2026-12-07-session47-gpu.sh ln
#       the differential tests of realign, user and split (split loads
#       of weights), racecheck over split.tile, then -session47-ln.py
#       (split loads against the element-by-element generic variant)
#   bash bench/results/2026-12-07-session47-gpu.sh rows
#       Nsight Compute over -session47-rows.py (transpose and layernorm
#       at ragged and aligned shapes): one line of metrics a kernel
cd "$(dirname "$0")/../.."
o=build-s47
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
case ${1:-check} in
check)
    bash bench/abcheck.sh $o racecheck:early
    ;;
time)
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    timeout 540 python3 bench/abvariants.py $o/ab att last
    ;;
ln)
    bash bench/abcheck.sh $o racecheck:split
    timeout 400 python3 bench/results/2026-12-07-session47-ln.py $o/ln
    ;;
rows)
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
    m=$m,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
    m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    m=$m,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
    m=$m,launch__occupancy_limit_registers,smsp__inst_executed.sum
    for st in long_scoreboard barrier lg_throttle drain; do
        m=$m,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
    done
    timeout 300 ncu -k 'regex:transpose|layernorm' \
        --metrics "$m" --csv --page raw \
        python3 bench/results/2026-12-07-session47-rows.py $o/rows > /tmp/ncu.csv
    rc=$?
    echo "rc=$rc"
    if [ $rc != 0 ]; then   # a metric this ncu lacks: the sections instead
        tail -5 /tmp/ncu.csv
        timeout 250 ncu -k 'regex:transpose|layernorm' --section SpeedOfLight \
            --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
            python3 bench/results/2026-12-07-session47-rows.py $o/rows |
            grep -E "transpose|layernorm|Duration|DRAM Through|Memory Through|Achieved Occ|Registers Per|Stall|Warp Cycles Per Issued"
        exit
    fi
    python3 - /tmp/ncu.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if not rows:
    print(open(sys.argv[1]).read()[-3000:]); sys.exit()
head = rows[0]
for r in rows[2:]:
    d = dict(zip(head, r))
    print(" | ".join([d.get("Kernel Name", "?")[:24], d.get("Grid Size", "")] +
                     [f"{k.split('__')[1][:40]}={d[k]}" for k in head if "__" in k and k in d]))
PY
    ;;
esac
