#!/usr/bin/env bash
# bench/overhead.sh — tracing overhead of kgantt, side by side with raw CUPTI and the
# PyTorch profiler.  Run from the repository root on a GPU machine after `make` and
# `make bench-build`.  See bench/README.md.
#
#   bench/overhead.sh [-n RUNS] [-o OUTDIR] [-w WORKLOADS] [-c CONFIGS] [-t SECONDS] [-h]
#
#   -n RUNS       runs per workload x configuration (default 5)
#   -o OUTDIR     where overhead.md, overhead.csv and logs/ go
#                 (default build/bench/results/<date-time> in the repository)
#   -w WORKLOADS  comma list, default launch_loop,torch_step,torch_tiny
#   -c CONFIGS    comma list, default untraced,cupti-raw,kgantt-kernels,kgantt-full,torch-profiler;
#                 also kgantt-full-all-api (full mode with --all-api: every trivial API query)
#                 (torch-profiler applies to the torch workloads only)
#   -t SECONDS    time budget: start no new run after this many seconds and report what
#                 was measured (default 0: none).  SIGINT/SIGTERM also end it with a report.
#
# Environment (mostly for testing the script itself with stub programs):
#   KGANTT           kgantt binary                 (default build/kgantt)
#   LAUNCH_LOOP      launch_loop binary/command    (default build/bench/launch_loop)
#   CUPTI_RAW        cupti-raw injection library   (default build/bench/libcupti_raw.so)
#   PYTHON           python with torch             (default python3)
#   TORCH_STEP       torch workload command        (default "$PYTHON bench/torch_step.py";
#                    when set, the torch import check is skipped)
#   LAUNCH_LOOP_ARGS, TORCH_STEP_ARGS, TORCH_TINY_ARGS   extra arguments, word-split
#   RUN_TIMEOUT      seconds before one run is killed (default 120); a workload x
#                    configuration that timed out once is not run again
#   PRIME            1 (default): one discarded untraced run of each workload first
#   SKIP_GPU_CHECK   1: do not require nvidia-smi (stub testing only)
#
# Every run is recorded; a run that exits non-zero, prints no figure, or (for tracers)
# shows no sign that the tracer was active is FAILED, and the report says why, with the
# tail of its stderr.  The script itself fails only on bad usage or a missing GPU.
set -u -o pipefail
export LC_ALL=C

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$BENCH_DIR")

die() { echo "overhead.sh: error: $*" >&2; exit 1; }
log() { echo "overhead.sh: $*" >&2; }

usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

RUNS=5
OUTDIR=""
WORKLOADS="launch_loop,torch_step,torch_tiny"
CONFIGS="untraced,cupti-raw,kgantt-kernels,kgantt-full,torch-profiler"
BUDGET=0
while getopts ":n:o:w:c:t:h" opt; do
    case $opt in
        n) RUNS=$OPTARG ;;
        o) OUTDIR=$OPTARG ;;
        w) WORKLOADS=$OPTARG ;;
        c) CONFIGS=$OPTARG ;;
        t) BUDGET=$OPTARG ;;
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
    case $w in launch_loop|torch_step|torch_tiny) ;; *) die "unknown workload '$w'" ;; esac
done
for c in "${CF[@]}"; do
    case $c in untraced|cupti-raw|kgantt-kernels|kgantt-full|kgantt-full-all-api|torch-profiler) ;;
        *) die "unknown configuration '$c'" ;; esac
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

has_workload() { local x; for x in "${WL[@]}"; do [[ $x == "$1" ]] && return 0; done; return 1; }
has_config()   { local x; for x in "${CF[@]}"; do [[ $x == "$1" ]] && return 0; done; return 1; }

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
if has_config cupti-raw; then
    if [[ -z $CUPTI_RAW || ! -f $CUPTI_RAW ]]; then
        UNAVAIL[cupti-raw]="$CUPTI_RAW_IN missing: run 'make bench-build'"
    else
        fix_libs "$CUPTI_RAW"
        [[ -n $FIX_MSG ]] && UNAVAIL[cupti-raw]="libcupti_raw.so: $FIX_MSG"
    fi
fi
if has_config kgantt-kernels || has_config kgantt-full; then
    if [[ -z $KGANTT || ! -x $KGANTT ]]; then
        UNAVAIL[kgantt-kernels]="$KGANTT_IN missing: run 'make'"
        UNAVAIL[kgantt-full]=${UNAVAIL[kgantt-kernels]}
        KGANTT_VERSION="(missing)"
    else
        KGANTT_VERSION=$(timeout 20 "$KGANTT" --version </dev/null 2>&1 | head -n1)
        [[ -n $KGANTT_VERSION ]] || KGANTT_VERSION="(--version printed nothing)"
    fi
    meta kgantt "${KGANTT:-$KGANTT_IN} ($KGANTT_VERSION)"
