#!/bin/bash
# A/B of the committed change (bench-final: 64-bit items staged a word at a
# time where needed, 1024 x 8 tiles) against 976169f (bench-head), then the
# full run with CUB (run_gpu.sh, now with CUB held to one block per SM).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
S=65536,1048576,4194304,16777216
for round in 1 2; do
  for t in "u64:--key u64" "u64u32:--key u64 --value u32" "u32u64:--value u64" "u64u64:--key u64 --value u64" "u32:" "pairs:--value u32"; do
    name=${t%%:*}; args=${t#*:}
    for b in head final; do
      echo "r$round $b $name $(timeout 60 exp13/bench-$b --runs 30 --sizes $S $args | row)"
    done
  done
done 2>&1 | tee $OUT/ab-final.txt
VKSORT_COMMIT=$1 VKSORT_TUNINGS=0,0,32768 OUT=$OUT/full bash samples/bench/run_gpu.sh > $OUT/full.log 2>&1
sed -n 1,40p $OUT/full/compare.md; tail -3 $OUT/full.log
