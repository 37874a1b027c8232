#!/usr/bin/env python3
"""Writes a synthetic kgantt trace (docs/trace-format.md) for the report-speed benchmark.

The trace looks like `kgantt record --mode full` of an LLM training job on one H200: one
process, one device, 6 streams (the legacy default stream 7 does most of the work;
non-blocking side streams at priorities 0 and -5), a few hundred distinct kernel names
(mangled C++ names with their demangled form, plus cuBLAS/nvjet and Triton C names),
log-normal kernel durations between 2 µs and 2 ms, a host that launches ahead of the GPU
(so queues build up and drain at each step's `loss.item()`), one cudaLaunchKernel API
row per kernel with the kernel's correlation id, HtoD/DtoH/DtoD copies (pinned and
pageable), memsets, stream/device syncs and NVTX ranges per training step.

The tables are created with exactly the SQL of src/trace/schema.c (kg_schema_sql and
rows_sql, then kg_index_sql and rows_index_sql after the rows): the C string literals are
parsed at run time, so the generator cannot drift from the schema. The trace has every
table as SQL rows, as kgantt wrote traces before format 5 (`kgantt pack` compacts it).
Deterministic: the same -n, --seed and schema give a byte-identical file.

  bench/gen_trace.py -o /tmp/t1m.kgt                 # 1,000,000 kernels
  bench/gen_trace.py -n 20000 --seed 7 -o /tmp/t.kgt
"""
import argparse
import math
import os
import re
import random
import sqlite3
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------------------
# The schema, read from the C source.


def c_string_constant(src, name):
    """The value of `const char name[] = "..." "..." ...;` in C source text: adjacent
    string literals concatenated, comments between them skipped, escapes decoded."""
    key = "const char %s[]" % name
    at = src.find(key)
    if at < 0:
        raise ValueError("no '%s' in the C source" % key)
    i = src.index("=", at) + 1
    out = []
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "?": "?",
              "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
    n = len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif src.startswith("/*", i):
            i = src.index("*/", i + 2) + 2
        elif src.startswith("//", i):
            i = src.index("\n", i)
        elif c == ";":
            return "".join(out)
        elif c == '"':
            i += 1
            while src[i] != '"':
                if src[i] == "\\":
                    e = src[i + 1]
                    if e in simple:
                        out.append(simple[e])
                        i += 2
                    elif e in "01234567":
                        j = i + 1
                        while j < i + 4 and src[j] in "01234567":
                            j += 1
                        out.append(chr(int(src[i + 1:j], 8)))
                        i = j
                    elif e == "x":
                        j = i + 2
                        while src[j] in "0123456789abcdefABCDEF":
                            j += 1
                        out.append(chr(int(src[i + 2:j], 16)))
                        i = j
                    else:
                        raise ValueError("unknown escape \\%s in %s" % (e, name))
                elif src[i] == "\n":
                    raise ValueError("newline inside a string literal of %s" % name)
                else:
                    out.append(src[i])
                    i += 1
            i += 1
        elif src.startswith("KG_HW_SQL_COLUMNS", i):
            # the hardware-sample columns, made from src/util/hw_figures.h's list
            out.append(hw_sql_columns())
            i += len("KG_HW_SQL_COLUMNS")
        elif src.startswith("KG_HOST_STATES(HOST_STATE_ROW_)", i):
            # enum_host_state's rows, made from src/util/kinds.h's list
            out.append(host_state_rows())
            i += len("KG_HOST_STATES(HOST_STATE_ROW_)")
        elif re.match(r"KG_(KERNEL|API|HOST_SAMPLE)_COLUMNS\(KG_SQL_COLUMN_\)", src[i:]):
            # kernels', api_calls' and host_samples' columns, from src/trace/columns.h's lists
            m = re.match(r"(KG_(?:KERNEL|API|HOST_SAMPLE)_COLUMNS)\(KG_SQL_COLUMN_\)", src[i:])
            out.append(table_sql_columns(m.group(1)))
            i += m.end()
        else:
            raise ValueError("unexpected %r in %s at offset %d" % (c, name, i))
    raise ValueError("%s is not terminated by ';'" % name)


def hw_sql_columns():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "util",
                        "hw_figures.h")
    with open(path, encoding="utf-8") as f:
        cols = re.findall(r"^\s*X\(\w+,\s*(\w+),", f.read(), re.M)
    return "".join(", %s REAL" % c for c in cols)


def host_state_rows():
    """schema.c's HOST_STATE_ROW_ over src/util/kinds.h's KG_HOST_STATES."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "util",
                        "kinds.h")
    with open(path, encoding="utf-8") as f:
        body = re.search(r"#define KG_HOST_STATES\(X\)(.*?)\n(?!\s)", f.read(), re.S)
    states = re.findall(r"\bX\(\w+,\s*(\d+),\s*(\"[^\"]*\")\)", body.group(1))
    return "".join("INSERT INTO enum_host_state VALUES(%s,'%s');\n" % (c, n[1:-1])
                   for c, n in states)


def table_sql_columns(macro):
    """KG_SQL_COLUMN_ over the X list `macro` of src/trace/columns.h."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "trace",
                        "columns.h")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    body = re.search(r"#define %s\(X\)(.*?)\n(?=#define)" % macro, text, re.S)
    if not body:
        raise ValueError("no list %s in %s" % (macro, path))
    cols = re.findall(r"\bX\((\w+),", body.group(1))
    return "".join(",\n  %s INTEGER" % c for c in cols)


