#!/usr/bin/env bash
# One call on the GPU machine: probe the environment, record and validate the examples,
# collect PyTorch profiler traces and occupancy ground truth. Binaries come prebuilt in
# build/ (carried); results go to $OUT as a few archives (the device tool returns at
# most 8 files).
#   tests/gpu/examples_and_profiler_h200.sh OUTDIR
set -u
out=${1:?usage: examples_and_profiler_h200.sh OUTDIR}
run=/tmp/kgantt-gpu-run
rm -rf "$run"; mkdir -p "$run/logs" "$run/torch"
{
	echo "== date"; date -u
	echo "== nvidia-smi"; nvidia-smi
	echo "== cuda libs"; ls /usr/local/cuda/lib64 2>&1 | grep -E "cupti|cudart" ; ls -d /usr/local/cuda* 2>&1
	echo "== ldd"; ldd build/kgantt build/libkgantt-inject.so build/examples/streams
	echo "== python"; python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))'
	nproc; uname -r
} > "$run/logs/env.txt" 2>&1
if ldd build/libkgantt-inject.so build/examples/streams | grep -q "not found"; then
	export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	echo "using carried CUDA libraries from build/devlib" | tee -a "$run/logs/env.txt"
fi
tests/gpu/record_examples.sh "$run" 2>&1 | tee "$run/logs/record_examples.txt"
build/tests/gpu/occupancy_probe > "$run/occupancy_h200.csv" 2> "$run/logs/occupancy.err"
echo "occupancy probe exit $?, $(wc -l < "$run/occupancy_h200.csv") lines"
PYTHONUNBUFFERED=1 timeout 300 python3 tests/gpu/torch_traces.py "$run/torch" > "$run/logs/torch_traces.txt" 2>&1
echo "torch traces exit $?"; tail -15 "$run/logs/torch_traces.txt"
tar -C "$run" -cJf "$out/fixtures.tar.xz" fixtures
tar -C "$run" -cJf "$out/extra.tar.xz" logs torch occupancy_h200.csv summary.txt
ls -la "$out"
if [ "${RUN_BENCH:-0}" = 1 ]; then
	bench/overhead.sh -n "${BENCH_RUNS:-5}" -o "$run/bench" -t "${BENCH_BUDGET:-400}" > "$run/logs/bench.txt" 2>&1
	echo "bench exit $?"; cat "$run/bench/overhead.md"
	tar -C "$run" -cJf "$out/bench.tar.xz" bench
fi
