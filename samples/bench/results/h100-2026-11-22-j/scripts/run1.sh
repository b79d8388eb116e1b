#!/bin/bash
# Session 13: (1) the floor of a chain of dependent dispatches; (2) CUB with one
# onesweep block per SM (carveout 28% = 64 KB config) against CUB as it is and
# a 2-block control (carveout 44% = 100 KB), with vksort in the same run.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== chain"; timeout 120 exp13/chain/chain 2>&1 | tee $OUT/chain.txt
vrow() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
crow() { awk '/^ *[0-9]+ +[0-9.]+ +[0-9.]+/ {printf "%s:%s ", $1, $2} END {print ""}'; }
S=1048576,4194304,16777216,67108864,268435456
for round in 1 2; do
  for t in "u32:" "pairs:--value u32" "u64:--key u64"; do
    name=${t%%:*}; args=${t#*:}
    echo "r$round vksort   $name $(timeout 120 exp13/bench-head --runs 30 --sizes $S $args --json $OUT/vk-$name-r$round.jsonl | vrow)"
    for c in default 28 44; do
      ca=""; [ $c != default ] && ca="--carveout $c"
      echo "r$round cub-$c $name $(timeout 120 exp13/cub_bench --runs 30 --sizes $S $args $ca --json $OUT/cub$c-$name-r$round.jsonl | crow)"
    done
  done
done 2>&1 | tee $OUT/ab-carveout.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size,launch__shared_mem_per_block_static,sm__warps_active.avg.pct_of_peak_sustained_active
for c in default 28 44; do
  ca=""; [ $c != default ] && ca="--carveout $c"
  echo "== ncu carveout $c"
  timeout 120 $NCU -k regex:Onesweep -c 1 --metrics $M exp13/cub_bench --runs 1 --warmup 0 --sizes 16777216 $ca 2>&1 | grep -v "^==PROF==" | tail -14
done 2>&1 | tee $OUT/ncu.txt