def load_schema(path):
    """The schema with kernels and api_calls as SQL tables (rows_sql and rows_index_sql
    are printf formats whose %1$s is the schema prefix: none here)."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    rows = c_string_constant(src, "rows_sql").replace("%1$s", "")
    rows_index = c_string_constant(src, "rows_index_sql").replace("%1$s", "")
    return (c_string_constant(src, "kg_schema_sql") + rows,
            c_string_constant(src, "kg_index_sql") + rows_index)


# ---------------------------------------------------------------------------------------
# A small Itanium C++ ABI mangler: enough for function templates in namespaces whose
# arguments are integers, bools, builtins and (templated) classes, with the substitution
# rules (S_, S0_, ...) applied as g++ applies them. `c++filt` turns every name it makes
# into the demangled text it makes (checked by `bench/gen_trace.py --check-names`).

BUILTIN = {"void": "v", "bool": "b", "char": "c", "int": "i", "unsigned int": "j",
           "long": "l", "unsigned long": "m", "float": "f", "double": "d"}
LITERAL = {"int": ("i", ""), "unsigned int": ("j", "u"), "unsigned long": ("m", "ul"),
           "long": ("l", "l")}


def B(t):
    return ("b", t)


def P(t):
    return ("p", t)


def K(t):
    return ("k", t)


def C(qual, args=None):
    """A class: qual is 'ns::ns::Name'; '(anon)' stands for an anonymous namespace."""
    return ("c", tuple(qual.split("::")), tuple(args) if args else None)


def T(i):
    return ("t", i)


def I(v, kind="int"):
    return ("lit", kind, v)


def BOOL(v):
    return ("bool", bool(v))


def comp_text(c):
    return "(anonymous namespace)" if c == "(anon)" else c


def comp_mangled(c):
    return "12_GLOBAL__N_1" if c == "(anon)" else "%d%s" % (len(c), c)


def seq_id(i):
    if i == 0:
        return "S_"
    i -= 1
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    s = ""
    while True:
        s = digits[i % 36] + s
        i //= 36
        if i == 0:
            break
    return "S%s_" % s


def tparam_id(i):
    return "T_" if i == 0 else "T%d_" % (i - 1)


class Mangler:
    def __init__(self, fn_targs):
        self.subs = []
        self.fn_targs = fn_targs

    def sub(self, key):
        return seq_id(self.subs.index(key)) if key in self.subs else None

    def add(self, key):
        if key not in self.subs:
            self.subs.append(key)

    def text(self, node):
        k = node[0]
        if k == "b":
            return node[1]
        if k == "p":
            return self.text(node[1]) + "*"
        if k == "k":
            return self.text(node[1]) + " const"
        if k == "c":
            s = "::".join(comp_text(c) for c in node[1])
            if node[2] is not None:
                s += self.args_text(node[2])
            return s
        if k == "t":
            return self.text(self.fn_targs[node[1]])
        if k == "lit":
            v = node[2]
            return "%d%s" % (v, LITERAL[node[1]][1])
        if k == "bool":
            return "true" if node[1] else "false"
        raise ValueError(node)

    def args_text(self, args):
        s = "<" + ", ".join(self.text(a) for a in args)
        return s + (" >" if s.endswith(">") else ">")

    def name(self, qual, args, is_type):
        """<name> of a class (is_type) or of a function."""
        whole = ("c", qual, args)
        if is_type:
            s = self.sub(whole)
            if s:
                return s
        if len(qual) == 1 and qual[0] != "(anon)":
            out = comp_mangled(qual[0])
            if args is not None:
                self.add(("pfx", qual))
                out += self.targs(args)
            if is_type:
                self.add(whole)
            return out
        std = qual[0] == "std"
        # longest prefix that is already a candidate
        start, out = (1, "St") if std else (0, "")
        for j in range(len(qual) - 1, start, -1):
            s = self.sub(("pfx", qual[:j]))
            if s:
                start, out = j, s
                break
        for j in range(start, len(qual)):
            out += comp_mangled(qual[j])
            if j < len(qual) - 1 or args is not None or is_type:
                self.add(("pfx", qual[:j + 1]))
        if args is not None:
            out += self.targs(args)
            if is_type:
                self.add(whole)
        nested = len(qual) > 1 and not (std and len(qual) == 2)
        if std and len(qual) == 2 and is_type and args is None:
            nested = False
        return "N" + out + "E" if nested else out

    def targs(self, args):
        return "I" + "".join(self.arg(a) for a in args) + "E"

    def arg(self, a):
        if a[0] == "lit":
            v = a[2]
            code = LITERAL[a[1]][0]
            return "L%s%s%dE" % (code, "n" if v < 0 else "", abs(v))
        if a[0] == "bool":
            return "Lb%dE" % int(a[1])
        return self.type(a)

    def type(self, t):
        k = t[0]
        if k == "b":
            return BUILTIN[t[1]]
        if k == "c":
            return self.name(t[1], t[2], True)
        s = self.sub(t)
        if s:
            return s
        if k == "t":
            out = tparam_id(t[1])
        elif k == "p":
            out = "P" + self.type(t[1])
        elif k == "k":
            out = "K" + self.type(t[1])
        else:
            raise ValueError(t)
        self.add(t)
        return out


def mangle(qual, targs, params):
    """(mangled, demangled) of `void qual<targs>(params)` (no <targs> and no return type
    when targs is None, as for a plain function)."""
    q = tuple(qual.split("::"))
    m = Mangler(targs)
    out = "_Z" + m.name(q, tuple(targs) if targs is not None else None, False)
    if targs is not None:
        out += "v"
    out += "".join(m.type(p) for p in params) if params else "v"
    text = "::".join(comp_text(c) for c in q)
    if targs is not None:
        text = "void " + text + m.args_text(targs)
    text += "(" + ", ".join(m.text(p) for p in params) + ")"
    return out, text


# ---------------------------------------------------------------------------------------
# Kernel names of an LLM training job. Each entry: (mangled, demangled, family).

BF16, HALF = C("c10::BFloat16"), C("c10::Half")
FLOAT = B("float")
DTYPES = [("float", FLOAT), ("bf16", BF16), ("half", HALF)]


def kernel_names():
    names = []
    # cuBLAS (nvjet / xmma) GEMMs: plain C names, stored as their own demangled form.
    for mt, nt in [(64, 64), (64, 128), (128, 64), (128, 128), (128, 256), (256, 128),
                   (192, 128), (64, 256)]:
        for k, st in [(64, 4), (64, 3)]:
            for lay in ["NTN", "NNT", "TNT", "TNN"]:
                cl = "2x1" if mt >= nt else "1x2"
                hv = "v" if mt >= nt else "h"
                co = "coopA" if (mt * nt) % 3 else "coopB"
                n = "nvjet_sm90_tst_%dx%d_%dx%d_%s_%s_bz_%s_%s" % (mt, nt, k, st, cl, hv, co, lay)
                names.append((n, n, "gemm"))
    for tile in ["128x128x64", "128x256x64", "256x128x64", "64x128x64"]:
        for lay in ["tn", "nt", "nn"]:
            n = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_%s_n_tilesize%s_warpgroupsize1x1x1"
                 "_execute_segment_k_off_kernel__5x_cublas" % (lay, tile))
            names.append((n, n, "gemm"))
    # PyTorch elementwise kernels (vectorized / unrolled), per functor and dtype.
    functors = ["FillFunctor", "CUDAFunctor_add", "MulFunctor", "DivFunctor", "AbsFunctor",
                "SiluFunctor", "GeluFunctor", "CopyFunctor", "SqrtFunctor", "NegFunctor",
                "ExpFunctor", "WhereFunctor", "BinaryFunctor"]
    arr = lambda n: C("std::array", [P(B("char")), I(n, "unsigned long")])
    for fn in functors:
        for dn, dt in DTYPES:
            for vec, nargs in [(4, 3), (8, 2)]:
                f = C("at::native::" + fn, [dt])
                names.append(mangle("at::native::vectorized_elementwise_kernel",
                                    [I(vec), f, arr(nargs)], [B("int"), T(1), T(2)])
                             + ("elementwise",))
    for fn in ["CUDAFunctor_add", "MulFunctor", "CopyFunctor"]:
        for dn, dt in DTYPES:
            f = C("at::native::" + fn, [dt])
            names.append(mangle("at::native::unrolled_elementwise_kernel",
                                [f, arr(3), C("at::native::memory::LoadWithoutCast"),
                                 C("at::native::memory::StoreWithoutCast")],
                                [B("int"), T(0), T(1), T(2), T(3)]) + ("elementwise",))
    # reductions
    for op in ["MeanOps", "NormTwoOps", "MaxOps", "SumOps", "ArgMaxOps"]:
        for dn, dt in DTYPES[:2]:
            for vt in [4, 2]:
                r = C("at::native::ReduceOp", [dt, C("at::native::" + op, [dt, FLOAT]),
                                               B("unsigned int"), dt, I(vt)])
                names.append(mangle("at::native::reduce_kernel", [I(512), I(1), r], [T(2)])
                             + ("reduce",))
    # softmax / cross-entropy
    for fwd in ["cunn_SoftMaxForward", "cunn_SoftMaxBackward"]:
        for dn, dt in DTYPES:
            for ilp in [4, 8]:
                ep = C("at::native::(anon)::%sEpilogue" % ("SoftMaxForward" if fwd.endswith(
                    "Forward") else "SoftMaxBackward"))
                names.append(mangle("at::native::(anon)::" + fwd, [I(ilp), dt, FLOAT, dt, ep],
                                    [P(T(3)), P(K(T(1))), B("int")]) + ("softmax",))
    for dn, dt in DTYPES:
        names.append(mangle("at::native::(anon)::nll_loss_forward_reduce_cuda_kernel_2d",
                            [dt, FLOAT, B("long")],
                            [P(T(0)), P(T(0)), P(K(T(0))), P(K(T(2))), P(K(T(0))), B("bool"),
                             B("long"), B("long"), B("long")]) + ("reduce",))
    # RMSNorm / rotary / fused kernels (vLLM / apex style)
    for op in ["rms_norm_kernel", "fused_add_rms_norm_kernel", "rms_norm_backward_kernel"]:
        for dn, dt in DTYPES:
            for w in [8, 16]:
                names.append(mangle("vllm::" + op, [dt, I(w)],
                                    [P(T(0)), P(K(T(0))), P(K(T(0))), FLOAT, B("int"),
                                     B("int")]) + ("norm",))
    for dn, dt in DTYPES[1:]:
        for neox in [True, False]:
            names.append(mangle("vllm::rotary_embedding_kernel", [dt, BOOL(neox)],
                                [P(K(B("long"))), P(T(0)), P(T(0)), P(K(T(0))), B("int"),
                                 B("long"), B("long"), B("int"), B("int"), B("int")])
                         + ("elementwise",))
    # FlashAttention-2 forward / backward
    params_f, params_b = C("Flash_fwd_params"), C("Flash_bwd_params")
    cut = {"bf16": C("cutlass::bfloat16_t"), "half": C("cutlass::half_t")}
    for dn in ["bf16", "half"]:
        for hd, bm, bn, w in [(64, 128, 128, 4), (128, 128, 64, 4), (128, 128, 32, 4),
                              (256, 64, 64, 4)]:
            kt = C("Flash_kernel_traits", [I(hd), I(bm), I(bn), I(w), cut[dn]])
            tr = C("Flash_fwd_kernel_traits", [I(hd), I(bm), I(bn), I(w), BOOL(0), BOOL(0),
                                               cut[dn], kt])
            for causal in [True, False]:
                names.append(mangle("flash::flash_fwd_kernel",
                                    [tr, BOOL(0), BOOL(causal), BOOL(0), BOOL(0), BOOL(1),
                                     BOOL(0), BOOL(0), BOOL(0)], [params_f]) + ("attention",))
            trb = C("Flash_bwd_kernel_traits", [I(hd), I(64), I(bm), I(8), I(2), I(4), I(2),
                                                BOOL(0), BOOL(0), cut[dn], kt])
            for causal in [True, False]:
                names.append(mangle("flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
                                    [trb, BOOL(0), BOOL(causal), BOOL(0), BOOL(0), BOOL(1),
                                     BOOL(1), BOOL(0)], [params_b]) + ("attention",))
            names.append(mangle("flash::flash_bwd_dot_do_o_kernel", [BOOL(1), trb],
                                [params_b]) + ("elementwise",))
            names.append(mangle("flash::flash_bwd_convert_dq_kernel", [trb, I(1)],
                                [params_b, B("int")]) + ("elementwise",))
    # optimizer: multi-tensor apply (fused AdamW)
    for dn, dt in DTYPES:
        for depth in [4, 5]:
            meta = C("at::native::(anon)::TensorListMetadata", [I(depth)])
            fn = C("at::native::(anon)::FusedAdamMathFunctor", [dt, I(depth), BOOL(1)])
            names.append(mangle("at::native::(anon)::multi_tensor_apply_kernel",
                                [meta, fn, P(B("double")), P(B("double"))],
                                [T(0), T(1), T(2), T(3)]) + ("optimizer",))
    for op in ["l2norm_kernel_cuda", "lpnorm_cleanup"]:
        for dn, dt in DTYPES:
            names.append(mangle("at::native::(anon)::" + op, [dt, I(1), FLOAT],
                                [P(K(T(2))), P(T(0)), P(T(0)), B("int")]) + ("reduce",))
    # embedding and indexing
    for dn, dt in DTYPES:
        names.append(mangle("at::native::(anon)::indexSelectLargeIndex",
                            [dt, B("long"), B("unsigned int"), I(2), I(2), I(-2), BOOL(1)],
                            [P(T(0)), P(K(T(0))), P(K(T(1))), B("int"), B("int"), T(2),
                             T(2), B("long")]) + ("elementwise",))
        names.append(mangle("at::native::(anon)::embedding_backward_feature_kernel",
                            [dt, FLOAT, B("long")],
                            [P(K(T(2))), P(K(T(0))), P(T(1)), B("int"), B("long"), B("int"),
                             B("int")]) + ("reduce",))
    # Triton kernels from torch.compile: plain C names, many of them.
    ops = ["add", "mul", "rsqrt", "mean", "pow", "silu", "sigmoid", "to_copy", "view",
           "embedding", "clone", "sum", "div", "neg", "cat", "slice", "exp", "sub"]
    rng = random.Random(1234)
    seen = set()
    while len([n for n in names if n[2] == "triton"]) < 110:
        kind = rng.choice(["poi", "poi", "red", "per"])
        k = rng.randint(2, 4)
        ops_k = sorted(rng.sample(ops, k))
        n = "triton_%s_fused_%s_%d" % (kind, "_".join(("_" + o) if o == "to_copy" else o
                                                      for o in ops_k), rng.randint(0, 40))
        if n not in seen:
            seen.add(n)
            names.append((n, n, "triton"))
    return names


# Per family: (median duration range in ns, grid, block, registers, dynamic smem, cluster)
FAMILY = {
    "gemm": ((15000, 600000), (132, 1, 1), (384, 1, 1), 168, 213248, (2, 1, 1)),
    "attention": ((40000, 900000), (16, 32, 8), (128, 1, 1), 255, 98304, (1, 1, 1)),
    "elementwise": ((2000, 40000), (8192, 1, 1), (128, 1, 1), 24, 0, (1, 1, 1)),
    "reduce": ((4000, 80000), (264, 1, 1), (512, 1, 1), 40, 16, (1, 1, 1)),
    "softmax": ((5000, 120000), (4096, 1, 1), (1024, 1, 1), 38, 4096, (1, 1, 1)),
    "norm": ((3000, 50000), (4096, 1, 1), (256, 1, 1), 32, 0, (1, 1, 1)),
    "optimizer": ((10000, 300000), (320, 1, 1), (512, 1, 1), 56, 0, (1, 1, 1)),
    "triton": ((2500, 60000), (2048, 1, 1), (256, 1, 1), 28, 0, (1, 1, 1)),
}

# ---------------------------------------------------------------------------------------
# The trace.

PID, PPID, TID = 48213, 48190, 48213
HOST = "gpu-node-17"
EXE = "/usr/bin/python3.12"
T0 = 41_000_000_000  # first timestamp: 41 s of CLOCK_MONOTONIC_RAW
REALTIME_OFFSET = 1_795_968_652_912_215_286
CREATED_AT = "2026-11-30T09:00:00Z"  # fixed: the file is deterministic
# devices row copied from tests/fixtures/h200/streams_bad.kgt.xz
DEVICE = (1, 0, "NVIDIA H200", "bcc1dfc1-2d22-b7fe-0cb8-970918da4ec7", 132, 64, 32, 1024,
          65536, 65536, 233472, 49152, 32, 9, 0, 1980000, 150109880320, 4814304000,
          62914560, 3, 0)
CTX, NULL_STREAM = 1, 7
# stream id -> (priority, flags: 2 non_blocking, 3 legacy NULL stream)
STREAMS = {7: (0, 3), 8: (0, 2), 9: (0, 2), 10: (0, 2), 11: (0, 2), 12: (-5, 2)}
CHANNEL = {s: i for i, s in enumerate(sorted(STREAMS))}
CHANNEL_HTOD, CHANNEL_DTOH = 10, 12  # copy-engine channels, as on the H200
LOCAL_MEM_TOTAL = 155713536
# CUDA runtime API: name -> cbid (as recorded on an H200 with CUPTI 13.0)
API = {"cudaLaunchKernel_v7000": 211, "cudaMemcpyAsync_v3020": 41, "cudaMemcpy_v3020": 31,
       "cudaMemsetAsync_v3020": 51, "cudaStreamSynchronize_v3020": 131,
       "cudaDeviceSynchronize_v3020": 165, "cudaStreamCreateWithPriority_v5050": 202,
       "cudaGetDeviceCount_v3020": 3, "cudaGetDeviceProperties_v12000": 443,
       "cudaGetDevice_v3020": 17, "cudaEventRecord_v3020": 135,
       "cudaGetLastError_v3020": 10}


def step_program(names, rng, layers):
    """The kernels of one training step, as (name index, stream) in launch order."""
    by = {}
    for i, (_, _, fam) in enumerate(names):
        by.setdefault(fam, []).append(i)
    pick = lambda fam: rng.choice(by[fam])
    prog = []
    # per-layer kernel choices (layers of one kind share kernels, as in a real model)
    kinds = []
    for k in range(8):
        kinds.append({
            "norm": pick("norm"), "norm_b": pick("norm"), "qkv": pick("gemm"),
            "rot": pick("elementwise"), "attn": pick("attention"), "attn_b": pick("attention"),
            "o": pick("gemm"), "add": pick("elementwise"), "up": pick("gemm"),
            "act": pick("triton"), "down": pick("gemm"), "tri": [pick("triton") for _ in range(6)],
            "dgrad": [pick("gemm") for _ in range(4)], "wgrad": [pick("gemm") for _ in range(4)],
            "ew_b": [pick("elementwise") for _ in range(5)], "red": pick("reduce"),
        })
    emb, head, sm, loss = pick("elementwise"), pick("gemm"), pick("softmax"), pick("reduce")
    prog += [(emb, 7), (pick("elementwise"), 7)]
    for layer in range(layers):
        k = kinds[layer % 8]
        prog += [(k["norm"], 7), (k["qkv"], 7), (k["rot"], 7), (k["tri"][0], 7),
                 (k["attn"], 7), (k["o"], 7), (k["add"], 7), (k["norm"], 7), (k["up"], 7),
                 (k["act"], 7), (k["down"], 7), (k["tri"][1], 7), (k["add"], 7)]
    prog += [(head, 7), (sm, 7), (loss, 7), (pick("softmax"), 7), (pick("gemm"), 7)]
    for layer in reversed(range(layers)):
        k = kinds[layer % 8]
        prog += [(k["tri"][2], 7), (k["dgrad"][0], 7), (k["wgrad"][0], 10), (k["act"], 7),
                 (k["tri"][3], 7), (k["dgrad"][1], 7), (k["wgrad"][1], 11), (k["norm_b"], 7),
                 (k["red"], 8), (k["dgrad"][2], 7), (k["wgrad"][2], 10), (k["attn_b"], 7),
                 (k["ew_b"][0], 7), (k["ew_b"][1], 7), (k["tri"][4], 7), (k["rot"], 7),
                 (k["dgrad"][3], 7), (k["wgrad"][3], 11), (k["ew_b"][2], 8),
                 (k["ew_b"][3], 12), (k["tri"][5], 7), (k["ew_b"][4], 7)]
    prog += [(pick("elementwise"), 7)]
    for _ in range(6):
        prog += [(pick("reduce"), 7)]
    for _ in range(24):
        prog += [(pick("optimizer"), 7)]
    prog += [(pick("elementwise"), 7), (pick("elementwise"), 12)]
    prog += [(None, 7), (None, 8), (None, 7)]  # drawn anew each step from every name
    return prog


class Gen:
    def __init__(self, args, schema_sql, index_sql, version):
        self.a = args
        self.rng = random.Random(args.seed)
        self.schema_sql, self.index_sql, self.version = schema_sql, index_sql, version
        self.strings = {}
        self.string_rows = []
        self.corr = 0
        self.api = []
        self.t = T0  # host clock of the launching thread
        self.ready = {s: T0 for s in STREAMS}  # when each stream's last op ends

    def sid(self, text):
        i = self.strings.get(text)
        if i is None:
            i = self.strings[text] = len(self.string_rows) + 1
            self.string_rows.append((i, text))
        return i

    def api_call(self, name, dur):
        """An API call on the launching thread from the host clock; advances the clock."""
        self.corr += 1
        start = self.t
        self.api.append((None, 1, TID, 1, API[name], self.sid(name), start, start + dur,
                         self.corr, 0, 0))
        self.t = start + dur
        return start, self.corr

    def run(self, out_path):
        a, rng = self.a, self.rng
        tmp = "%s.tmp%d" % (out_path, os.getpid())
        if os.path.exists(tmp):
            os.unlink(tmp)
        db = sqlite3.connect(tmp, isolation_level=None)
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA cache_size=-262144")
        db.execute("BEGIN")
        for stmt in split_sql(self.schema_sql):
            db.execute(stmt)
        command = "python3 train.py --model llama-1b --kernels %d --seed %d" % (a.kernels,
                                                                                   a.seed)
        meta = [("format", "kgantt-trace"), ("version", "1"), ("min_reader_version", "1"),
                ("clock", "CLOCK_MONOTONIC_RAW"), ("time_unit", "ns"),
                ("source", "kgantt-record"), ("created_by", "kgantt " + self.version),
                ("created_at", CREATED_AT), ("command", command)]
        db.executemany("INSERT OR REPLACE INTO meta VALUES(?,?)", meta)

        # start-up: strings the recorder interns first, device queries, stream creation
        for s in (HOST, command, EXE, "start", "recording (full mode, latency timestamps on)",
                  "NVIDIA H200"):
            self.sid(s)
        messages = [(1, T0 - 310_000, "info", "recording (full mode, latency timestamps on)")]
        captures = [(1, T0 - 350_000, 1, "start")]
        self.api_call("cudaGetDeviceCount_v3020", 180_000_000)  # context creation
        self.api_call("cudaGetDeviceProperties_v12000", 25_000)
        self.api_call("cudaGetDevice_v3020", 900)
        stream_rows = []
        legacy_corr = self.corr
        for s, (prio, flags) in sorted(STREAMS.items()):
            if s == NULL_STREAM:
                stream_rows.append((1, CTX, s, prio, flags, legacy_corr))
                continue
            _, c = self.api_call("cudaStreamCreateWithPriority_v5050", 9000)
            stream_rows.append((1, CTX, s, prio, flags, c))
        self.t += 2_000_000
        for s in STREAMS:
            self.ready[s] = self.t

        names = kernel_names()
        name_ids = [(self.sid(m), self.sid(d)) for m, d, _ in names]
        # per-name: median duration, launch shape
        shape = []
        for i, (_, _, fam) in enumerate(names):
            (lo, hi), grid, block, regs, dsmem, cluster = FAMILY[fam]
            med = math.exp(rng.uniform(math.log(lo), math.log(hi)))
            g = (max(1, int(grid[0] * rng.choice([0.25, 0.5, 1, 1, 2, 4]))), grid[1], grid[2])
            if fam == "gemm":  # 384 threads: 168 registers is the most that fit
                reg = rng.choice([128, 154, 168])
            else:
                reg = max(16, min(255, regs + rng.randint(-8, 8)))
            smem_cfg = 233472 if dsmem > 49152 else rng.choice([32768, 65536, 102400])
            stat = 0 if fam in ("gemm", "attention") else rng.choice([0, 0, 16, 1024, 4096])
            cl = cluster if cluster[0] > 1 else (0, 0, 0)
            # kernels columns grid_x .. shared_mem_executed
            shape.append((med, g + block + cl + (reg, stat, dsmem, 0, LOCAL_MEM_TOTAL,
                                                 smem_cfg)))

        layers = a.layers
        prog = step_program(names, random.Random(a.seed * 7919 + 1), layers)
        launch_name = self.sid("cudaLaunchKernel_v7000")
        get_device = self.sid("cudaGetDevice_v3020")
        host_calls = a.host_calls
        kernels, memcpys, memsets, syncs, nvtx, overheads = [], [], [], [], [], []
        nv_dom = 0
        nv_step, nv_fwd, nv_bwd, nv_opt = (self.sid(x) for x in
                                           ("train_step", "forward", "backward", "optimizer"))
        n_fwd = 2 + 13 * layers + 5
        n_bwd = 22 * layers
        total = a.kernels
        gauss, random_, randint = rng.gauss, rng.random, rng.randint
        grid_id = 0
        step = 0
        ready = self.ready
        api = self.api
        memcpy_api = self.sid("cudaMemcpyAsync_v3020")
        sigma = 0.12
        n_kernels = n_api = 0
        ranges = [(nv_fwd, 0, n_fwd), (nv_bwd, n_fwd, n_fwd + n_bwd),
                  (nv_opt, n_fwd + n_bwd, len(prog))]
        range_begin = {b: nv for nv, b, e in ranges}
        range_end = {e - 1: nv for nv, b, e in ranges}
        ins = lambda table, rows: rows and db.executemany(
            "INSERT INTO %s VALUES(%s)" % (table, ",".join("?" * len(rows[0]))), rows)
        while n_kernels < total:
            step += 1
            # the next batch: a pinned HtoD copy on stream 9, then the NVTX step range
            step_start = self.t
            nbytes = 8 * 4096 * 8  # input ids: batch 8 × 4096 tokens × int64
            pageable = step % 25 == 3
            c_start, c = self.api_call("cudaMemcpyAsync_v3020", 6000)
            cs = max(c_start + 4000, ready[9] + 800)
            ce = cs + 2000 + nbytes * 1000 // (8_000 if pageable else 50_000)  # bytes/µs
            memcpys.append((None, 1, 0, 0, CTX, 9, c, 1, 1 if pageable else 2, 3, nbytes, cs,
                            ce, 1, CHANNEL_HTOD, 2, None, None, 0))
            ready[9] = ce
            if pageable:  # a pageable "async" copy blocks the host until it is done
                api[-1] = api[-1][:7] + (ce + 3000,) + api[-1][8:]
                self.t = ce + 3000
            # gradients zeroed by memsets, the step, fwd/bwd/optimizer ranges
            for _ in range(4):
                ms_start, c = self.api_call("cudaMemsetAsync_v3020", 4000 + randint(0, 3000))
                nb = 1 << randint(16, 26)
                s = max(ms_start + 3000, ready[7] + 900)
                e = s + 1500 + nb // 1500
                memsets.append((None, 1, 0, CTX, 7, c, 0, nb, 3, s, e, 1, CHANNEL[7], 1, None,
                                None, 0))
                ready[7] = e
            rng_start = {}
            # every 10th step is an evaluation step that generates tokens: small decode
            # kernels, so the GPU waits for the host (launch-bound) instead of the reverse
            scale = 0.06 if step % 10 == 5 else 1.0
            for idx, (ni, stream) in enumerate(prog):
                if n_kernels >= total:
                    break
                if idx in range_begin:
                    rng_start[range_begin[idx]] = self.t
                # host: Python + framework overhead, an occasional stall (GC, logging)
                gap = int(9000 * math.exp(gauss(0, 0.45)))
                if random_() < 0.002:
                    gap += 50_000 + int(random_() * 2_950_000)
                self.t += gap
                # PyTorch's framework calls around each launch (cudaGetDevice and the like,
                # ~13 per kernel in a recorded MLP step): --host-calls of them, 300 ns each
                for _ in range(host_calls):
                    self.corr += 1
                    api.append((None, 1, TID, 1, 17, get_device, self.t, self.t + 300,
                                self.corr, 0, 0))
                    self.t += 400
                api_start = self.t
                api_dur = max(2200, min(60000, int(4200 * math.exp(gauss(0, 0.3)))))
                self.corr += 1
                corr = self.corr
                api.append((None, 1, TID, 1, 211, launch_name, api_start, api_start + api_dur,
                            corr, 0, 0))
                self.t = api_start + api_dur
                if ni is None:  # metrics, checks, ...: any kernel, now and then
                    ni = int(random_() * len(names))
                med, cols = shape[ni]
                dur = max(2000, min(2_000_000, int(scale * med * math.exp(gauss(0, sigma)))))
                # the launch is queued during the call, submitted when the stream's previous
                # work is done, and starts shortly after
                queued = api_start + int(api_dur * (0.4 + 0.4 * random_()))
                start = max(queued + 2600 + int(random_() * 3000),
                            ready[stream] + 500 + int(random_() * 1000))
                submitted = start - 450 - int(random_() * 350)
                end = start + dur
                ready[stream] = end
                grid_id += 1
                n_kernels += 1
                mn, dm = name_ids[ni]
                kernels.append((None, 1, 0, CTX, stream, corr, mn, dm, queued, submitted,
                                start, end) + cols +
                               (CHANNEL[stream], 1, 0, None, None, grid_id, 0, 0))
                if idx in range_end:
                    nv = range_end[idx]
                    nvtx.append((None, 1, TID, nv_dom, nv, rng_start[nv], self.t, TID))
                if idx == n_fwd + n_bwd // 2:  # a DtoD copy (gradient bucket) mid-backward
                    c_start, c = self.api_call("cudaMemcpyAsync_v3020", 5000)
                    nb = 1 << 24
                    s = max(c_start + 3000, ready[8] + 700)
                    e = s + 1500 + nb // 2_000_000 * 1000
                    memcpys.append((None, 1, 0, 0, CTX, 8, c, 8, 3, 3, nb, s, e, 1, CHANNEL[8], 1,
                                    None, None, 0))
                    ready[8] = e
            # loss.item(): a DtoH copy into pinned memory, then the host waits for the
            # legacy stream (everything queued on it) to drain
            c_start, c = self.api_call("cudaMemcpyAsync_v3020", 5500)
            s = max(c_start + 3500, ready[7] + 900)
            e = s + 2300
            memcpys.append((None, 1, 0, 0, CTX, 7, c, 2, 3, 2, 4, s, e, 1, CHANNEL_DTOH, 2,
                            None, None, 0))
            ready[7] = e
            sy_start, c = self.api_call("cudaStreamSynchronize_v3020", 0)
            e = max(sy_start + 1500, e + 1200)
            api[-1] = api[-1][:7] + (e,) + api[-1][8:]
            syncs.append((None, 1, 3, CTX, 7, None, sy_start + 300, e - 400, c, 0, 0))
            self.t = e
            if step % 50 == 10:  # metrics logged with a blocking copy to pageable memory
                c_start, c = self.api_call("cudaMemcpy_v3020", 0)
                s = max(c_start + 3500, ready[7] + 900)
                e = s + 2600
                memcpys.append((None, 1, 0, 0, CTX, 7, c, 2, 3, 1, 64, s, e, 0, CHANNEL_DTOH,
                                2, None, None, 0))
                ready[7] = e
                api[-1] = api[-1][:7] + (e + 4000,) + api[-1][8:]
                self.t = e + 4000
            nvtx.append((None, 1, TID, nv_dom, nv_step, step_start, self.t, TID))
            if step % 10 == 0:  # the data stream, now and then
                sy_start, c = self.api_call("cudaStreamSynchronize_v3020", 0)
                e = max(sy_start + 1500, ready[9] + 1200)
                api[-1] = api[-1][:7] + (e,) + api[-1][8:]
                syncs.append((None, 1, 3, CTX, 9, None, sy_start + 300, e - 400, c, 0, 0))
                self.t = e
            if step % 100 == 50:
                self.device_sync(syncs)
            # data loading between steps
            self.t += int(400_000 * math.exp(gauss(0, 0.5)))
            if len(kernels) >= 65536:  # bounded memory: the big tables go in as we go
                ins("kernels", kernels)
                ins("api_calls", api)
                n_api += len(api)
                del kernels[:], api[:]
            if step % 20 == 0:  # CUPTI's buffer flush
                overheads.append((1, 131072, 2, TID, self.t - 40_000, self.t - 40_000 +
                                  randint(200_000, 900_000), 0))
        self.device_sync(syncs)
        end_ns = self.t + 5_000_000

        proc = (1, PID, PPID, HOST, EXE, command, None,
                T0 - 400_000, end_ns, REALTIME_OFFSET, "full", 1, 130001, 1, "exit 0", 0, 0, 0,
                None)
        db.execute("INSERT INTO processes VALUES(%s)" % ",".join("?" * len(proc)), proc)
        db.executemany("INSERT INTO messages VALUES(?,?,?,?)", messages)
        db.executemany("INSERT INTO captures VALUES(?,?,?,?)", captures)
        db.execute("INSERT INTO devices VALUES(%s)" % ",".join("?" * len(DEVICE)), DEVICE)
        db.execute("INSERT INTO contexts VALUES(1,?,0,?,0)", (CTX, NULL_STREAM))
        db.executemany("INSERT INTO streams VALUES(?,?,?,?,?,?)", stream_rows)
        db.executemany("INSERT INTO strings VALUES(?,?)", self.string_rows)
        ins("kernels", kernels)
        ins("memcpys", memcpys)
        ins("memsets", memsets)
        ins("syncs", syncs)
        ins("api_calls", api)
        ins("nvtx", nvtx)
        ins("overheads", overheads)
        for stmt in split_sql(self.index_sql):
            db.execute(stmt)
        db.execute("COMMIT")
        db.close()
        os.replace(tmp, out_path)
        return {"kernels": n_kernels, "api_calls": n_api + len(api), "memcpys": len(memcpys),
                "memsets": len(memsets), "syncs": len(syncs), "nvtx": len(nvtx),
                "steps": step, "names": len(names), "strings": len(self.string_rows),
                "span_s": (end_ns - T0) / 1e9}

    def device_sync(self, syncs):
        sy_start, c = self.api_call("cudaDeviceSynchronize_v3020", 0)
        e = max([sy_start + 2000] + [r + 1500 for r in self.ready.values()])
        self.api[-1] = self.api[-1][:7] + (e,) + self.api[-1][8:]
        syncs.append((None, 1, 4, CTX, None, None, sy_start + 300, e - 400, c, 0, 0))
        self.t = e


def split_sql(sql):
    """Statements of a script (sqlite3.complete_statement decides where each ends)."""
    out, cur = [], ""
    for line in sql.splitlines(keepends=True):
        cur += line
        if sqlite3.complete_statement(cur):
            out.append(cur.strip())
            cur = ""
    if cur.strip():
        raise ValueError("incomplete SQL statement at the end: %r" % cur[:80])
    return out


def check_names():
    """Demangles every mangled name with c++filt and compares with our text."""
    import subprocess
    names = kernel_names()
    mangled = [m for m, d, _ in names if m.startswith("_Z")]
    out = subprocess.run(["c++filt"], input="\n".join(mangled) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    want = {m: d for m, d, _ in names}
    bad = [(m, want[m], got) for m, got in zip(mangled, out) if want[m] != got]
    for m, w, g in bad:
        print("MISMATCH %s\n  ours:    %s\n  c++filt: %s" % (m, w, g))
    print("%d names (%d mangled), %d mismatches" % (len(names), len(mangled), len(bad)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--kernels", type=int, default=1_000_000, help="kernels (default 1e6)")
    ap.add_argument("-o", "--output", help="the trace to write (replaced if it exists)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--layers", type=int, default=24, help="transformer layers (default 24)")
    ap.add_argument("--host-calls", type=int, default=0,
                    help="extra trivial API calls (cudaGetDevice) before each launch, as "
                         "PyTorch makes them (default 0)")
    ap.add_argument("--schema", default=os.path.join(ROOT, "src/trace/schema.c"),
                    help="C source holding kg_schema_sql and kg_index_sql")
    ap.add_argument("--check-names", action="store_true",
                    help="only compare the demangled names with c++filt's")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args()
    if a.check_names:
        return check_names()
    if not a.output or a.kernels < 1:
        ap.error("-o OUTPUT and -n >= 1 are required")
    schema_sql, index_sql = load_schema(a.schema)
    try:
        with open(os.path.join(ROOT, "VERSION")) as f:
            version = f.read().strip()
    except OSError:
        version = "0.0.0"
    t0 = time.time()
    stats = Gen(a, schema_sql, index_sql, version).run(a.output)
    if not a.quiet:
        print("%s: %s; %.1f s of trace, %d bytes, written in %.1f s" % (
            a.output, ", ".join("%s %d" % kv for kv in stats.items() if kv[0] != "span_s"),
            stats["span_s"], os.path.getsize(a.output), time.time() - t0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