fi
TORCH_INFO="(not used)"
if has_workload torch_step || has_workload torch_tiny; then
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
            UNAVAIL[torch_step]="torch check failed ($PYTHON, exit $rc): $TORCH_INFO"
            UNAVAIL[torch_tiny]=${UNAVAIL[torch_step]}
        fi
    fi
    log "torch: $TORCH_INFO"
fi
meta torch "$TORCH_INFO"
meta host "$(hostname 2>/dev/null) / $(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}') / $(nproc 2>/dev/null) CPUs"
meta ld_library_path_added "${LIBFIX:-none}"
for k in "${!UNAVAIL[@]}"; do log "UNAVAILABLE $k: ${UNAVAIL[$k]}"; done

# ------------------------------------------------------------------ workloads
wl_key()  { case $1 in launch_loop) echo us_per_launch ;; torch_step) echo ms_per_step ;; torch_tiny) echo us_per_op ;; esac; }
wl_unit() { case $1 in launch_loop) echo "µs/launch" ;; torch_step) echo "ms/step" ;; torch_tiny) echo "µs/op" ;; esac; }
wl_cmd() {  # sets BASE=(command of workload $1)
    case $1 in
        launch_loop) BASE=("${LL_CMD[@]}" "${LL_ARGS[@]}") ;;
        torch_step)  BASE=("${TS_CMD[@]}" "${TSTEP_ARGS[@]}") ;;
        torch_tiny)  BASE=("${TS_CMD[@]}" --tiny "${TTINY_ARGS[@]}") ;;
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
echo "run,workload,config,status,figure,unit,wall_s,exit_code,trace_bytes,cupti_records,note,stdout_log,stderr_log" >"$CSV"

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# run_one RUN WORKLOAD CONFIG  (RUN "prime" = discarded warm-up run, not in the CSV)
run_one() {
    local r=$1 w=$2 c=$3 key unit out err rc=0 t0 t1 wall fig="" status=OK note="" tb="" recs=""
    key=$(wl_key "$w"); unit=$(wl_unit "$w")
    out="$LOGS/$w.$c.$r.out"; err="$LOGS/$w.$c.$r.err"
    local reason=${UNAVAIL[$w]:-${UNAVAIL[$c]:-${TIMEDOUT[$w/$c]:-}}}
    if [[ -n $reason ]]; then
        [[ $r == prime ]] && return 0
        printf '%s,%s,%s,FAILED,,%s,,,,,%s,,\n' "$r" "$w" "$c" "$unit" "$(csvq "not run: $reason")" >>"$CSV"
        return 0
    fi
    wl_cmd "$w"
    local trace=""
    local -a full
    case $c in
        untraced)       full=(env -u CUDA_INJECTION64_PATH "${BASE[@]}") ;;
        cupti-raw)      full=(env "CUDA_INJECTION64_PATH=$CUPTI_RAW" "${BASE[@]}") ;;
        kgantt-kernels) trace="$TMP/k.kgt"
                        full=(env -u CUDA_INJECTION64_PATH "$KGANTT" record -f -o "$trace" --mode kernels -- "${BASE[@]}") ;;
        kgantt-full)    trace="$TMP/f.kgt"
                        full=(env -u CUDA_INJECTION64_PATH "$KGANTT" record -f -o "$trace" --mode full -- "${BASE[@]}") ;;
        kgantt-full-all-api) trace="$TMP/a.kgt"
                        full=(env -u CUDA_INJECTION64_PATH "$KGANTT" record -f -o "$trace" --mode full --all-api -- "${BASE[@]}") ;;
        torch-profiler) full=(env -u CUDA_INJECTION64_PATH "${BASE[@]}" --profiler) ;;
    esac
    [[ -n $trace ]] && rm -f "$trace"
    printf '%q ' "${full[@]}" >"$out.cmd"; echo >>"$out.cmd"

    t0=$(now)
    timeout -k 10 "$RUN_TIMEOUT" "${full[@]}" >"$out" 2>"$err" </dev/null || rc=$?
    t1=$(now)
    wall=$(elapsed "$t0" "$t1")

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
    if [[ $c == cupti-raw ]]; then
        recs=$(grep -E '^cupti_raw: records=' "$err" 2>/dev/null | tail -n1 | sed -E 's/^cupti_raw: records=([0-9]+).*/\1/')
        if ! grep -q '^cupti_raw: initialized' "$err" 2>/dev/null; then
            status=FAILED; note="${note:+$note; }injection library did not report 'cupti_raw: initialized' (not loaded?)"
        fi
        grep -q '^cupti_raw: ERROR' "$err" 2>/dev/null && note="${note:+$note; }cupti_raw reported errors"
    fi
    if [[ -n $trace ]]; then
        if [[ -s $trace ]]; then
            tb=$(stat -c %s "$trace" 2>/dev/null || wc -c <"$trace")
        elif [[ $status == OK ]]; then
            status=FAILED; note="exit 0 but no trace file written ($trace)"
        fi
    fi

    if [[ $r == prime ]]; then
        log "prime $w: $status ${fig:+$fig $unit} (${wall}s)${note:+ — $note}"
        return 0
    fi
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$r" "$w" "$c" "$status" "$fig" "$unit" \
        "$wall" "$rc" "$tb" "$recs" "$(csvq "$note")" "$(csvq "logs/$(basename "$out")")" \
        "$(csvq "logs/$(basename "$err")")" >>"$CSV"
    log "[$r/$RUNS] $w $c: $status ${fig:+$fig $unit} (${wall}s)${note:+ — $note}"
}

