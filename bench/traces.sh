# The benchmarks' traces (sourced by bench/report_speed.sh and bench/plot_speed.sh):
# synthetic traces from bench/gen_trace.py, cached, and their packed copies as
# 'kgantt record' writes traces. Needs K, PY, SEED and CACHE set; messages start with
# $BENCH (the script's name).

label() { # 100000 -> 100k, 1000000 -> 1M
	local n=$1
	if [ $((n % 1000000)) -eq 0 ]; then echo "$((n / 1000000))M"
	elif [ $((n % 1000)) -eq 0 ]; then echo "$((n / 1000))k"
	else echo "$n"; fi
}

# synthetic_trace N [C]: prints the path of the cached trace of N kernels (with C trivial
# API calls before each launch), generated when missing, or when the generator or the
# schema changed since it was written
synthetic_trace() {
	local n=$1 hc=${2:-0} suffix=
	[ "$hc" != 0 ] && suffix=-hc$hc
	local t=$CACHE/synthetic-$(label "$n")$suffix-seed$SEED.kgt
	if [ ! -s "$t" ] || [ bench/gen_trace.py -nt "$t" ] || [ src/trace/schema.c -nt "$t" ]; then
		echo "generating $t ($n kernels; about a minute per million) ..." >&2
		"$PY" bench/gen_trace.py -n "$n" --host-calls "$hc" --seed "$SEED" -o "$t" >&2 ||
			{ echo "$BENCH: bench/gen_trace.py failed" >&2; return 1; }
	fi
	echo "$t"
}

# packed_copy T [KGANTT SUFFIX]: prints the path of T's copy with packed columns
# (trace/packed.h), made when missing or older than T or kgantt; PATH.packtime beside it
# says how long 'kgantt pack' took. KGANTT (default $K) packs it, into
# T-packedSUFFIX.kgt: another kgantt's format.
packed_copy() {
	local t=$1 k=${2:-$K} pk=${1%.kgt}-packed${3:-}.kgt
	if [ ! -s "$pk" ] || [ "$t" -nt "$pk" ] || [ "$k" -nt "$pk" ]; then
		cp "$t" "$pk.tmp" || return 1
		local t0=$EPOCHREALTIME
		"$k" pack "$pk.tmp" || { echo "$BENCH: kgantt pack failed" >&2; return 1; }
		local t1=$EPOCHREALTIME
		mv "$pk.tmp" "$pk"
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' > "$pk.packtime"
	fi
	echo "$pk"
}
