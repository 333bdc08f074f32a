#!/bin/sh
# Measures this machine's GPU and writes its calibration profile, in one go (under five
# minutes on a data-centre GPU): builds gpuplan and cuda_probe (Release), runs
# `gpuplan calibrate` (probe + fit), and prints where the profile went. Extra arguments go to
# gpuplan calibrate (e.g. -o FILE, --gpu NAME). Run from the repository root.
set -eu
build=${BUILD:-build/release}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)" --target gpuplan cuda_probe
"$build/cli/gpuplan" calibrate "$@"
