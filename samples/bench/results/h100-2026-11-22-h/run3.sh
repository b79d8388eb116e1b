#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
S=2049,3000,4096,5000,6144,8192
for round in 1 2 3; do
  for c in 2048 4096 8192; do
    tu="--tuning 0,0,0,0,0,0,0,0,0,0,0,0,$c"
    echo "r$round big$c u32   $(timeout 60 stdbuf -oL exp12/bench-big $tu --runs 30 --sizes $S | row)"
    echo "r$round big$c i32   $(timeout 60 stdbuf -oL exp12/bench-big $tu --runs 30 --sizes $S --key i32 | row)"
    echo "r$round big$c u64   $(timeout 60 stdbuf -oL exp12/bench-big $tu --runs 30 --sizes $S --key u64 | row)"
  done
done 2>&1 | tee $OUT/ab3.txt
