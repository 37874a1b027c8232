#!/usr/bin/env bash
# The traces of issues 23 (why was the host late) and 24 (steps), recorded on the H200 with
# host samples, as fixtures for `make test` to check downstream. Run from the repository
# root with the binaries built here and carried (build/kgantt, build/libkgantt-inject.so,
# build/devlib, build/examples):
#
#   tests/gpu/host_fixtures_h200.sh [PART...]   PART: dataloader profiler decode
#                                               decode_flash native jax steps gpt
#                                               (default: all)
#
# dataloader  tests/gpu/host_dataloader.py, a planted collate_fn cost and a sleeping log
#             call, recorded with host samples (num_workers 0); its JSON line (the planted
#             seconds) beside the trace
# profiler    the same loop under torch.profiler, without and with with_stack
# decode      tests/gpu/hf_decode.py: a transformers Llama decoder at batch 1
# decode_flash  the same with --attention flash: the fix kgantt names for decode's JIT
#             compilation (no cuDNN attention compiled for each new KV length), to diff
# native      examples/syncs built with frame pointers (syncs_fp) and stripped
#             (syncs_stripped): host work between launches in C++
# jax         tests/gpu/jax_loop.py: XLA compiles, then 200 jitted steps
# steps       tests/gpu/steps_loop.py: a slow step every 10 (gc.collect + a sleep)
# gpt         bench/torch_step.py --gpt: the GPT training step, 30 steps
#
# Everything goes into $OUT/host_fixtures_h200.tar.xz (OUT: the device tool's folder, else
# build/host-fixtures-out): each trace, the program's output, record's stderr, and
# summary.md; the raw spools into host_spools_h200.tar.xz. HZ: the host-sample rate
# (1000): record --host-samples=HZ.
set -u -o pipefail
OUT=${OUT:-$PWD/build/host-fixtures-out}
HZ=${HZ:-1000}
PYTHON=${PYTHON:-python3}
parts=${*:-dataloader profiler decode decode_flash native jax steps gpt}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
K=$PWD/build/kgantt
W=$(mktemp -d /tmp/kgantt-host-fixtures-XXXXXX)
mkdir -p "$OUT"
SUM=$W/summary.md
say() { echo "$*" | tee -a "$SUM"; }
pack() { # traces and outputs in one file, the spools (large) in another
	local d
	d=$(basename "$W")
	tar -C "$(dirname "$W")" --exclude='*.spool' -cJf "$OUT/host_fixtures_h200.tar.xz" "$d"
	tar -C "$(dirname "$W")" -cJf "$OUT/host_spools_h200.tar.xz" $(cd "$(dirname "$W")" && ls -d "$d"/*.spool 2> /dev/null)
	ls -l "$OUT"
}
trap pack EXIT
say "# host fixtures on $(hostname) $(date -u +%Y-%m-%dT%H:%MZ)"
say "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
say "- $($PYTHON -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' 2>&1 | tail -1)"

# rec NAME CMD...: record CMD with host samples into NAME.kgt (its spool kept: a later
# importer reads it again); its stdout to NAME.out
rec() {
	local name=$1
	shift
	local t0=$SECONDS
	"$K" record --force --keep-spool --host-samples=$HZ -o "$W/$name.kgt" -- "$@" \
		> "$W/$name.out" 2> "$W/$name.err"
	local rc=$?
	say "- $name: exit $rc in $((SECONDS - t0)) s, $(du -h "$W/$name.kgt" 2> /dev/null | cut -f1) trace, $(du -sh "$W/$name.kgt.spool" 2> /dev/null | cut -f1) spool; $(grep -o 'wrote.*' "$W/$name.err" | head -1)"
	grep -i "host samples" "$W/$name.err" | tail -2 | sed 's/^/    /' | tee -a "$SUM"
	"$K" info "$W/$name.kgt" 2>&1 | grep -i '^host' | sed 's/^/    /' | tee -a "$SUM"
	"$K" report --no-progress --host "$W/$name.kgt" > "$W/$name.report.txt" 2>&1
	grep -E '^#[0-9]' "$W/$name.report.txt" | head -4 | sed 's/^/    /' | tee -a "$SUM"
}

for part in $parts; do
	case $part in
	dataloader)
		rec dataloader $PYTHON tests/gpu/host_dataloader.py --steps 60 --workers 0 ;;
	profiler)
		for how in plain stack; do
			extra=()
			[ $how = stack ] && extra=(--with-stack)
			$PYTHON tests/gpu/host_dataloader.py --steps 40 --workers 0 \
				--profile "$W/dataloader_profiler_$how.json.gz" "${extra[@]}" \
				> "$W/dataloader_profiler_$how.out" 2> "$W/dataloader_profiler_$how.err"
			say "- dataloader_profiler_$how: exit $?, $(du -h "$W/dataloader_profiler_$how.json.gz" 2> /dev/null | cut -f1)"
		done ;;
	decode)
		rec hf_decode $PYTHON tests/gpu/hf_decode.py --tokens 24 ;;
	decode_flash)
		rec hf_decode_flash $PYTHON tests/gpu/hf_decode.py --tokens 24 --attention flash ;;
	native)
		rec syncs_fp build/examples/syncs_fp bad
		rec syncs_fp_fixed build/examples/syncs_fp fixed
		rec syncs_stripped_host build/examples/syncs_stripped bad ;;
	jax)
		rec jax_loop $PYTHON tests/gpu/jax_loop.py --steps 200 ;;
	gpt)
		rec gpt_step $PYTHON bench/torch_step.py --gpt --steps 30 ;;
	steps)
		rec steps_loop $PYTHON tests/gpu/steps_loop.py --steps 60 --every 10 --slow-ms 20 ;;
	*)
		say "unknown part '$part'" ;;
	esac
done
