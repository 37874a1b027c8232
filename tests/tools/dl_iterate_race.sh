#!/usr/bin/env bash
# The glibc race that crashed programs under host samples (docs/host-samples.md, Safety),
# shown without kgantt: one thread dlopens 200 libraries with a __thread variable; another,
# created after the first FIRST of them, calls dl_iterate_phdr in a loop. When a library's
# TLS module id lies past the loader's slot lists but inside that thread's TLS vector,
# dl_iterate_phdr (_dl_tls_get_addr_soft) reads through a NULL link. Prints each run's exit
# status (139: SIGSEGV). Not part of `make test`: it shows why the recorder's threads read
# /proc/self/maps (src/recorder/maps.c) instead.
#
#   tests/tools/dl_iterate_race.sh [RUNS] [FIRST]     (default 12 runs, FIRST 60: on Debian's
#                                                     glibc 2.36, 1 to 3 of 12 die)
set -eu
RUNS=${1:-12}
FIRST=${2:-60}
W=$(mktemp -d /tmp/kgantt-dl-race-XXXXXX)
trap 'rm -rf "$W"' EXIT
echo '__thread int tls_var[16]; int touch(void) { return ++tls_var[0]; }' > "$W/lib.c"
for i in $(seq 1 200); do cc -shared -fPIC -O1 -o "$W/libt$i.so" "$W/lib.c"; done
cat > "$W/race.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static volatile int stop;
static int count(struct dl_phdr_info *i, size_t s, void *a) { (void)i, (void)s; ++*(long *)a; return 0; }
static void *walker(void *x) { long n = 0; (void)x; while (!stop) dl_iterate_phdr(count, &n); return NULL; }
static void load(const char *dir, int i)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/libt%d.so", dir, i);
	void *h = dlopen(p, RTLD_NOW);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
	((int (*)(void))dlsym(h, "touch"))();
}
int main(int argc, char **argv)
{
	int first = atoi(argv[2]);
	pthread_t t;
	for (int i = 1; i <= first; i++) load(argv[1], i);
	pthread_create(&t, NULL, walker, NULL);
	for (int i = first + 1; i <= 200; i++) load(argv[1], i);
	stop = 1;
	pthread_join(t, NULL);
	return 0;
}
C
cc -O1 -o "$W/race" "$W/race.c" -ldl -lpthread
crashed=0
for r in $(seq 1 "$RUNS"); do
	rc=0
	"$W/race" "$W" "$FIRST" 2> /dev/null || rc=$?
	echo "run $r: exit $rc"
	[ "$rc" -eq 139 ] && crashed=$((crashed + 1))
done
echo "$crashed of $RUNS runs died of SIGSEGV in dl_iterate_phdr ($(ldd --version | head -1))"
