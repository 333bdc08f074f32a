#!/bin/sh
# One prepared measurement run on a machine with an NVIDIA GPU (a lent device machine, or
# your own), writing into OUTDIR:
#   probe.json        cuda_probe (microbenchmarks; `gpuplan calibrate --from probe.json` fits it)
#   torch-steps.json  torch_steps.py (real training steps: validation ground truth)
#   nvidia-smi.txt, dmon.txt   the GPU's identity, clocks and power while the steps ran
#   log.txt           everything the run printed
# Usage: cuda_probe/device_measure.sh OUTDIR [PROBE_BINARY] [TORCH_BUDGET_S]
# PROBE_BINARY defaults to build/release/cuda_probe/cuda_probe. Where it does not run (other
# system libraries), the libraries of PyTorch's CUDA wheels are tried, then the probe is
# built there with nvcc (nlohmann/json.h from $PROBE_INCLUDE). Each part is bounded by
# `timeout`, and a failing part does not stop the next.
set -u
out=${1:?usage: device_measure.sh OUTDIR [PROBE_BINARY] [TORCH_BUDGET_S]}
probe=${2:-build/release/cuda_probe/cuda_probe}
budget=${3:-240}
here=$(dirname "$0")
mkdir -p "$out"
exec >"$out/log.txt" 2>&1
set -x
date -u
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK,POWER >>"$out/nvidia-smi.txt" 2>&1

runs() { [ -x "$1" ] && ! ldd "$1" | grep -q 'not found'; }
if ! runs "$probe"; then
  libs=$(python3 -c 'import glob, os, nvidia; print(":".join(sorted({os.path.dirname(p) for d in nvidia.__path__ for p in glob.glob(d + "/*/lib/*.so*")})))' 2>/dev/null)
  export LD_LIBRARY_PATH="${libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if ! runs "$probe"; then
  probe=/tmp/cuda_probe
  nvcc -O3 -std=c++17 -DCUDA_PROBE_GIT_SHA=\"device-build\" \
    --generate-code=arch=compute_90,code=[compute_90,sm_90] \
    -I. -I"${PROBE_INCLUDE:-/usr/include}" "$here/probe.cu" "$here/probe_writer.cpp" \
    -lcublas -lcublasLt -lcudart -o "$probe"
fi
timeout 150 "$probe" -o "$out/probe.json"
echo "probe exit $?"

nvidia-smi dmon -s pc -d 1 >"$out/dmon.txt" 2>&1 &
dmon=$!
PYTHONUNBUFFERED=1 timeout $((budget + 60)) python3 "$here/torch_steps.py" --out "$out/torch-steps.json" --budget-s "$budget"
echo "torch_steps exit $?"
kill "$dmon" 2>/dev/null
date -u
