#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
row() { awk '/^vksort/ {printf "%s:%s%s ", $3, $4, ($NF=="ok"?"":"!"$NF)} END {print ""}'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=100,512,1024,2048,2049,3000,4096,4097
for round in 1 2 3; do
  for b in base11 new; do
    for k in u32 i32 f32 u64 f64; do
      echo "r$round $b $k       $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --key $k | row)"
    done
    echo "r$round $b u32desc   $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --descending | row)"
    echo "r$round $b u32bits024 $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --bits 0,24 | row)"
    echo "r$round $b u32pairs  $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --value u32 | row)"
    echo "r$round $b argsort   $(timeout 60 stdbuf -oL exp12/bench-$b --runs 30 --sizes $S --value index | row)"
  done
done 2>&1 | tee $OUT/ab-small.txt
VKSORT_COMMIT=$1 VKSORT_TUNINGS=0,0,32768 OUT=$OUT/full bash samples/bench/run_gpu.sh > $OUT/full.log 2>&1
sed -n 1,60p $OUT/full/compare.md; tail -3 $OUT/full.log
