#!/usr/bin/env bash
# bench/overhead.sh — tracing overhead of kgantt, side by side with raw CUPTI and the
# PyTorch profiler.  Run from the repository root on a GPU machine after `make` and
# `make bench-build`.  See bench/README.md.
#
#   bench/overhead.sh [-n RUNS] [-o OUTDIR] [-w WORKLOADS] [-c CONFIGS] [-t SECONDS] [-l] [-h]
#
#   -n RUNS       runs per workload x configuration (default 5)
#   -o OUTDIR     where overhead.md, overhead.csv and logs/ go
#                 (default build/bench/results/<date-time> in the repository)
#   -w WORKLOADS  comma list of launch_loop, torch_step, torch_tiny, torch_gpt (default: all four)
#   -c CONFIGS    comma list of configurations (default untraced,cupti-raw,kgantt-kernels,
#                 kgantt-full-nostacks,kgantt-full,torch-profiler); -l lists every one, what
#                 it measures and the command it runs (torch-profiler: torch workloads only)
#   -l            list the configurations and exit
#   -t SECONDS    time budget: start no run that would end after this many seconds (judged
#                 by the longest earlier run of the same workload x configuration, else of
#                 the workload) and report what was measured (default 0: none).
#                 SIGINT/SIGTERM also end it with a report.
#
# Environment (mostly for testing the script itself with stub programs):
#   KGANTT           kgantt binary                 (default build/kgantt)
#   LAUNCH_LOOP      launch_loop binary/command    (default build/bench/launch_loop)
#   CUPTI_RAW        cupti-raw injection library   (default build/bench/libcupti_raw.so)
#   PYTHON           python with torch             (default python3)
#   TORCH_STEP       torch workload command        (default "$PYTHON bench/torch_step.py";
#                    when set, the torch import check is skipped)
#   LAUNCH_LOOP_ARGS, TORCH_STEP_ARGS, TORCH_TINY_ARGS, TORCH_GPT_ARGS
#                    extra arguments, word-split (e.g. TORCH_GPT_ARGS="--batch 4")
#   RUN_TIMEOUT      seconds before one run is killed (default 120); a workload x
#                    configuration that timed out once is not run again
#   PRIME            1 (default): one discarded untraced run of each workload first
#   ORDER            shuffle (default): each round runs the configurations in a new random
#                    order (seeded by SEED, default 26), so that none always runs right
#                    after another; rotate: the order of -c, rotated every round (the tables
#                    before 2026-12-06 12:00: each configuration always ran right after the
#                    same one)
#   SKIP_GPU_CHECK   1: do not require nvidia-smi (stub testing only)
#   KEEP_TRACES      a directory: the traces of rounds 1 to KEEP_ROUNDS (default 3) are
#                    kept there as CONFIG.ROUND.kgt, for a look inside the runs
#                    (tests/tools/launch_spacing.py); by default every trace goes
#   HOST_HZ, SKIP_KINDS, SKIP_KINDS2, FULL_SKIP_KINDS
#                    settings of some configurations (-l shows them in place)
#
# Every run is recorded; a run that exits non-zero, prints no figure, or (for tracers)
# shows no sign that the tracer was active is FAILED, and the report says why, with the
# tail of its stderr.  The script itself fails only on bad usage or a missing GPU.
# After each kgantt run the trace's size and row counts (kernels, API calls, call stacks)
# go into the CSV, and the trace is deleted.
set -u -o pipefail
export LC_ALL=C

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$BENCH_DIR")

die() { echo "overhead.sh: error: $*" >&2; exit 1; }
log() { echo "overhead.sh: $*" >&2; }

usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

# ------------------------------------------------------------------ configurations
# Every configuration, once: its name, the environment its kgantt runs under (beyond
# CUDA_INJECTION64_PATH, always unset first), its `record` arguments and what it measures.
# The ones that are not kgantt (untraced, cupti-raw*, torch-profiler) have their commands in
# config_command.  The order is the report's: full mode's variants next to each other.
declare -a CONFIG_NAMES=()
declare -A CONFIG_ENV=() CONFIG_ARGS=() CONFIG_DOC=()
config() {  # NAME ENV RECORD_ARGS DOC
    CONFIG_NAMES+=("$1"); CONFIG_ENV[$1]=$2; CONFIG_ARGS[$1]=$3; CONFIG_DOC[$1]=$4
}
# the development switches (src/recorder/inject.c, dev_ab.h)
ALL_OFF="KGANTT_DEV_AB=all KGANTT_DEV_AB_MS=0 KGANTT_DEV_AB_LOG=/dev/null"
NO_WINDOWS="KGANTT_DEV_NO_LAUNCH_WINDOWS=1"
BARE="--mode full --host-samples=off --stacks off"
config untraced "" "" "the program alone"
config cupti-raw "" "" "a minimal CUPTI client enabling kernel records only (bench/cupti_raw.c): the floor of kernel tracing"
config cupti-raw-latency "CUPTI_RAW_LATENCY=1" "" \
    "cupti-raw with CUPTI's queued/submitted timestamps: what they cost without kgantt"
config cupti-raw-latency-tscb "CUPTI_RAW_LATENCY=1 CUPTI_RAW_TSCB=1" "" \
    "cupti-raw-latency with a timestamp callback (CLOCK_MONOTONIC_RAW) as kgantt registers one"
config kgantt-kernels "" "--mode kernels" "kernels mode"
config kgantt-kernels-latency "" "--mode kernels --latency on" \
    "kernels mode with latency timestamps: the GPU side full mode keeps without per-launch API records (issue 26)"
config kgantt-kernels-latency-notscb "KGANTT_DEV_NO_TSCB=1" "--mode kernels --latency on" \
    "kgantt-kernels-latency on CUPTI's clock (no timestamp callback; the trace's host times are then not the host's)"
config kgantt-full-notscb "KGANTT_DEV_NO_TSCB=1" "--mode full" \
    "full mode on CUPTI's clock (no timestamp callback; the trace's host times are then not the host's)"
config kgantt-full-nostacks "" "--mode full --stacks off" "full mode without call stacks"
config kgantt-full "" "--mode full" \
    "full mode as users get it, with the default call stacks (--stacks waits: synchronising calls, copies, memsets, allocations and sampled launches)"
config kgantt-full-stacks-by-kernel "KGANTT_DEV_STACKS_BY_KERNEL=1" "--mode full" \
    "full mode with the launch stack sampler counting by kernel, as before it counted by place (src/recorder/stacks.c)"
config kgantt-full-nohost "" "--mode full --host-samples=off" "full mode without host samples"
config kgantt-full-nowindows "$NO_WINDOWS" "--mode full" \
    "full mode with the launch callbacks never on (no launch call, no launch stack): what the windows cost"
config kgantt-full-alloff "$ALL_OFF" "--mode full" \
    "full mode set up as usual, then everything it adds to kernels mode with latency timestamps held off for the whole run: what full mode's process costs beyond its parts"
config kgantt-full-alloff-nohost "$ALL_OFF" "--mode full --host-samples=off" "kgantt-full-alloff without host samples"
config kgantt-full-alloff-bare "$ALL_OFF $NO_WINDOWS" "$BARE" \
    "kgantt-full-alloff without host samples, call stacks or launch windows"
config kgantt-full-alloff-nokinds "KGANTT_DEV_SKIP_KINDS=${SKIP_KINDS:-1,2,12,17,22,38} $ALL_OFF $NO_WINDOWS" "$BARE" \
    "kgantt-full-alloff-bare without ever enabling full mode's extra activity kinds (SKIP_KINDS)"
