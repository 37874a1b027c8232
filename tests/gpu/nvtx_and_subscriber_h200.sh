#!/usr/bin/env bash
# Third GPU batch: NVTX through the recorder (C and PyTorch), a program with its own CUPTI
# subscriber, no visible GPU, and the PyTorch scenarios recorded again with their NVTX.
#   tests/gpu/nvtx_and_subscriber_h200.sh OUTDIR
set -u
out=${1:?}
K=build/kgantt
# the GPU machine lacks libyajl: carried in build/devlib
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
run=/tmp/kgantt-gpu-run3
rm -rf "$run"; mkdir -p "$run/fixtures" "$run/logs"
{
echo "== nvtx example"
$K record --force -o $run/fixtures/nvtx_bad.kgt -- build/examples/nvtx > $run/fixtures/nvtx_bad.out 2> $run/logs/nvtx.err
python3 tests/gpu/validate.py $run/fixtures/nvtx_bad.kgt $run/fixtures/nvtx_bad.out | tail -3
echo "== program with its own CUPTI subscriber"
$K record --force -o $run/fixtures/cupti_first.kgt -- build/tests/gpu/cupti_first > $run/logs/cupti_first.out 2> $run/logs/cupti_first.err
echo "record exit $?"; cat $run/logs/cupti_first.out $run/logs/cupti_first.err
$K info $run/fixtures/cupti_first.kgt 2>&1 | tail -4
echo "== no visible GPU"
CUDA_VISIBLE_DEVICES= $K record --force -o $run/fixtures/novis.kgt -- build/examples/streams bad > $run/logs/novis.out 2>&1
echo "record exit $?"; tail -3 $run/logs/novis.out
echo "== PyTorch scenarios with NVTX"
for sc in torch_pageable_item torch_tiny_ops torch_transformer_bf16 torch_two_streams; do
	$K record --force -o $run/fixtures/$sc.kgt -- env TORCH_TRACES_NO_PROFILER=1 python3 tests/gpu/torch_traces.py $run/logs $sc > $run/logs/$sc.out 2> $run/logs/$sc.err
	echo "$sc: exit $? $(tail -1 $run/logs/$sc.err)"
	python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); print('  nvtx ranges:', db.execute('select s.text, count(*) from nvtx n join strings s on s.id=n.name group by 1').fetchall())" $run/fixtures/$sc.kgt
done
echo "== report on a real trace"
time $K report $run/fixtures/torch_pageable_item.kgt --nvtx step > $run/logs/report_torch.txt 2>&1; head -5 $run/logs/report_torch.txt
} 2>&1 | tee $run/logs/batch3.txt
tar -C "$run" -cJf "$out/batch3.tar.xz" fixtures logs
