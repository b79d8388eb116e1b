#!/bin/bash
# A/B: 64-bit keys and values staged one word at a time (bench-split; tiles of
# 1024 x 10 by default, also 1024 x 8 and 1024 x 5) against 976169f (bench-head,
# 64-bit items in 1024 x 5 tiles).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
S=65536,1048576,4194304,16777216
for round in 1 2; do
  for t in "u64:--key u64" "u64u32:--key u64 --value u32" "u32u64:--value u64" "u64u64:--key u64 --value u64"; do
    name=${t%%:*}; args=${t#*:}
    echo "r$round head     $name $(timeout 60 exp13/bench-head --runs 30 --sizes $S $args | row)"
    echo "r$round split    $name $(timeout 60 exp13/bench-split --runs 30 --sizes $S $args | row)"
    echo "r$round split-8  $name $(timeout 60 exp13/bench-split --runs 30 --sizes $S $args --tuning 1024,8 | row)"
    echo "r$round split-5  $name $(timeout 60 exp13/bench-split --runs 30 --sizes $S $args --tuning 1024,5 | row)"
  done
  for t in "u32:" "pairs:--value u32"; do
    name=${t%%:*}; args=${t#*:}
    echo "r$round head     $name $(timeout 60 exp13/bench-head --runs 30 --sizes $S $args | row)"
    echo "r$round split    $name $(timeout 60 exp13/bench-split --runs 30 --sizes $S $args | row)"
  done
done 2>&1 | tee $OUT/ab-split.txt
