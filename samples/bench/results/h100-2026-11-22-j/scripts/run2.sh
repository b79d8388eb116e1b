#!/bin/bash
set -u
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size,launch__shared_mem_per_block_static,launch__occupancy_per_block_size,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for t in "u32:" "pairs:--value u32" "u64:--key u64"; do
  name=${t%%:*}; args=${t#*:}
  for c in default 28 14; do
    ca=""; [ $c != default ] && ca="--carveout $c"
    echo "== ncu $name carveout $c"
    timeout 100 $NCU -k regex:Onesweep -s 1 -c 1 --metrics $M exp13/cub_bench --runs 20 --warmup 0 --sizes 16777216 $args $ca 2>&1 | grep -E "carveout:|us |block |Kbyte|%|register" | grep -v PROF
  done
done 2>&1 | tee $OUT/ncu.txt
