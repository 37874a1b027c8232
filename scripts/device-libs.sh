#!/usr/bin/env bash
# Copies the shared libraries build/kgantt needs beyond glibc and libstdc++ (SQLite, yajl,
# cairo and theirs) into build/devlib, to carry to a GPU machine whose image lacks them.
# tests/gpu/nvtx_and_subscriber_h200.sh and examples_recheck_h200.sh put build/devlib on LD_LIBRARY_PATH.
set -eu
cd "$(dirname "$0")/.."
mkdir -p build/devlib
ldd build/kgantt | awk '$3 ~ /^\// {print $3}' |
	grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
	while read -r lib; do cp -L "$lib" build/devlib/; done
echo "build/devlib: $(ls build/devlib | wc -l) libraries, $(du -sh build/devlib | cut -f1)"
