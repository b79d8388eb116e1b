#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
for round in 1 2 3; do
  for b in head12 hscan; do
    echo "r$round $b u32   $(timeout 120 stdbuf -oL exp12/bench-$b --runs 30 --sizes 8193,16384,65536,262144,524288,1048576,16777216 | row)"
    echo "r$round $b pairs $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes 65536,1048576 --value u32 | row)"
    echo "r$round $b u64   $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes 65536,1048576 --key u64 | row)"
  done
done 2>&1 | tee $OUT/ab-hscan.txt
