#!/bin/bash
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
VKSORT_COMMIT=$1 VKSORT_TUNINGS=0,0,32768 OUT=$OUT/full bash samples/bench/run_gpu.sh > $OUT/full.log 2>&1
sed -n 1,70p $OUT/full/compare.md; tail -3 $OUT/full.log
