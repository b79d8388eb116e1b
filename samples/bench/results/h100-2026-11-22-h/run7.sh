#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
S=100,512,1024,1025,2048,2049,4096,4097
for round in 1 2; do
  for b in new final; do
    echo "r$round $b u32     $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --json $OUT/$b-u32.jsonl | row)"
    echo "r$round $b u64     $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --key u64 --json $OUT/$b-u64.jsonl | row)"
    echo "r$round $b pairs   $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --value u32 --json $OUT/$b-pairs.jsonl | row)"
    echo "r$round $b bits024 $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --bits 0,24 --json $OUT/$b-bits.jsonl | row)"
  done
done 2>&1 | tee $OUT/ab-final.txt
for f in $OUT/final-*.jsonl; do echo "$(basename $f): $(grep -o '"N":[0-9]*\|"kernel":"[^"]*"' $f | paste -sd' ' | sed 's/"N"://g; s/"kernel"://g')"; done
