#!/usr/bin/env bash
# Issue 26, the next question: full mode with the launch hook costs the launch loop 1.06x
# its floor (115 rounds, 2026-12-07), as CUPTI's launch windows did, where the hook with
# an observer that only reads the clock cost 1.00x (31 rounds). A rung each, paired by
# round: the floor; full mode with no window ever open (the hook preloaded, never told a
# launch); with the hook telling launches that are not recorded (KGANTT_DEV_HOOK_BARE=1);
# without call stacks; with CUPTI asked for every recorded launch's stream and device where
# each thread keeps them (KGANTT_DEV_HOOK_QUERY=each; until 2026-12-07 the default, and the
# thread's cache the switch =cached), and never asked (=none); full mode; and with CUPTI's
# windows.
# The traces of the first three rounds are kept, and the gaps between the loop's kernels in
# each (tests/tools/launch_spacing.py) say whether the launches outside the windows pay too.
#   tests/gpu/hook_ladder.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md, spacing.txt,
#                                                  traces/ ...
set -u
out=${1:?usage: hook_ladder.sh OUTDIR [SECONDS]}
KEEP_TRACES=$out/traces tests/gpu/rounds.sh "$out" "${2:-400}" launch_loop \
	kgantt-kernels-latency,kgantt-full-nowindows,kgantt-full-hookbare,kgantt-full-nostacks,kgantt-full-noquery,kgantt-full-queryeach,kgantt-full,kgantt-full-cbwindows \
	kgantt-full-nowindows/kgantt-kernels-latency kgantt-full-hookbare/kgantt-full-nowindows \
	kgantt-full-nostacks/kgantt-full-hookbare kgantt-full/kgantt-full-nostacks \
	kgantt-full/kgantt-full-noquery kgantt-full-queryeach/kgantt-full \
	kgantt-full/kgantt-kernels-latency kgantt-full-cbwindows/kgantt-kernels-latency \
	kgantt-full/kgantt-full-cbwindows kgantt-full-hookbare/kgantt-kernels-latency
python3 tests/tools/launch_spacing.py --no-slices "$out"/traces/*.kgt > "$out/spacing.txt" 2>&1
xz -T0 "$out"/traces/*.kgt