config kgantt-full-alloff-skip2 "KGANTT_DEV_SKIP_KINDS=${SKIP_KINDS2:-1} $ALL_OFF $NO_WINDOWS" "$BARE" \
    "kgantt-full-alloff-bare without the activity kinds SKIP_KINDS2 names"
config kgantt-full-nooverhead "KGANTT_DEV_SKIP_KINDS=17" "--mode full" "full mode without CUPTI's overhead records"
config kgantt-full-synckind "KGANTT_DEV_SYNC_KIND=1" "--mode full" \
    "full mode with CUPTI's sync records instead of the callbacks', as it was before src/recorder/sync_calls.h"
config kgantt-full-skip "KGANTT_DEV_SKIP_KINDS=${FULL_SKIP_KINDS:-1,2,12,22}" "--mode full" \
    "full mode without the activity kinds FULL_SKIP_KINDS names (default copies, memsets, NVTX, peer copies; measurement only)"
config kgantt-full-nocopies "KGANTT_DEV_SKIP_KINDS=1,2,22" "--mode full" \
    "full mode without copy, memset and peer-copy records (measurement only: which kind CUPTI charges every launch for)"
config kgantt-full-nonvtx "KGANTT_DEV_SKIP_KINDS=12" "--mode full" \
    "full mode without CUPTI's NVTX records (measurement only: which kind CUPTI charges every launch for)"
config kgantt-full-nomemcpy "KGANTT_DEV_SKIP_KINDS=1" "--mode full" \
    "full mode without copy records (measurement only: kind_cost.sh)"
config kgantt-full-nomemset "KGANTT_DEV_SKIP_KINDS=2" "--mode full" \
    "full mode without memset records (measurement only: kind_cost.sh)"
config kgantt-full-nopeer "KGANTT_DEV_SKIP_KINDS=22" "--mode full" \
    "full mode without peer-copy records (measurement only: kind_cost.sh)"
config kgantt-full-nokinds "KGANTT_DEV_SKIP_KINDS=1,2,12,17,22" "--mode full" \
    "full mode, every part on, none of its extra activity kinds ever enabled (measurement only: kinds_together.sh)"
config kgantt-full-onlycopies "KGANTT_DEV_SKIP_KINDS=12,17" "--mode full" \
    "full mode whose only extra activity kinds are copies, memsets and peer copies (measurement only)"
config kgantt-full-onlynvtx "KGANTT_DEV_SKIP_KINDS=1,2,17,22" "--mode full" \
    "full mode whose only extra activity kind is NVTX (measurement only)"
config kgantt-full-onlyoverhead "KGANTT_DEV_SKIP_KINDS=1,2,12,22" "--mode full" \
    "full mode whose only extra activity kind is CUPTI's overhead records (measurement only)"
config kgantt-full-nothing "KGANTT_DEV_SKIP_KINDS=1,2,4,5,12,17,22,38 KGANTT_DEV_API_ACTIVITY=1 $NO_WINDOWS" "$BARE" \
    "full mode without its extra activity kinds and without API callbacks"
config kgantt-kernels-latency-hooked "KGANTT_DEV_HOOK=1" "--mode kernels --latency on" \
    "kgantt-kernels-latency with every API callback enabled and disabled again at start: does CUPTI charge calls once callbacks were on"
config kgantt-kernels-latency-cb-runtime "KGANTT_DEV_HOOK=runtime" "--mode kernels --latency on" \
    "kgantt-kernels-latency with one runtime API callback on, for a function the program never calls: does CUPTI charge every runtime call while any of the domain's callbacks is on"
config kgantt-kernels-latency-cb-driver "KGANTT_DEV_HOOK=driver" "--mode kernels --latency on" \
    "kgantt-kernels-latency with one driver API callback on, for a function the program never calls: the same for the driver's calls"
config kgantt-full-cbonly "$NO_WINDOWS" "$BARE" \
    "full mode with its API callbacks only: no host samples, no call stacks, no launch windows"
config kgantt-full-nohost-nostacks "" "$BARE" \
    "full mode with its API callbacks and launch windows: no host samples, no call stacks"
config kgantt-full-win-1-100 "KGANTT_DEV_LAUNCH_WINDOW=1,100" "--mode full" \
    "full mode with launch windows of 1 ms in every 100 (the default 10 in 100): does the windows' cost follow the time they are open, or their opening?"
config kgantt-full-win-10-1000 "KGANTT_DEV_LAUNCH_WINDOW=10,1000" "--mode full" \
    "full mode with launch windows of 10 ms in every 1000: open as long as kgantt-full-win-1-100, opened a tenth as often"
config kgantt-full-win-first "KGANTT_DEV_LAUNCH_WINDOW=10,60000" "--mode full" \
    "full mode with its first launch window only (until no new kernel appears for 10 ms; the next would open after a minute): does closing the launch callbacks once, after launches began, cost every launch after it?"
config kgantt-full-cbwindows "KGANTT_DEV_NO_LAUNCH_HOOK=1" "--mode full" \
    "full mode with its launch windows from CUPTI's launch callbacks, as before the launch hook (src/preload/launch_hook.h)"
config kgantt-full-hookbare "KGANTT_DEV_HOOK_BARE=1" "--mode full" \
    "full mode with the launch hook's launches told but not recorded (the clock read twice): what recording them in the windows costs"
config kgantt-full-noquery "KGANTT_DEV_HOOK_QUERY=none" "--mode full" \
    "full mode with the launch hook's recorded launches made without CUPTI's queries of their stream and device: what the queries cost"
config kgantt-full-queryeach "KGANTT_DEV_HOOK_QUERY=each" "--mode full" \
    "full mode asking CUPTI for every recorded launch's stream and device, where by default each thread keeps them (src/recorder/hooked_launches.c; the default until 2026-12-07)"
config kgantt-full-querycached "KGANTT_DEV_HOOK_QUERY=cached" "--mode full" \
    "full mode with each thread keeping its streams' ids and devices: the default since 2026-12-07, named for the runs before it"
config kgantt-full-winflag "KGANTT_DEV_WINDOW_FLAG=1 KGANTT_DEV_NO_LAUNCH_HOOK=1" "--mode full" \
    "full mode with the launch callbacks never switched off: a closed window's launches passed over in the callback (does CUPTI charge the switching, or the callbacks having been on?)"
config kgantt-full-win-runtime "KGANTT_DEV_LAUNCH_DOMAINS=runtime" "--mode full" \
    "full mode whose windows switch the runtime's launch callbacks only, the driver's never on: which domain's launch callbacks CUPTI charges a runtime launch for"
config kgantt-full-win-driver "KGANTT_DEV_LAUNCH_DOMAINS=driver" "--mode full" \
    "full mode whose windows switch the driver's launch callbacks only, the runtime's never on"
config kgantt-full-winflag-runtime "KGANTT_DEV_WINDOW_FLAG=1 KGANTT_DEV_LAUNCH_DOMAINS=runtime" "--mode full" \
    "kgantt-full-winflag with the runtime's launch callbacks only"
config kgantt-kernels-latency-tid "KGANTT_DEV_TID=1" "--mode kernels --latency on" \
    "kgantt-kernels-latency with CUPTI naming threads by their kernel ids, as full mode has it"
config kgantt-kernels-latency-host "" "--mode kernels --latency on --host-samples=100" \
    "kgantt-kernels-latency with host samples at full mode's default"
config kgantt-full-dated "KGANTT_DEV_DATED=1" "--mode full --latency off" \
    "full mode with every launch dated by the launch hook (its call recorded, its stack only in windows) and no latency timestamps: issue 26's floor without CUPTI's latency cost (src/trace/hooked_import.h)"
config kgantt-full-all-launches "" "--mode full --all-launches" \
    "full mode with an API record for every kernel launch (by default launches are sampled in windows, src/recorder/launches.h)"
config kgantt-full-activity "KGANTT_DEV_API_ACTIVITY=1" "--mode full --all-launches" \
    "full mode with every launch and the API calls from CUPTI's activity records: full mode as it was before issue 26"
config kgantt-full-stacks-all "" "--mode full --stacks all" "full mode with a call stack for every recorded API call"
config kgantt-full-all-api "" "--mode full --all-api" "full mode with every trivial API query recorded too"
config kgantt-full-hw "" "--mode full --hw" "full mode with the GPU's counters sampled (PM sampling at the default interval)"
config kgantt-full-host "" "--mode full --host-samples=${HOST_HZ:-1000}" "full mode with host samples at HOST_HZ a second (default 1000)"
config torch-profiler "" "" "torch.profiler around the timed region, CPU and CUDA activities (torch workloads only)"
# the launch hook (src/preload/launch_hook.h) with a stand-in observer (tests/gpu/launch_hook_probe.c)
HOOK_LIB=${HOOK_LIB:-$PWD/build/libkgantt-launch.so}
HOOK_PROBE_LIB=${HOOK_PROBE_LIB:-$PWD/build/tests/gpu/libhookprobe.so}
config untraced-hook "LD_PRELOAD=$HOOK_LIB" "" \
    "the program alone, with the launch hook preloaded and no observer: what its entry points cost"
config untraced-hookprobe "LD_PRELOAD=$HOOK_LIB:$HOOK_PROBE_LIB HOOK_PROBE=window" "" \
    "the program alone, the launch hook telling a stand-in observer (two clock reads) every launch in windows of 10 ms in every 100 and each kernel's first"
config kgantt-kernels-latency-hookprobe "LD_PRELOAD=$HOOK_LIB:$HOOK_PROBE_LIB HOOK_PROBE=window" "--mode kernels --latency on" \
    "kgantt-kernels-latency with the launch hook's windows told to a stand-in observer: full mode's launch windows without CUPTI's launch callbacks"
config kgantt-kernels-hookstamp "LD_PRELOAD=$HOOK_LIB:$HOOK_PROBE_LIB HOOK_PROBE=stamp" "--mode kernels" \
    "kernels mode, every launch dated on the host by the launch hook (a stand-in observer reading the clock once and keeping it with the stream): what dating launches costs without CUPTI's latency timestamps"
config untraced-hookstamp "LD_PRELOAD=$HOOK_LIB:$HOOK_PROBE_LIB HOOK_PROBE=stamp" "" \
    "the program alone, every launch dated by the launch hook as in kgantt-kernels-hookstamp"

# config_command CONFIG TRACE: sets FULL=(the command line that runs BASE under CONFIG)
config_command() {
    local -a envs args
    read -r -a envs <<<"${CONFIG_ENV[$1]}"
    case $1 in
        untraced*)      FULL=(env -u CUDA_INJECTION64_PATH "${envs[@]}" "${BASE[@]}") ;;
        cupti-raw*)     FULL=(env "CUDA_INJECTION64_PATH=$CUPTI_RAW" "${envs[@]}" "${BASE[@]}") ;;
        torch-profiler) FULL=(env -u CUDA_INJECTION64_PATH "${BASE[@]}" --profiler) ;;
        *)  read -r -a args <<<"${CONFIG_ARGS[$1]}"
            FULL=(env -u CUDA_INJECTION64_PATH "${envs[@]}" "$KGANTT" record --force -o "$2" "${args[@]}" -- "${BASE[@]}") ;;
    esac
}

list_configs() {
    local c
    BASE=(PROG)
    for c in "${CONFIG_NAMES[@]}"; do
        config_command "$c" TRACE
        printf '%s\n    %s\n    %s\n' "$c" "${CONFIG_DOC[$c]}" "${FULL[*]}"
    done
}

RUNS=5
OUTDIR=""
WORKLOADS="launch_loop,torch_step,torch_tiny,torch_gpt"
CONFIGS="untraced,cupti-raw,kgantt-kernels,kgantt-full-nostacks,kgantt-full,torch-profiler"
BUDGET=0
while getopts ":n:o:w:c:t:lh" opt; do
    case $opt in
        n) RUNS=$OPTARG ;;
        o) OUTDIR=$OPTARG ;;
        w) WORKLOADS=$OPTARG ;;
        c) CONFIGS=$OPTARG ;;
        t) BUDGET=$OPTARG ;;
        l) KGANTT=${KGANTT:-build/kgantt} CUPTI_RAW=${CUPTI_RAW:-build/bench/libcupti_raw.so} list_configs; exit 0 ;;
        h) usage; exit 0 ;;
        :) die "option -$OPTARG needs an argument (see -h)" ;;
        *) die "unknown option -$OPTARG (see -h)" ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -eq 0 ]] || die "unexpected arguments: $* (see -h)"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "-n wants a positive integer, got '$RUNS'"
[[ $BUDGET =~ ^[0-9]+$ ]] || die "-t wants a number of seconds, got '$BUDGET'"

IFS=, read -r -a WL <<<"$WORKLOADS"
IFS=, read -r -a CF <<<"$CONFIGS"
[[ ${#WL[@]} -gt 0 ]] || die "no workloads"
[[ ${#CF[@]} -gt 0 ]] || die "no configurations"
for w in "${WL[@]}"; do
    case $w in launch_loop|torch_step|torch_tiny|torch_gpt) ;; *) die "unknown workload '$w'" ;; esac
done
for c in "${CF[@]}"; do
    [[ -n ${CONFIG_DOC[$c]:-} ]] || die "unknown configuration '$c' (-l lists them)"
done

[[ -n $OUTDIR ]] || OUTDIR="$REPO_DIR/build/bench/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUTDIR/logs" || die "cannot create $OUTDIR/logs"
OUTDIR=$(cd "$OUTDIR" && pwd)
LOGS="$OUTDIR/logs"
CSV="$OUTDIR/overhead.csv"
MD="$OUTDIR/overhead.md"
META="$OUTDIR/meta.txt"
: >"$META"
meta() { printf '%s\t%s\n' "$1" "$2" >>"$META"; }

RUN_TIMEOUT=${RUN_TIMEOUT:-120}
[[ $RUN_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "RUN_TIMEOUT wants a positive integer"
PRIME=${PRIME:-1}
ORDER=${ORDER:-shuffle}
[[ $ORDER == shuffle || $ORDER == rotate ]] || die "ORDER wants shuffle or rotate, got '$ORDER'"
SEED=${SEED:-26}
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED wants a non-negative integer, got '$SEED'"
PYTHON=${PYTHON:-python3}
REPORT_PY=python3
command -v "$REPORT_PY" >/dev/null 2>&1 || REPORT_PY=$PYTHON
command -v "$REPORT_PY" >/dev/null 2>&1 || die "python3 is needed for the report"
command -v timeout >/dev/null 2>&1 || die "coreutils 'timeout' is needed"

abspath() {  # absolute path of a file, or of a command found in PATH; empty if neither
    local p=$1
    if [[ $p == */* ]]; then
        [[ -e $p ]] && echo "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"
    else
        command -v "$p" 2>/dev/null || true
    fi
}

KGANTT_IN=${KGANTT:-$REPO_DIR/build/kgantt}
KGANTT=$(abspath "$KGANTT_IN")
CUPTI_RAW_IN=${CUPTI_RAW:-$REPO_DIR/build/bench/libcupti_raw.so}
CUPTI_RAW=$(abspath "$CUPTI_RAW_IN")
if [[ -n ${LAUNCH_LOOP:-} ]]; then
    read -r -a LL_CMD <<<"$LAUNCH_LOOP"
    LL_CUSTOM=1
else
    LL_CMD=("$REPO_DIR/build/bench/launch_loop")
    LL_CUSTOM=0
fi
if [[ -n ${TORCH_STEP:-} ]]; then
    read -r -a TS_CMD <<<"$TORCH_STEP"
    TS_CUSTOM=1
else
    TS_CMD=("$PYTHON" "$BENCH_DIR/torch_step.py")
    TS_CUSTOM=0
fi
read -r -a LL_ARGS <<<"${LAUNCH_LOOP_ARGS:-}"
read -r -a TSTEP_ARGS <<<"${TORCH_STEP_ARGS:-}"
read -r -a TTINY_ARGS <<<"${TORCH_TINY_ARGS:-}"
read -r -a TGPT_ARGS <<<"${TORCH_GPT_ARGS:-}"

has_workload() { local x; for x in "${WL[@]}"; do [[ $x == "$1" ]] && return 0; done; return 1; }
has_config()   { local x; for x in "${CF[@]}"; do [[ $x == "$1" ]] && return 0; done; return 1; }
has_kgantt_config() { local x; for x in "${CF[@]}"; do [[ $x == kgantt-* ]] && return 0; done; return 1; }
has_torch_workload() { local x; for x in "${WL[@]}"; do [[ $x == torch_* ]] && return 0; done; return 1; }

# ------------------------------------------------------------------ pre-flight checks
# Problems with one part mark that part unavailable (its rows say FAILED and why); the
# rest still runs.
declare -A UNAVAIL=()

if [[ ${SKIP_GPU_CHECK:-0} == 1 ]]; then
    log "SKIP_GPU_CHECK=1: not checking for a GPU"
    GPU_INFO="(GPU check skipped)"
else
    command -v nvidia-smi >/dev/null 2>&1 || die "nvidia-smi not found: this must run on a GPU machine"
    GPU_INFO=$(timeout 60 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1) \
        || die "nvidia-smi failed: $GPU_INFO"
    [[ -n $GPU_INFO ]] || die "nvidia-smi lists no GPU"
fi
log "GPU: $GPU_INFO"
meta gpu "$(echo "$GPU_INFO" | paste -sd ';' -)"

# Where ldd finds no library, look for it in the usual CUDA places and in the python's
# nvidia wheels, and add that folder to LD_LIBRARY_PATH (for every configuration alike).
LIBFIX=""
FIX_MSG=""
fix_libs() {  # $1: binary or shared library; sets FIX_MSG when something stays unresolved
    local f=$1 lib dir found sp
    FIX_MSG=""
    command -v ldd >/dev/null 2>&1 || return 0
    for lib in $(ldd "$f" 2>/dev/null | awk '/not found/ {print $1}'); do
        found=""
        for dir in ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda-*/lib64 \
                   /usr/local/cuda/targets/*/lib /usr/lib/x86_64-linux-gnu; do
            [[ -e $dir/$lib ]] && { found=$dir; break; }
        done
        if [[ -z $found ]]; then
            for sp in $("$PYTHON" -c 'import site; print("\n".join(site.getsitepackages()+[site.getusersitepackages()]))' 2>/dev/null); do
                [[ -d $sp/nvidia ]] || continue
                found=$(find "$sp/nvidia" -maxdepth 4 -name "$lib" -print -quit 2>/dev/null)
                [[ -n $found ]] && { found=$(dirname "$found"); break; }
            done
        fi
        if [[ -n $found ]]; then
            log "$(basename "$f") needs $lib: found in $found, adding it to LD_LIBRARY_PATH (for every configuration)"
            export LD_LIBRARY_PATH="$found${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
            LIBFIX="$LIBFIX $found"
        else
            log "WARNING: $(basename "$f") needs $lib, which was found nowhere"
        fi
    done
    if ldd "$f" 2>/dev/null | grep -q 'not found'; then
        FIX_MSG="unresolved libraries: $(ldd "$f" 2>/dev/null | awk '/not found/ {print $1}' | paste -sd ' ' -)"
    fi
}

if has_workload launch_loop; then
    if [[ $LL_CUSTOM == 0 && ! -x ${LL_CMD[0]} ]]; then
        UNAVAIL[launch_loop]="${LL_CMD[0]} missing: run 'make bench-build'"
    elif [[ $LL_CUSTOM == 0 ]]; then
        fix_libs "${LL_CMD[0]}"
        [[ -n $FIX_MSG ]] && UNAVAIL[launch_loop]="launch_loop: $FIX_MSG"
    fi
fi
for c in "${CF[@]}"; do
    [[ $c == cupti-raw* ]] || continue
    if [[ -z $CUPTI_RAW || ! -f $CUPTI_RAW ]]; then
        UNAVAIL[$c]="$CUPTI_RAW_IN missing: run 'make bench-build'"
    else
        fix_libs "$CUPTI_RAW"
        [[ -n $FIX_MSG ]] && UNAVAIL[$c]="libcupti_raw.so: $FIX_MSG"
    fi
done
if has_kgantt_config; then
    if [[ -z $KGANTT || ! -x $KGANTT ]]; then
        for c in "${CF[@]}"; do
            [[ $c == kgantt-* ]] && UNAVAIL[$c]="$KGANTT_IN missing: run 'make'"
        done
        KGANTT_VERSION="(missing)"
    else
        KGANTT_VERSION=$(timeout 20 "$KGANTT" --version </dev/null 2>&1 | head -n1)
        [[ -n $KGANTT_VERSION ]] || KGANTT_VERSION="(--version printed nothing)"
    fi
    meta kgantt "${KGANTT:-$KGANTT_IN} ($KGANTT_VERSION)"
fi
TORCH_INFO="(not used)"
if has_torch_workload; then
    if [[ $TS_CUSTOM == 1 ]]; then
        TORCH_INFO="(custom TORCH_STEP: not checked)"
    else
        TORCH_INFO=$(timeout 180 "$PYTHON" -c '
import sys
import torch
ok = torch.cuda.is_available()
print("torch %s, CUDA %s, cuda available: %s" % (torch.__version__, torch.version.cuda, ok))
sys.exit(0 if ok else 3)' 2>&1)
        rc=$?
        if [[ $rc -ne 0 ]]; then
            TORCH_INFO=$(echo "$TORCH_INFO" | tail -n 3 | paste -sd ' ' -)
            for w in torch_step torch_tiny torch_gpt; do
                UNAVAIL[$w]="torch check failed ($PYTHON, exit $rc): $TORCH_INFO"
            done
        fi
    fi
    log "torch: $TORCH_INFO"
fi
meta torch "$TORCH_INFO"
meta host "$(hostname 2>/dev/null) / $(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}') / $(nproc 2>/dev/null) CPUs"
meta ld_library_path_added "${LIBFIX:-none}"
for k in "${!UNAVAIL[@]}"; do log "UNAVAILABLE $k: ${UNAVAIL[$k]}"; done

# ------------------------------------------------------------------ workloads
wl_key() {
    case $1 in launch_loop) echo us_per_launch ;; torch_step|torch_gpt) echo ms_per_step ;; torch_tiny) echo us_per_op ;; esac
}
wl_unit() {
    case $1 in launch_loop) echo "µs/launch" ;; torch_step|torch_gpt) echo "ms/step" ;; torch_tiny) echo "µs/op" ;; esac
}
wl_cmd() {  # sets BASE=(command of workload $1)
    case $1 in
        launch_loop) BASE=("${LL_CMD[@]}" "${LL_ARGS[@]}") ;;
        torch_step)  BASE=("${TS_CMD[@]}" "${TSTEP_ARGS[@]}") ;;
        torch_tiny)  BASE=("${TS_CMD[@]}" --tiny "${TTINY_ARGS[@]}") ;;
        torch_gpt)   BASE=("${TS_CMD[@]}" --gpt "${TGPT_ARGS[@]}") ;;
    esac
}
applies() {  # workload config
    [[ $2 != torch-profiler || $1 == torch_* ]]
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kgantt-overhead.XXXXXX") || die "mktemp failed"
INTERRUPTED=0
declare -A TIMEDOUT=()
trap 'rm -rf "$TMP"' EXIT
trap 'INTERRUPTED=1; log "interrupted: finishing the report with what was measured"' INT TERM

csvq() { local s=${1//\"/\"\"}; s=${s//$'\n'/ }; printf '"%s"' "$s"; }
echo "run,workload,config,status,figure,unit,wall_s,exit_code,trace_bytes,cupti_records,kernels,api_calls,stacks,stack_frames,api_stacks,stack_mode,note,stdout_log,stderr_log,after_program_s,symbols_s" >"$CSV"

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# trace_counts TRACE: prints "kernels api_calls stacks stack_frames api_stacks stack_mode"
# (a table the trace lacks counts 0: a trace recorded with --stacks off may have no stack
# tables; a compacted trace, format 5, keeps kernels and API calls only as blocks of the
# table packed, whose rows column counts them; stack_mode is stack_settings.mode, "-" when
# there is none).  Non-zero exit and a message on stderr when the trace cannot be read.
trace_counts() {
    timeout 120 "$REPORT_PY" - "$1" <<'PYEOF'
import pathlib, sqlite3, sys
db = sqlite3.connect(pathlib.Path(sys.argv[1]).resolve().as_uri() + "?mode=ro", uri=True)
have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
def rows(t):
    if t in have:
        return db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
    if "packed" in have:
        return db.execute("SELECT COALESCE(SUM(rows), 0) FROM packed WHERE tbl = ?", (t,)).fetchone()[0]
    return 0
out = [str(rows(t)) for t in ("kernels", "api_calls", "stacks", "stack_frames", "api_stacks")]
modes = []
if "stack_settings" in have:
    modes = sorted({str(r[0]) for r in db.execute("SELECT mode FROM stack_settings") if r[0] is not None})
out.append("+".join(modes) or "-")
print(" ".join(out))
PYEOF
}

# run_one RUN WORKLOAD CONFIG  (RUN "prime" = discarded warm-up run, not in the CSV)
run_one() {
    local r=$1 w=$2 c=$3 key unit out err rc=0 t0 t1 wall fig="" status=OK note="" tb="" recs=""
    local counts="" nk="" na="" ns="" nf="" nx="" smode=""
    key=$(wl_key "$w"); unit=$(wl_unit "$w")
    out="$LOGS/$w.$c.$r.out"; err="$LOGS/$w.$c.$r.err"
    local reason=${UNAVAIL[$w]:-${UNAVAIL[$c]:-${TIMEDOUT[$w/$c]:-}}}
    if [[ -n $reason ]]; then
        [[ $r == prime ]] && return 0
        printf '%s,%s,%s,FAILED,,%s,,,,,,,,,,,%s,,\n' "$r" "$w" "$c" "$unit" "$(csvq "not run: $reason")" >>"$CSV"
        return 0
    fi
    wl_cmd "$w"
    local trace=""
    [[ $c == kgantt-* ]] && trace="$TMP/$c.kgt"
    config_command "$c" "$trace"
    local -a full=("${FULL[@]}")
    [[ -n $trace ]] && rm -rf "$trace" "$trace.spool"
    printf '%q ' "${full[@]}" >"$out.cmd"; echo >>"$out.cmd"

    t0=$(now)
    timeout -k 10 "$RUN_TIMEOUT" "${full[@]}" >"$out" 2>"$err" </dev/null || rc=$?
    t1=$(now)
    wall=$(elapsed "$t0" "$t1")
    # (a run that timed out is not run again and would only overstate the others)
    [[ $rc -eq 124 || $rc -eq 137 ]] || note_longest "$w" "$c" "$wall"

    fig=$(grep -E "^${key}=" "$out" 2>/dev/null | tail -n1 | cut -d= -f2- | tr -d '[:space:]')
    if [[ -n $fig && ! $fig =~ ^[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
        note="unparsable figure '$fig'"; fig=""
    fi
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        status=FAILED; note="timed out after ${RUN_TIMEOUT}s (exit $rc)"
        TIMEDOUT[$w/$c]="a run timed out earlier (RUN_TIMEOUT=${RUN_TIMEOUT}s)"
    elif [[ $rc -ne 0 ]]; then
        status=FAILED; note="exit status $rc"
    elif [[ -z $fig ]]; then
        status=FAILED; note="${note:-printed no ${key}= line}"
    fi
    if [[ $c == cupti-raw* ]]; then
        recs=$(grep -E '^cupti_raw: records=' "$err" 2>/dev/null | tail -n1 | sed -E 's/^cupti_raw: records=([0-9]+).*/\1/')
        if ! grep -q '^cupti_raw: initialized' "$err" 2>/dev/null; then
            status=FAILED; note="${note:+$note; }injection library did not report 'cupti_raw: initialized' (not loaded?)"
        fi
        grep -q '^cupti_raw: ERROR' "$err" 2>/dev/null && note="${note:+$note; }cupti_raw reported errors"
    fi
    if [[ -n $trace ]]; then
        if [[ -s $trace ]]; then
            tb=$(stat -c %s "$trace" 2>/dev/null || wc -c <"$trace")
            if [[ $r != prime ]]; then
                local crc=0
                counts=$(trace_counts "$trace" 2>"$TMP/counts.err") || crc=$?
                if [[ $crc -eq 0 ]]; then
                    read -r nk na ns nf nx smode <<<"$counts"
                else
                    note="${note:+$note; }cannot count the trace's rows (exit $crc): $(tail -n 1 "$TMP/counts.err")"
                fi
            fi
        elif [[ $status == OK ]]; then
            status=FAILED; note="exit 0 but no trace file written ($trace)"
        fi
        if [[ -n ${KEEP_TRACES:-} && $r != prime && -s $trace && $r -le ${KEEP_ROUNDS:-3} ]]; then
            mkdir -p "$KEEP_TRACES" && cp "$trace" "$KEEP_TRACES/$c.$r.kgt"
        fi
        # The figures are taken: the trace (and a spool a failed run left) can go.
        rm -rf "$trace" "$trace.spool"
    fi

    if [[ $r == prime ]]; then
        log "prime $w: $status ${fig:+$fig $unit} (${wall}s)${note:+ — $note}"
        return 0
    fi
    # record's own line: how long it wrote the trace after the program ended, and the part
    # of that spent on the call stacks' symbols when it was most of it
    local after="" syms=""
    if [[ -n $trace ]]; then
        after=$(sed -nE 's/.*\(([0-9.]+) s after the program ended.*/\1/p' "$err" | tail -n1)
        syms=$(sed -nE 's/.*after the program ended, ([0-9.]+) s of it symbolising.*/\1/p' "$err" | tail -n1)
    fi
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$r" "$w" "$c" "$status" \
        "$fig" "$unit" "$wall" "$rc" "$tb" "$recs" "$nk" "$na" "$ns" "$nf" "$nx" "$(csvq "$smode")" \
        "$(csvq "$note")" "$(csvq "logs/$(basename "$out")")" "$(csvq "logs/$(basename "$err")")" \
        "$after" "$syms" >>"$CSV"
    log "[$r/$RUNS] $w $c: $status ${fig:+$fig $unit} (${wall}s)${note:+ — $note}"
}

# The longest wall time seen so far per workload x configuration and per workload (the
# discarded priming run included), to judge whether a run still fits into the -t budget.
declare -A LONGEST=()
note_longest() {  # workload config seconds
    local k
    for k in "$1/$2" "$1"; do
        if [[ -z ${LONGEST[$k]:-} ]] || awk -v a="$3" -v b="${LONGEST[$k]}" 'BEGIN { exit !(a > b) }'; then
            LONGEST[$k]=$3
        fi
    done
}

START=$(now)
BUDGET_SKIPPED=0
# budget_check WORKLOAD CONFIG: 0 go; 1 the budget is used up (no more runs at all);
# 2 this run would end past the budget, judged by the longest earlier run of the same
# workload x configuration (else of the same workload): skip it, cheaper runs may fit.
budget_check() {
    [[ $BUDGET -gt 0 ]] || return 0
    local t=${LONGEST[$1/$2]:-${LONGEST[$1]:-0}}
    local used
    used=$(elapsed "$START" "$(now)")
    if awk -v u="$used" -v b="$BUDGET" 'BEGIN { exit !(u > b) }'; then
        if [[ $INTERRUPTED == 0 ]]; then
            log "time budget of ${BUDGET}s used up: no new runs"
            INTERRUPTED=1
        fi
        return 1
    fi
    if awk -v u="$used" -v t="$t" -v b="$BUDGET" 'BEGIN { exit !(u + t > b) }'; then
        log "not starting $1 $2: a run took up to ${t}s, which would end past the ${BUDGET}s budget (${used}s used)"
        BUDGET_SKIPPED=$((BUDGET_SKIPPED + 1))
        return 2
    fi
    return 0
}
meta started "$(date '+%Y-%m-%d %H:%M:%S %Z')"
meta runs "$RUNS"
meta order "$ORDER"
meta seed "$SEED"
meta run_timeout "$RUN_TIMEOUT"
meta host_hz "${HOST_HZ:-1000}"
meta config_order "${CONFIG_NAMES[*]}"
{ printf 'launch_loop:'; printf ' %q' "${LL_CMD[@]}" "${LL_ARGS[@]}"; echo; } >"$OUTDIR/commands.txt"
{ printf 'torch:'; printf ' %q' "${TS_CMD[@]}"; echo; } >>"$OUTDIR/commands.txt"
for w in "${WL[@]}"; do
    [[ $w == torch_* ]] || continue
    wl_cmd "$w"
    args=("${BASE[@]:${#TS_CMD[@]}}")
    { printf '%s:' "$w"; [[ ${#args[@]} -gt 0 ]] && printf ' %q' "${args[@]}"; echo; } >>"$OUTDIR/commands.txt"
done
meta commands "$(paste -sd ';' "$OUTDIR/commands.txt")"

if [[ $PRIME == 1 ]]; then
    for w in "${WL[@]}"; do
        [[ $INTERRUPTED == 1 ]] && break
        budget_check "$w" untraced; bc=$?
        [[ $bc == 1 ]] && break
        [[ $bc == 2 ]] && continue
        run_one prime "$w" untraced
    done
fi

# round_order R: sets ORDERED to the configurations in round R's order. Rotating keeps
# each configuration's predecessor (a process starting while the one before it is still
# being torn down pays for that one, always the same one); shuffling does not.
ncf=${#CF[@]}
round_order() {
    local i j t
    ORDERED=()
    for ((i = 0; i < ncf; i++)); do ORDERED+=("${CF[$(( (i + $1 - 1) % ncf ))]}"); done
    [[ $ORDER == shuffle ]] || return 0
    for ((i = ncf - 1; i > 0; i--)); do
        j=$((RANDOM % (i + 1)))
        t=${ORDERED[i]}; ORDERED[i]=${ORDERED[j]}; ORDERED[j]=$t
    done
}
RANDOM=$SEED
for ((r = 1; r <= RUNS && INTERRUPTED == 0; r++)); do
    for w in "${WL[@]}"; do
        round_order "$r"
        for ((i = 0; i < ncf && INTERRUPTED == 0; i++)); do
            c=${ORDERED[i]}
            applies "$w" "$c" || continue
            budget_check "$w" "$c"; bc=$?
            [[ $bc == 1 ]] && break
            [[ $bc == 2 ]] && continue
            run_one "$r" "$w" "$c"
        done
        [[ $INTERRUPTED == 1 ]] && break
    done
done
END=$(now)
meta total_s "$(elapsed "$START" "$END")"
meta interrupted "$INTERRUPTED"
meta budget_skipped "$BUDGET_SKIPPED"
meta workloads "${WL[*]}"
meta configs "${CF[*]}"
log "all runs done in $(elapsed "$START" "$END")s; writing $MD"

# ------------------------------------------------------------------ report
"$REPORT_PY" - "$CSV" "$MD" "$META" "$OUTDIR" <<'PYEOF'
import csv, os, statistics, sys

csv_path, md_path, meta_path, outdir = sys.argv[1:5]
meta = {}
with open(meta_path, encoding="utf-8", errors="replace") as f:
    for line in f:
        k, _, v = line.rstrip("\n").partition("\t")
        meta[k] = v
with open(csv_path, newline="", encoding="utf-8", errors="replace") as f:
    rows = list(csv.DictReader(f))

wl_order = meta.get("workloads", "").split()
# Report order (not the run order): the configuration table's, so that the cost of a
# part reads off adjacent rows.
CANON = meta.get("config_order", "").split()
cf_order = CANON + [c for c in meta.get("configs", "").split() if c not in CANON]
COUNTS = ("kernels", "api_calls", "stacks", "stack_frames", "api_stacks")
groups = {}
for row in rows:
    groups.setdefault((row["workload"], row["config"]), []).append(row)

def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None

def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    return f"{v:.{digits}f}"

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

stats = {}
for key, rs in groups.items():
    ok = [r for r in rs if r["status"] == "OK"]
    figs = [fnum(r["figure"]) for r in ok]
    figs = [x for x in figs if x is not None]
    stats[key] = {
        "n": len(rs), "ok": len(ok), "unit": rs[0]["unit"],
        "median": med(figs), "min": min(figs) if figs else None, "max": max(figs) if figs else None,
        "wall": med([fnum(r["wall_s"]) for r in ok]),
        # (older CSVs have no such columns)
        "after": med([fnum(r.get("after_program_s") or "") for r in ok]),
        "trace": med([fnum(r["trace_bytes"]) for r in ok]),
        "records": med([fnum(r["cupti_records"]) for r in ok]),
        # bytes per kernel of each run, then the median (a run with 0 kernels has none)
        "bpk": med([fnum(r["trace_bytes"]) / fnum(r["kernels"]) for r in ok
                    if fnum(r["trace_bytes"]) is not None and fnum(r.get("kernels"))]),
        "modes": sorted({r.get("stack_mode") or "-" for r in ok if r.get("kernels")}),
    }
    for c_ in COUNTS:
        stats[key][c_] = med([fnum(r.get(c_)) for r in ok])

out = []
out.append("# kgantt tracing overhead\n")
out.append(f"- date: {meta.get('started', '?')}")
out.append(f"- GPU (name, driver): {meta.get('gpu', '?')}")
out.append(f"- host: {meta.get('host', '?')}")
out.append(f"- torch: {meta.get('torch', '?')}")
if "kgantt" in meta:
    out.append(f"- kgantt: {meta['kgantt']}")
order = ("configuration order rotated every round" if meta.get("order", "rotate") == "rotate" else
         f"configuration order shuffled every round, seed {meta.get('seed', '?')}")
out.append(f"- runs per configuration: {meta.get('runs', '?')}, interleaved round-robin "
           f"({order}); total {meta.get('total_s', '?')} s")
if meta.get("ld_library_path_added", "none") != "none":
    out.append(f"- added to LD_LIBRARY_PATH:{meta['ld_library_path_added']}")
if meta.get("interrupted") == "1" or meta.get("budget_skipped", "0") not in ("", "0"):
    out.append("- **stopped early** (signal or -t budget): the figures below cover only the runs that finished")
if meta.get("budget_skipped", "0") not in ("", "0"):
    out.append(f"- {meta['budget_skipped']} runs not started because, judged by the longest earlier run "
               "of the same workload, they would have ended past the -t budget")
out.append(f"- commands: {meta.get('commands', '?')}")
out.append("")
out.append("Figure: the workload's own timing of its timed region (median of the runs; "
           "each run prints the median of its inner repetitions). Ratio and Δ are against "
           "the untraced median of the same workload. Wall-clock: the whole command, tracer "
           "start-up and trace conversion included.\n")
out.append("| workload | config | median | ratio | Δ vs untraced | min–max | wall-clock median (s) | wall ratio | trace size | ok runs |")
out.append("|---|---|---|---|---|---|---|---|---|---|")

keys = sorted(groups, key=lambda k: (wl_order.index(k[0]) if k[0] in wl_order else 99,
                                     cf_order.index(k[1]) if k[1] in cf_order else 99))
for w, c in keys:
    s = stats[(w, c)]
    base = stats.get((w, "untraced"), {})
    bm, bw = base.get("median"), base.get("wall")
    if s["median"] is None:
        out.append(f"| {w} | {c} | **FAILED** | | | | | | | 0/{s['n']} |")
        continue
    ratio = f"{s['median'] / bm:.2f}×" if bm else "n/a"
    delta = ("—" if c == "untraced" else f"{s['median'] - bm:+.3g} {s['unit']}") if bm is not None else "n/a"
    wratio = f"{s['wall'] / bw:.2f}×" if (bw and s["wall"] is not None) else "n/a"
    if s["trace"] is not None:
        tsz = f"{s['trace'] / 1e6:.1f} MB"
    elif s["records"] is not None:
        tsz = f"{int(s['records'])} records"
    else:
        tsz = ""
    okc = f"{s['ok']}/{s['n']}" + (" ⚠" if s["ok"] < s["n"] else "")
    out.append(f"| {w} | {c} | {fmt(s['median'])} {s['unit']} | {ratio} | {delta} | "
               f"{fmt(s['min'])}–{fmt(s['max'])} | {fmt(s['wall'], 2)} | {wratio} | {tsz} | {okc} |")

def cnt(v):
    return "n/a" if v is None else f"{int(round(v)):,}"

def mb(v):
    return "n/a" if v is None else f"{v / 1e6:.1f} MB"

def ratio_of(a, b):
    return f"{a / b:.3f}×" if (a is not None and b) else "n/a"

# ---- what the kgantt traces hold
tkeys = [k for k in keys if k[1].startswith("kgantt-") and stats[k]["trace"] is not None]
if tkeys:
    out.append("\n## What the kgantt traces hold\n")
    out.append("Medians over the successful runs. Rows counted with SQLite right after each run "
               "(a table the trace lacks counts 0); bytes per kernel is the file size divided by the "
               "kernels, per run, then the median. stack mode: `stack_settings.mode` in the trace.\n")
    out.append("**after the program**: what `record` took, once the program had ended, to write the "
               "trace (its own line on stderr; its call stacks' symbols in the CSV's symbols_s when "
               "they were most of it): the wall-clock beyond it is the program's own.\n")
    out.append("| workload | config | trace size | kernels | API calls | api_stacks | stacks | stack_frames "
               "| frames per stack | trace bytes per kernel | stack mode | after the program (s) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for w, c in tkeys:
        s = stats[(w, c)]
        fps = f"{s['stack_frames'] / s['stacks']:.1f}" if (s["stacks"] and s["stack_frames"] is not None) else "—"
        bpk = f"{s['bpk']:.0f}" if s["bpk"] is not None else "n/a"
        out.append(f"| {w} | {c} | {mb(s['trace'])} | {cnt(s['kernels'])} | {cnt(s['api_calls'])} | "
                   f"{cnt(s['api_stacks'])} | {cnt(s['stacks'])} | {cnt(s['stack_frames'])} | {fps} | {bpk} | "
                   f"{', '.join('none' if m == '-' else m for m in s['modes']) or 'n/a'} | "
                   f"{fmt(s['after'], 2) if s['after'] is not None else 'n/a'} |")

def paired_ratios(w, a, b):
    """a / b for each round in which both configurations of workload w succeeded."""
    by_run = {}
    for c in (a, b):
        for r in groups.get((w, c), []):
            if r["status"] == "OK" and r["figure"] and str(r["run"]).isdigit():
                by_run.setdefault(int(r["run"]), {})[c] = float(r["figure"])
    return [v[a] / v[b] for k, v in sorted(by_run.items()) if a in v and b in v and v[b] > 0]

# ---- the cost of call stacks: kgantt-full (and -stacks-all) against kgantt-full-nostacks
def bytes_per_stack(w, c):
    a, b = stats.get((w, c)), stats.get((w, "kgantt-full-nostacks"))
    if not a or not b or a["trace"] is None or b["trace"] is None:
        return "n/a"
    if not a["api_stacks"]:
        return "n/a (no api_stacks rows)"
    return f"{(a['trace'] - b['trace']) / a['api_stacks']:.0f}"

skw = [w for w in dict.fromkeys(k[0] for k in keys)
       if (w, "kgantt-full-nostacks") in stats
       and ((w, "kgantt-full") in stats or (w, "kgantt-full-stacks-all") in stats)]
if skw:
    out.append("\n## Cost of call stacks\n")
    out.append("kgantt-full records call stacks by default (`--stacks waits`: synchronising calls, "
               "copies, memsets, allocations and sampled launches), kgantt-full-nostacks is the same "
               "with `--stacks off`, kgantt-full-stacks-all `--stacks all` (every recorded call). "
               "**stacks cost** = median of kgantt-full / median of kgantt-full-nostacks (the "
               "workload's own figure; 1.00× = free); **wall** the same for the whole command, trace "
               "conversion included. **bytes per stack** = (median trace size with stacks − median "
               "size without) / median api_stacks rows of the traces with stacks: everything stacks "
               "add to the file (frames, strings, modules) per call that got one.\n")
    have_all = any((w, "kgantt-full-stacks-all") in stats for w in skw)
    hdr = "| workload | full, no stacks | full (stacks: waits) | stacks cost | wall | bytes per stack |"
    sep = "|---|---|---|---|---|---|"
    if have_all:
        hdr += " full, stacks: all | all / no stacks | wall (all) | bytes per stack (all) |"
        sep += "---|---|---|---|"
    out.append(hdr)
    out.append(sep)
    for w in skw:
        b = stats[(w, "kgantt-full-nostacks")]
        row = [w, f"{fmt(b['median'])} {b['unit']}" if b["median"] is not None else "**FAILED**"]
        for c in ("kgantt-full",) + (("kgantt-full-stacks-all",) if have_all else ()):
            s = stats.get((w, c))
            if not s:
                row += ["not run", "", "", ""]
                continue
            row += [f"{fmt(s['median'])} {s['unit']}" if s["median"] is not None else "**FAILED**",
                    ("**" + ratio_of(s["median"], b["median"]) + "**") if s["median"] is not None
                    and b["median"] else "n/a",
                    ratio_of(s["wall"], b["wall"]), bytes_per_stack(w, c)]
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    for w in skw:
        s, b = stats.get((w, "kgantt-full")), stats[(w, "kgantt-full-nostacks")]
        if s and s["median"] is not None and b["median"]:
            out.append(f"- stacks cost, {w}: kgantt-full / kgantt-full-nostacks = "
                       f"{s['median'] / b['median']:.3f}× ({fmt(s['median'])} vs {fmt(b['median'])} {s['unit']}, "
                       f"medians of {s['ok']} and {b['ok']} runs)")
            pr = paired_ratios(w, "kgantt-full", "kgantt-full-nostacks")
            if pr:
                out.append(f"  - paired by round (the two ran back to back in each round, so drift "
                           f"between rounds cancels): median {statistics.median(pr):.3f}×, per round "
                           + ", ".join(f"{x:.3f}" for x in pr))
        else:
            out.append(f"- stacks cost, {w}: n/a (kgantt-full or kgantt-full-nostacks has no successful run)")

# ---- the cost of hardware sampling: kgantt-full-hw (record --hw) against kgantt-full
hww = [w for w in dict.fromkeys(k[0] for k in keys)
       if (w, "kgantt-full-hw") in stats and (w, "kgantt-full") in stats]
if hww:
    out.append("\n## Cost of hardware samples\n")
    out.append("kgantt-full-hw is kgantt-full with `--hw` (CUPTI PM sampling at the default interval). "
               "**hw cost** = median of kgantt-full-hw / median of kgantt-full; **paired** = median "
               "over rounds of the two runs of the same round (drift between rounds cancels); "
               "**bytes** = what the samples add to the trace (median sizes).\n")
    out.append("| workload | full | full + --hw | hw cost | paired | wall | bytes added |")
    out.append("|---|---|---|---|---|---|---|")
    for w in hww:
        a, b = stats[(w, "kgantt-full-hw")], stats[(w, "kgantt-full")]
        pr = paired_ratios(w, "kgantt-full-hw", "kgantt-full")
        added = (f"{(a['trace'] - b['trace']) / 1e6:.1f} MB" if a["trace"] is not None
                 and b["trace"] is not None else "n/a")
        out.append(f"| {w} | {fmt(b['median'])} {b['unit']} | {fmt(a['median'])} {a['unit']} | "
                   f"{ratio_of(a['median'], b['median'])} | "
                   f"{(f'{statistics.median(pr):.3f}×') if pr else 'n/a'} | "
                   f"{ratio_of(a['wall'], b['wall'])} | {added} |")

# ---- the cost of host samples: kgantt-full-host against kgantt-full
hsw = [w for w in dict.fromkeys(k[0] for k in keys)
       if (w, "kgantt-full-host") in stats and (w, "kgantt-full") in stats]
if hsw:
    out.append("\n## Cost of host samples\n")
    out.append(f"kgantt-full-host is kgantt-full with host samples (record --host-samples="
               f"{meta.get('host_hz', '1000')} a second). **host cost** = median of kgantt-full-host / median of kgantt-full; "
               "**paired** = median over rounds of the two runs of the same round, with the spread of "
               "the rounds; **bytes** = what the samples add to the trace (median sizes).\n")
    out.append("| workload | full | full + host samples | host cost | paired (min–max) | wall | bytes added |")
    out.append("|---|---|---|---|---|---|---|")
    for w in hsw:
        a, b = stats[(w, "kgantt-full-host")], stats[(w, "kgantt-full")]
        pr = paired_ratios(w, "kgantt-full-host", "kgantt-full")
        added = (f"{(a['trace'] - b['trace']) / 1e6:.2f} MB" if a["trace"] is not None
                 and b["trace"] is not None else "n/a")
        out.append(f"| {w} | {fmt(b['median'])} {b['unit']} | {fmt(a['median'])} {a['unit']} | "
                   f"{ratio_of(a['median'], b['median'])} | "
                   f"{(f'{statistics.median(pr):.3f}× ({min(pr):.3f}–{max(pr):.3f})') if pr else 'n/a'} | "
                   f"{ratio_of(a['wall'], b['wall'])} | {added} |")

def tail(path, n=15):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return f"(cannot read {path}: {e})"
    return "\n".join(lines[-n:]) if lines else "(stderr empty)"

failed = [(k, [r for r in groups[k] if r["status"] != "OK"]) for k in keys]
failed = [(k, fr) for k, fr in failed if fr]
if failed:
    out.append("\n## Failures\n")
    for (w, c), fr in failed:
        notes = sorted({r["note"] for r in fr})
        out.append(f"### {w} / {c}: {len(fr)} of {len(groups[(w, c)])} runs failed\n")
        for n_ in notes:
            out.append(f"- {n_}")
        last = next((r for r in reversed(fr) if r.get("stderr_log")), None)
        if last:
            out.append(f"\nstderr tail of run {last['run']} ({last['stderr_log']}):\n")
            out.append("```")
            out.append(tail(os.path.join(outdir, last["stderr_log"])).replace("```", "'''"))
            out.append("```")
        out.append("")

noted = [(k, [r for r in groups[k] if r["status"] == "OK" and r.get("note")]) for k in keys]
noted = [(k, nr) for k, nr in noted if nr]
if noted:
    out.append("\n## Notes on successful runs\n")
    for (w, c), nr in noted:
        for n_ in sorted({r["note"] for r in nr}):
            runs = ", ".join(r["run"] for r in nr if r["note"] == n_)
            out.append(f"- {w} / {c} (run {runs}): {n_}")

out.append("\nEvery run: overhead.csv; each run's stdout/stderr and command line: logs/.")
with open(md_path, "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
PYEOF
rc=$?
[[ $rc -eq 0 ]] || die "writing the report failed (exit $rc); the raw runs are in $CSV"
log "report: $MD"
log "runs:   $CSV"
cat "$MD"
