"""A kgantt trace as SQL rows, for the GPU scripts' checks: a compacted trace (format 5:
kernels, API calls and hardware samples only as blocks, docs/trace-format.md) is exported
with `kgantt export --format sqlite` (KGANTT, default build/kgantt) into a temporary file,
removed at exit; any other trace is opened as it is.

    import kgt_rows                      # sys.path: tests/gpu
    db = kgt_rows.connect("run.kgt")
"""
import atexit
import os
import shutil
import sqlite3
import subprocess
import tempfile


def rows_path(trace):
    db = sqlite3.connect("file:%s?mode=ro" % trace, uri=True)
    try:
        v = db.execute("SELECT value FROM meta WHERE key = 'packed_version'").fetchone()
    except sqlite3.DatabaseError:
        v = None
    db.close()
    if not v or str(v[0]) != "2":
        return trace
    d = tempfile.mkdtemp(prefix="kgantt-rows-")
    atexit.register(shutil.rmtree, d, True)
    out = os.path.join(d, "rows.kgt")
    subprocess.run([os.environ.get("KGANTT", "build/kgantt"), "export", "-q", "-f", "sqlite",
                    "-o", out, trace], check=True)
    return out


def connect(trace):
    return sqlite3.connect("file:%s?mode=ro" % rows_path(trace), uri=True)
