#!/usr/bin/env bash
# Issue 26: the launch windows cost the launch loop 1.06-1.08x its floor, whether open 10 ms
# or 1 ms in every 100 (docs/results/floor-parts-h100.md): every launch pays once the launch
# callbacks were switched on and off. Which of these does CUPTI charge:
#  - one closing after launches began (the first window only: the next a minute away)?
#  - the switching (the callbacks left on, a closed window's launches passed over in the
#    callback, KGANTT_DEV_WINDOW_FLAG=1)?
#  - the callbacks having been on at all (--all-launches: on for good)?
#  - and which domain's: the runtime's launch callbacks or the driver's (the loop launches
#    through the runtime, which calls the driver), switched alone (KGANTT_DEV_LAUNCH_DOMAINS),
#    and the runtime's alone under the flag.
# And the exit's wall-clock, which waited out the windows' and the flusher's sleep before
# recorder/stop_wait.h (up to 90 + 100 ms).
# TINY_S, when given, runs tiny PyTorch ops for that long after it (the floor, full mode,
# the callbacks left on, every launch) into OUTDIR/tiny/.
#   tests/gpu/window_switch.sh OUTDIR [LOOP_S [TINY_S]]   OUTDIR/{overhead.csv,paired.md,wall.md}
set -u
out=${1:?usage: window_switch.sh OUTDIR [LOOP_S [TINY_S]]}
floor=kgantt-kernels-latency
tests/gpu/rounds.sh "$out" "${2:-300}" launch_loop \
	$floor,kgantt-full,kgantt-full-win-first,kgantt-full-winflag,kgantt-full-all-launches,kgantt-full-nowindows,kgantt-full-win-runtime,kgantt-full-win-driver,kgantt-full-winflag-runtime \
	kgantt-full/$floor kgantt-full-win-first/$floor kgantt-full-winflag/$floor \
	kgantt-full-all-launches/$floor kgantt-full-nowindows/$floor \
	kgantt-full-win-runtime/$floor kgantt-full-win-driver/$floor kgantt-full-winflag-runtime/$floor \
	kgantt-full/kgantt-full-winflag kgantt-full/kgantt-full-all-launches
[ -n "${3:-}" ] || exit 0
tests/gpu/rounds.sh "$out/tiny" "$3" torch_tiny \
	$floor,kgantt-full,kgantt-full-winflag,kgantt-full-all-launches \
	kgantt-full/$floor kgantt-full-winflag/$floor kgantt-full-all-launches/$floor \
	kgantt-full/kgantt-full-winflag
