/* Compressed traces read in place: `kgantt report run.kgt.xz` as if it were run.kgt.
 *
 * Traces are shared compressed (xz, zstd or gzip): SQLite files (kgantt traces, Nsight
 * Systems exports) and PyTorch profiler JSON alike. A compressed input is decompressed
 * once, at its first look, into an unlinked file in $TMPDIR (gone when kgantt exits), and
 * every later open of its path reads that copy: open(2) through uncompress_open, SQLite
 * through a VFS that wraps the default one and reads the copy as the compressed file's
 * main database. So the readers stay as they are and every message still names the
 * user's file. A gzip file that is not SQLite is left to the Kineto reader, which streams
 * it. Inputs are known by their magic bytes, whatever they are called. */
#ifndef KGANTT_TRACE_UNCOMPRESS_H
#define KGANTT_TRACE_UNCOMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Looks at path's first bytes; when it is compressed, decompresses it (once a process:
 * the same file again is found by its device, inode, size and time, so that one rewritten
 * since is decoded again). 0 when path can be read as
 * plain (it was not compressed, or its copy is ready), or a negative errno code after a
 * message naming the file and where its compressed data went wrong. A path that cannot
 * be opened is 0: the caller's own open says why. */
int uncompress_input(const char *path, char *err, size_t errlen);

/* open(2) of path's plain bytes, read-only: its decompressed copy (a file position of its
 * own) once uncompress_input made one, else path itself. -1 and errno on failure. */
int uncompress_open(const char *path);

/* The compression path was read through ("xz", "zstd", "gzip"), NULL for a plain file;
 * sizes in bytes, compressed and not (for `kgantt info`); *plain is 0 for a gzip file the
 * Kineto reader streamed (no copy: its size is not known). */
const char *uncompress_kind(const char *path, uint64_t *packed, uint64_t *plain);

#endif
