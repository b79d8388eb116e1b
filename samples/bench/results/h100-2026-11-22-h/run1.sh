#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
exp12/bench-base11 --runs 30 --sizes 1024 | tail -3
for round in 1 2 3; do
  for b in base11 noidx q4 w1; do
    S=100,512,1024,1500,2048
    echo "r$round $b u32      $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S | row)"
    echo "r$round $b f32      $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --key f32 | row)"
    echo "r$round $b u64      $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --key u64 | row)"
    echo "r$round $b u32desc  $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes 1024,2048 --descending | row)"
    echo "r$round $b pairs    $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes 1024,2048 --value u32 | row)"
    echo "r$round $b u32b0,24 $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes 1024,2048 --bits 0,24 | row)"
  done
done 2>&1 | tee $OUT/ab.txt
