# Sourced by the scripts that record third-party programs on the GPU machine
# (thirdparty_record.sh, graph_steps.sh): with OUT set to the output folder, it makes it,
# writes the machine's line to OUT/summary.txt and defines
#   record NAME SECONDS PROGRAM...   full mode into OUT/NAME.kgt (the program's output
#                                    OUT/NAME.out), then OUT/NAME.report and NAME.json
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
mkdir -p "$out"
log=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"
python3 -c 'import torch; print("torch", torch.__version__)' >> "$log" 2>&1

record() { # NAME SECONDS PROGRAM...
	local name=$1 limit=$2
	shift 2
	timeout "$limit" "$K" record --force -o "$out/$name.kgt" -- "$@" > "$out/$name.out" 2>&1
	local rc=$?
	"$K" report --no-progress "$out/$name.kgt" > "$out/$name.report" 2>&1
	"$K" report --json --no-progress "$out/$name.kgt" > "$out/$name.json" 2>/dev/null
	echo "$name: record rc=$rc; $(grep -o '^{.*}' "$out/$name.out" | tail -1)" | tee -a "$log"
}
