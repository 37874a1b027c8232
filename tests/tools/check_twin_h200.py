#!/usr/bin/env python3
"""The transformers decoder and its fixed twin, recorded on an H200 in one run
(tests/gpu/host_fixtures_h200.sh decode decode_flash): does the gain kgantt gave its fix
hold? The decoder's report names JIT compilation (cuDNN compiling its attention with NVRTC
for each new KV length) as host-bound's first cause, with a fix that takes another attention
kernel; the twin takes it (--attention flash). Measured by the twin: the steady steps' host
idle before and after; the program's own timing of its 24 tokens.

    check_twin_h200.py BEFORE.json AFTER.json BEFORE.out AFTER.out DIFF.json
"""
import json
import sys


def host_bound(r):
    return next(f for f in r["findings"] if f["rule"] == "host-bound")


def main():
    before, after = (json.load(open(p)) for p in sys.argv[1:3])
    prog_b, prog_a = (json.loads(open(p).read().strip().splitlines()[-1]) for p in sys.argv[3:5])
    diff = json.load(open(sys.argv[5]))
    hb, ha = host_bound(before), host_bound(after)
    causes = {c["cause"]: c["ns"] for c in hb["host"]["causes"]}
    predicted = causes.get("jit-compile", 0)
    saved = hb["gain_ns"] - ha["gain_ns"]
    after_causes = {c["cause"] for c in ha["host"]["causes"]}
    ok = True

    def check(cond, what):
        nonlocal ok
        print(("ok:   " if cond else "FAIL: ") + what)
        ok &= bool(cond)

    check(hb["host"]["cause"] == "jit-compile",
          "before: host-bound's first cause is JIT compilation (%s)" % hb["host"]["cause"])
    check("sdpa_kernel" in hb["fix"] or "enable_cudnn_sdp" in hb["fix"],
          "before: its fix takes another attention kernel")
    check("jit-compile" not in after_causes,
          "after (--attention flash): no JIT compilation left (%s)" % sorted(after_causes))
    # the cause's share is what the fix can save at most of it; the twin saved that and the
    # cuDNN launch set-up around it (cuKernelSetAttribute): within 0.7x..1.1x of what it saved
    check(0.7 * saved <= predicted <= 1.1 * saved,
          "JIT compilation's %.0f ms of host-bound's steady idle: the fix saved %.0f ms "
          "(%.2fx of it)" % (predicted / 1e6, saved / 1e6, predicted / saved if saved else 0))
    check(prog_a["tokens_per_s"] > 3 * prog_b["tokens_per_s"],
          "the program: %.1f -> %.1f tokens/s" % (prog_b["tokens_per_s"], prog_a["tokens_per_s"]))
    d = diff.get("median_step_delta_ns")
    check(d is not None and d < 0, "diff: the median step is shorter (%s ns)" % d)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
