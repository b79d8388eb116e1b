#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
for round in 1; do
  for b in base11 fused fusednr; do
    echo "round $round $b u32        $(timeout 120 stdbuf -oL exp/bench-$b --runs 30 --sizes 16384,65536,262144,1048576,16777216 | row)"
    echo "round $round $b u32 bits8  $(timeout 120 stdbuf -oL exp/bench-$b --runs 30 --sizes 65536,16777216 --bits 0,8 | row)"
  done
done 2>&1 | tee $OUT/ab.txt
