#!/bin/bash
# CUB u32 keys with one onesweep block per SM (carveout 14% = 32 KB config; 28% still fits two
# u32 blocks), CUB as it is, and vksort, in the same run.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
vrow() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
crow() { awk '/^ *[0-9]+ +[0-9.]+ +[0-9.]+/ {printf "%s:%s%s ", $1, $2, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
S=65536,1048576,4194304,16777216,67108864,268435456
for round in 1 2; do
  echo "r$round vksort u32 $(timeout 120 exp13/bench-head --runs 30 --sizes $S --json $OUT/vk-u32-r$round.jsonl | vrow)"
  for c in default 14; do
    ca=""; [ $c != default ] && ca="--carveout $c"
    echo "r$round cub-$c u32 $(timeout 120 exp13/cub_bench --runs 30 --sizes $S $ca --json $OUT/cub$c-u32-r$round.jsonl | crow)"
  done
done 2>&1 | tee $OUT/ab-carveout14.txt
