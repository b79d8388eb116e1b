#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
T=0,0,0,0,0,0,0,0,0,0,0,0,4096
S=2049,3000,4096
for round in 1 2 3; do
  for b in noidx noidx4096 q44096; do
    case $b in noidx) bin=noidx; tu="";; noidx4096) bin=noidx; tu="--tuning $T";; q44096) bin=q4; tu="--tuning $T";; esac
    echo "r$round $b u32   $(timeout 60 stdbuf -oL exp12/bench-$bin $tu --runs 30 --sizes $S | row)"
    echo "r$round $b f32   $(timeout 60 stdbuf -oL exp12/bench-$bin $tu --runs 30 --sizes $S --key f32 | row)"
    echo "r$round $b u64   $(timeout 60 stdbuf -oL exp12/bench-$bin $tu --runs 30 --sizes $S --key u64 | row)"
  done
done 2>&1 | tee $OUT/ab2.txt