START=$(now)
over_budget() {
    [[ $BUDGET -gt 0 ]] || return 1
    awk -v a="$START" -v b="$(now)" -v t="$BUDGET" 'BEGIN { exit !(b - a > t) }' || return 1
    if [[ $INTERRUPTED == 0 ]]; then
        log "time budget of ${BUDGET}s used up: no new runs"
        INTERRUPTED=1
    fi
    return 0
}
meta started "$(date '+%Y-%m-%d %H:%M:%S %Z')"
meta runs "$RUNS"
meta run_timeout "$RUN_TIMEOUT"
{ printf 'launch_loop:'; printf ' %q' "${LL_CMD[@]}" "${LL_ARGS[@]}"; echo; } >"$OUTDIR/commands.txt"
{ printf 'torch:'; printf ' %q' "${TS_CMD[@]}"; echo; } >>"$OUTDIR/commands.txt"
meta commands "$(paste -sd ';' "$OUTDIR/commands.txt")"

if [[ $PRIME == 1 ]]; then
    for w in "${WL[@]}"; do
        [[ $INTERRUPTED == 1 ]] && break
        over_budget && break
        run_one prime "$w" untraced
    done
fi

ncf=${#CF[@]}
for ((r = 1; r <= RUNS && INTERRUPTED == 0; r++)); do
    for w in "${WL[@]}"; do
        # Round-robin, with the order rotated every round so that no configuration
        # always runs first (or right after another).
        for ((i = 0; i < ncf && INTERRUPTED == 0; i++)); do
            c=${CF[$(( (i + r - 1) % ncf ))]}
            applies "$w" "$c" || continue
            over_budget && break
            run_one "$r" "$w" "$c"
        done
        [[ $INTERRUPTED == 1 ]] && break
    done
done
END=$(now)
meta total_s "$(elapsed "$START" "$END")"
meta interrupted "$INTERRUPTED"
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
cf_order = meta.get("configs", "").split()
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
        "trace": med([fnum(r["trace_bytes"]) for r in ok]),
        "records": med([fnum(r["cupti_records"]) for r in ok]),
    }

out = []
out.append("# kgantt tracing overhead\n")
out.append(f"- date: {meta.get('started', '?')}")
out.append(f"- GPU (name, driver): {meta.get('gpu', '?')}")
out.append(f"- host: {meta.get('host', '?')}")
out.append(f"- torch: {meta.get('torch', '?')}")
if "kgantt" in meta:
    out.append(f"- kgantt: {meta['kgantt']}")
out.append(f"- runs per configuration: {meta.get('runs', '?')}, interleaved round-robin "
           f"(configuration order rotated every round); total {meta.get('total_s', '?')} s")
if meta.get("ld_library_path_added", "none") != "none":
    out.append(f"- added to LD_LIBRARY_PATH:{meta['ld_library_path_added']}")
if meta.get("interrupted") == "1":
    out.append("- **stopped early** (signal or -t budget): the figures below cover only the runs that finished")
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

out.append("\nEvery run: overhead.csv; each run's stdout/stderr and command line: logs/.")
with open(md_path, "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
PYEOF
rc=$?
[[ $rc -eq 0 ]] || die "writing the report failed (exit $rc); the raw runs are in $CSV"
log "report: $MD"
log "runs:   $CSV"
cat "$MD"
