#!/bin/bash
# The full run with CUB at e779e46 (run_gpu.sh), everything packed in one file.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VKSORT_COMMIT=$1
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
VKSORT_TUNINGS=0,0,32768 OUT=$OUT/full bash samples/bench/run_gpu.sh > $OUT/full.log 2>&1
sed -n 1,12p $OUT/full/compare.md; tail -3 $OUT/full.log
tar -C $OUT -czf $OUT/full.tgz full full.log && rm -rf $OUT/full $OUT/full.log
