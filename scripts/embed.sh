#!/bin/sh
# embed.sh FILE SYMBOL OUT.c: FILE's bytes as a C array, so the build needs no xxd.
#   const unsigned char SYMBOL[];   (FILE's bytes, then a NUL, which SYMBOL_len leaves out)
#   const size_t SYMBOL_len;
set -eu
[ $# -eq 3 ] || { echo "usage: embed.sh FILE SYMBOL OUT.c" >&2; exit 2; }
in=$1 sym=$2 out=$3
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
{
	printf '/* Generated from %s by scripts/embed.sh: do not edit. */\n' "$in"
	printf '#include <stddef.h>\n\nconst unsigned char %s[] = {\n' "$sym"
	od -An -v -tu1 "$in" | awk '{ line = ""; for (i = 1; i <= NF; i++) line = line $i ","; print line }'
	printf '0};\n\nconst size_t %s_len = sizeof(%s) - 1;\n' "$sym" "$sym"
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT
