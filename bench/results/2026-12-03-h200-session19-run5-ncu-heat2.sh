#!/bin/bash
# session 19 run 5: heat2 16x32 w4 at 8190^2 and 8192^2 under Nsight Compute, Tile and Triton
set -u
OUT=${OUT:-/tmp/out}
export PYTHONDONTWRITEBYTECODE=1
M=gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers
timeout 200 ncu --metrics $M -k regex:"heat2" -s 4 -c 2 python3 build-exp/hn/ncu_heat2.py > $OUT/ncu1.txt 2>&1; echo "rc=$?"
timeout 200 ncu --metrics $M -k regex:"heat2" -s 10 -c 2 python3 build-exp/hn/ncu_heat2.py > $OUT/ncu2.txt 2>&1; echo "rc=$?"
cat $OUT/ncu1.txt $OUT/ncu2.txt | grep -vE "==PROF==|^\s*$" | grep -E "heat2|\.sum|\.pct|\.ratio|launch__" | sed 's/  */ /g' | cut -c1-110
