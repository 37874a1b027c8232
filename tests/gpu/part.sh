# Sourced by the GPU scripts that run their parts under a time limit each (lean_full_check.sh,
# hook_check.sh), with w set to their work folder:
#   part SECONDS NAME command...   runs it into $w/NAME.log; says how long it took and how it
#                                  ended, into $w/times.txt too
part() {
	local limit=$1 name=$2 t0=$SECONDS
	shift 2
	timeout "$limit" "$@" > "$w/$name.log" 2>&1
	echo "$name: exit $? after $((SECONDS - t0)) s" | tee -a "$w/times.txt"
}
