# Every message names its command, once (issue 22): each command run with bad input says
# every line on stderr as "kgantt: <command>: ...", never the command twice, and exits
# non-zero.
. tests/e2e/lib.sh
t=$(fixture copies_bad)
head -c 20000 "$t" > "$WORK/cut.kgt"
echo "not a trace" > "$WORK/text.kgt"
mkdir -p "$WORK/job" "$WORK/spool"
cp "$t" "$WORK/job/a.kgt"
cp "$WORK/cut.kgt" "$WORK/job/b.kgt"
n=0
check() { # check CMD ARGS...: CMD fails, and every stderr line names it
	local cmd=$1
	"$K" "$@" > "$WORK/out" 2> "$WORK/err" < /dev/null
	local rc=$?
	[ $rc -ne 0 ] || fail "'kgantt $*' exited 0"
	[ -s "$WORK/err" ] || fail "'kgantt $*' said nothing"
	while IFS= read -r line; do
		case $line in
		"kgantt: $cmd: $cmd: "*) fail "'kgantt $*' names its command twice: $line" ;;
		"kgantt: $cmd: "*) ;;
		*) fail "'kgantt $*': a line without 'kgantt: $cmd: ': $line" ;;
		esac
	done < "$WORK/err"
	n=$((n + 1))
}
for c in report plot view export diff info dump pack merge import record; do
	check $c --no-such-option
done
for c in report plot view export info dump pack; do
	check $c "$WORK/none.kgt" -o "$WORK/x.out" -f csv
done
check report
check report "$WORK/text.kgt"
check report "$WORK/cut.kgt"
check report --top
check report --top x "$t"
check report --fail-on never "$t"
check report --set nope=1 "$t"
check report --from 5000 "$t"
check report --nvtx nosuch "$t"
check report --nvtx x --from 1 "$t"
check report --color sometimes "$t"
check report "$WORK/job"
check report --ranks 99 "$WORK/job"
check report --sort fastest "$WORK/job"
check report --steps nosuch "$WORK/job"
check report -j 0 "$WORK/job"
check plot "$t"
check plot "$t" -o "$WORK/x.gif"
check plot "$t" -o "$WORK/x.png" --format svg
check plot "$t" -o "$WORK/x.png" --width 5
check plot "$t" -o "$WORK/x.png" --streams a,b
check plot "$t" -o "$t"
check plot "$t" -o - --manifest
check plot "$t" -o "$WORK/x.png" --full 3
check plot "$WORK/job" -o "$WORK/x.png" --full 99
check plot "$t" -o "$WORK/x.png" --sm
check view "$t" -o "$t"
check view --set nope=1 "$t" -o "$WORK/x.html"
check export "$t"
check export --format xml "$t"
check export --format csv --table nope "$t"
check export --format chrome --table ops "$t"
check export --format sqlite "$t"
check export --format csv "$t" "$t"
check diff "$t"
check diff --fail-slower x "$t" "$t"
check diff "$t" "$WORK/cut.kgt"
check info
check info "$WORK/cut.kgt"
check dump --limit x "$t"
check dump --table nope "$t"
check pack
check pack "$WORK/text.kgt"
check merge "$t"
check merge -o "$WORK/m.kgt"
check merge -f -o "$WORK/m.kgt" "$t"
check merge -o "$WORK/m.kgt" "$WORK/text.kgt"
check import -o "$WORK/i.kgt"
check import -o "$WORK/i.kgt" "$WORK/spool"
check import -o "$WORK/i.kgt" "$WORK/none"
check record
check record --mode fast -- true
check record --buffers 1 -- true
check record --stack-launches 8 -- true
check record --hw=1ns -- true
check record --host-samples=0 -- true
check record --host-samples=fast -- true
check record --plot x.gif -- true
check record -o 'r%q{NO_SUCH_RANK_VAR}.kgt' -- true
check record --summarize-only "$WORK/cut.kgt"
KGANTT_INJECT=$WORK/none.so check record -o "$WORK/r.kgt" -- true
echo "ok: $n failing command lines, every stderr line 'kgantt: <command>: ...'"
