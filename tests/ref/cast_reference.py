#!/usr/bin/env python3
"""cast_reference.py: compare `kvlint cast --format json` with the rational model numerics_ref.py.

Deterministic (fixed seed). For every element format in all three overflow modes (truncate: vLLM's
CPU fp8 writer, emulated bit by bit in numerics_ref.cast_cpu) it casts a mix of
random magnitudes, values drawn around the format's range, every kind of tie (midpoints between
neighbouring codes and one binary64 ulp either side), subnormals and half of the smallest one,
sentinels (-1e9, -10000, finfo minima, +-inf, nan), ids 0..300, binary32 literals (1e9f) and hex
floats. For the row dtypes (mxfp4, nvfp4, nvfp4_4over6, mxfp8, fp4_mx_block16, per-tensor scaled
fp8, int8, and the per-token-head dtypes) it builds rows whose blocks mix sentinels, ids, ordinary
values, zeros, tiny values and non-finite values, with several k_scales. Every conversion path (--path) is
checked against the mode it applies per format. Every result's stored value and class must match
exactly. Prints the number of comparisons; exits 1 on any mismatch.

usage: cast_reference.py KVLINT [--seed N]
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only (make distcheck)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numerics_ref as ref  # noqa: E402

SENTINELS = [
    "-1e9", "-1000000000.0", "1e9", "-1e9f", "-10000", "-10000.0", "10000.0", "-1e4", "inf", "-inf",
    "nan", "-65504.0", "65504", "-3.4028234663852886e+38", "-3.4028235e38f", "-3.3895313892515355e+38",
    "-57344", "-448", "448", "464", "-464", "465", "240", "248", "-248", "61440", "-61440", "65520",
    "6", "7", "-7", "5", "0.25", "0.75", "0", "-0.0", "1e-45", "-1e-45f", "1e-300", "-1e300",
    "1e39", "-1e39f", "0.1", "0.1f", "1_000_000.5", "0x1p-3", "-0x1.8p4", "0x1p127", "0x1p-149",
]
IDS = [str(i) for i in range(301)]


def lit(x):
    """A binary64 as a literal kvlint reads back exactly."""
    return repr(float(x))


def f32_bits_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def neighbours_and_ties(rng, name, count):
    """Midpoints of random neighbouring codes and one binary64 ulp either side of each."""
    out = []
    if name == "e8m0":
        for _ in range(count):
            k = rng.randint(-127, 126)
            b = 2.0 ** k * math.sqrt(2)
            out += [lit(b), lit(math.nextafter(b, 0)), lit(math.nextafter(b, math.inf)), lit(2.0 ** k)]
        return out
    if name == "float32":
        for _ in range(count):
            bits = rng.randrange(0, 0x7F800000)
            v = f32_bits_value(bits)
            w = f32_bits_value(bits + 1) if bits + 1 < 0x7F800000 else 2.0 ** 128
            mid = v + (w - v) / 2
            s = rng.choice([1, -1])
            out += [lit(s * mid), lit(s * math.nextafter(mid, 0)), lit(s * math.nextafter(mid, math.inf)), lit(s * v)]
        return out
    table = ref.FORMATS[name].table()
    for _ in range(count):
        i = rng.randrange(len(table) - 1)
        a, b = float(table[i]), float(table[i + 1])
        mid = a + (b - a) / 2
        s = rng.choice([1, -1])
        out += [lit(s * mid), lit(s * math.nextafter(mid, 0)), lit(s * math.nextafter(mid, math.inf)), lit(s * a)]
    return out


def format_range(name):
    if name == "float32":
        return float(ref.F32_MAX), 2.0 ** -149
    if name == "e8m0":
        return 2.0 ** 127, 2.0 ** -127
    t = ref.FORMATS[name].table()
    return float(t[-2]), float(t[1])


def element_values(rng, name):
    mx, tiny = format_range(name)
    vals = list(SENTINELS) + IDS
    for _ in range(700):  # random magnitudes over the whole binary64 range that matters
        vals.append(lit(rng.choice([1, -1]) * 2.0 ** rng.uniform(-160, 140) * rng.uniform(1, 2)))
    for _ in range(300):  # around the format's own range, past max included
        vals.append(lit(rng.uniform(-2.2 * mx, 2.2 * mx) if mx < 1e30 else rng.uniform(-1e6, 1e6)))
    for _ in range(200):
        vals.append(lit(rng.choice([1, -1]) * tiny * rng.uniform(0, 40)))
    for k in range(9):  # multiples of half the smallest subnormal
        vals += [lit(tiny * k / 2), lit(-tiny * k / 2)]
    vals += [lit(mx), lit(-mx), lit(math.nextafter(mx, math.inf)), lit(math.nextafter(mx, 0))]
    vals += neighbours_and_ties(rng, name, 150)
    for _ in range(80):  # C float literals, rounded once from the decimal text
        vals.append("%.9gf" % rng.uniform(-1e5, 1e5))
    for _ in range(40):
        vals.append(float.hex(rng.uniform(-1000, 1000)))
    return vals


def block_values(rng, size, nblocks):
    """One row of nblocks blocks, each a mix of the shapes a KV row takes."""
    row = []
    for _ in range(nblocks):
        kind = rng.randrange(8)
        sigma = 2.0 ** rng.uniform(-20, 12)
        blk = [lit(rng.gauss(0, sigma)) for _ in range(size)]
        if kind == 0:  # a mask sentinel among ordinary values
            blk[rng.randrange(size)] = rng.choice(["-1e9", "-10000.0", "-3.4028234663852886e+38", "-65504", "-1e9f"])
        elif kind == 1:  # adapter / position ids
            blk = [rng.choice(IDS) for _ in range(size)]
        elif kind == 2:  # ids with a sentinel column
            blk = [rng.choice(IDS) for _ in range(size)]
            blk[0] = "-1e9"
        elif kind == 3:  # zeros and tiny values
            blk = [rng.choice(["0", "-0.0", lit(rng.uniform(-1e-30, 1e-30)), lit(rng.gauss(0, 1e-8))]) for _ in range(size)]
        elif kind == 4 and rng.random() < 0.5:  # a non-finite value
            blk[rng.randrange(size)] = rng.choice(["inf", "-inf", "nan"])
        elif kind == 5:  # keys of +-3.5 and small codewords
            blk = [rng.choice(["3.5", "-3.5", "0.125", "-0.125", "28", "-28"]) for _ in range(size)]
        row += blk
    row += [lit(rng.gauss(0, 3)) for _ in range(rng.randrange(size))]  # a partial last block
    return row


def run_cast(kvlint, dtype, mode, values, scale=None, path=None, dynamic=None):
    cmd = [kvlint, "cast", "--dtype", dtype, "--format", "json"]
    cmd += ["--path", path] if path else ["--overflow", mode]
    if dynamic:
        cmd += ["--calculate-kv-scales", dynamic]
    if scale:
        cmd += ["--scale", scale]
    proc = subprocess.run(cmd + ["--"] + values, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("kvlint cast --dtype %s failed (%d): %s" % (dtype, proc.returncode, proc.stderr))
    return json.loads(proc.stdout, parse_int=float)  # keeps "-0" negative


# (--path, --dtype, the overflow mode the path applies, the dtype it stores): docs/dtypes.md
PATHS = [
    ("torch", "fp8_e4m3", "nonsaturate", "fp8_e4m3"), ("cuda", "fp8_e4m3", "saturate", "fp8_e4m3"),
    ("cuda-sm75", "fp8_e5m2", "saturate", "fp8_e5m2"), ("rocm", "fp8", "saturate", "fp8_e4m3fnuz"),
    ("rocm-c10", "fp8", "nonsaturate", "fp8_e4m3fnuz"), ("cpu", "fp8_e4m3", "truncate", "fp8_e4m3"),
    ("cpu", "fp8_e5m2", "truncate", "fp8_e5m2"), ("cpu", "float16", "nonsaturate", "float16"),
    ("triton", "fp8_e5m2", "nonsaturate", "fp8_e5m2"), ("triton", "fp8_e4m3", "saturate", "fp8_e4m3"),
    ("cuda", "float16", "nonsaturate", "float16"),
]


class Checker:
    def __init__(self):
        self.compared = 0
        self.mismatches = []

    def compare_path(self, kvlint, path, dtype, mode, name, values):
        doc = run_cast(kvlint, dtype, None, values, path=path)
        if doc.get("path") != path:
            self.mismatches.append("--path %s: header path %s" % (path, doc.get("path")))
        self.check(doc, name, mode, values, None, name)

    def compare(self, kvlint, dtype, mode, values, scale=None, expect_name=None):
        self.check(run_cast(kvlint, dtype, mode, values, scale), dtype, mode, values, scale, expect_name)

    def compare_dynamic(self, kvlint, dtype, mode, values, operand):
        """--calculate-kv-scales: the row's own scale (absmax / 200 or / 100), and the flush
        threshold kvlint prints against the formula: half the smallest subnormal times the scale
        (that tie rounds to the even code, 0)."""
        div = 200 if operand == "key" else 100
        doc = run_cast(kvlint, dtype, mode, values, dynamic=operand)
        self.check(doc, dtype, mode, values, None, None, div)
        xs = [ref.parse_literal(v) for v in values]
        s = ref.dynamic_scale(xs, div)
        if ref.is_num(s) and mode != "truncate":
            self.compared += 2
            half_sub = ref.FORMATS[dtype].table()[1] / 2
            if not ref.stored_matches(s, doc.get("scale")):
                self.mismatches.append("%s dynamic %s: scale %s, reference %s" % (dtype, operand, doc.get("scale"), float(s)))
            if not ref.stored_matches(s * half_sub, doc.get("zero_up_to")):
                self.mismatches.append("%s dynamic %s: zero_up_to %s, reference %s" % (
                    dtype, operand, doc.get("zero_up_to"), float(s * half_sub)))

    def compare_tile_scale(self, kvlint, values):
        doc = run_cast(kvlint, "fp8_ds_mla", "nonsaturate", values)
        xs = [ref.parse_literal(v) for v in values]
        big = max(xs, key=lambda x: abs(ref.value_of(x)))
        if ref.value_of(big) == 0:
            return
        self.compared += 3
        if not ref.stored_matches(ref.tile_scale_ds_mla(xs), doc.get("scale")):
            self.mismatches.append("fp8_ds_mla: scale %s, reference %s" % (doc.get("scale"), float(ref.tile_scale_ds_mla(xs))))
        y = doc.get("zero_up_to")
        if not isinstance(y, float):
            self.mismatches.append("fp8_ds_mla: zero_up_to %r" % (y,))
            return
        at = ref.tile_ds_mla([big, ref.Fraction(y)])[1][0]
        above = ref.tile_ds_mla([big, ref.Fraction(math.nextafter(y, math.inf))])[1][0]
        if ref.value_of(at) != 0:
            self.mismatches.append("fp8_ds_mla: zero_up_to %r reads back %s" % (y, at))
        if ref.value_of(above) == 0:
            self.mismatches.append("fp8_ds_mla: above zero_up_to %r still reads back 0" % (y,))

    def check(self, doc, dtype, mode, values, scale, expect_name, dynamic=None):
        if doc["dtype"] != (expect_name or dtype) or doc["overflow"] != mode:
            self.mismatches.append("%s: header %s/%s" % (dtype, doc["dtype"], doc["overflow"]))
        xs = [ref.parse_literal(v) for v in values]
        want = ref.store_row(expect_name or dtype, xs, mode, scale, dynamic)
        got = doc["results"]
        if len(got) != len(values):
            self.mismatches.append("%s: %d results for %d values" % (dtype, len(got), len(values)))
            return
        for v, (ws, wc), g in zip(values, want, got):
            self.compared += 1
            if g["input"] != v or not ref.stored_matches(ws, g["stored"]) or g["class"] != wc:
                self.mismatches.append("%s %s scale=%s %s: kvlint %s %s, reference %s %s" % (
                    dtype, mode, scale, v, g["stored"], g["class"], ws if not isinstance(ws, ref.Fraction) else float(ws), wc))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kvlint")
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    chk = Checker()
    elements = ["float32", "bfloat16", "float16", "fp8_e4m3", "fp8_e4m3fnuz", "fp8_e5m2", "fp8_e5m2fnuz",
                "fp4_e2m1", "e8m0"]
    for name in elements:
        vals = element_values(rng, name)
        for mode in ("nonsaturate", "saturate", "truncate"):
            chk.compare(args.kvlint, name, mode, vals)
    # block dtypes: each call is one row of many blocks
    for dtype, (size, _) in sorted(ref.BLOCKS.items()):
        scales = [None, "0.0123", "3e-5"] if dtype.startswith("nvfp4") else [None]
        for scale in scales:
            chk.compare(args.kvlint, dtype, "nonsaturate", block_values(rng, size, 120), scale)
    for dtype in ("fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "int8"):
        for scale in (None, "0.0123", "1e7"):
            for mode in ("nonsaturate", "saturate", "truncate") if dtype != "int8" else ("nonsaturate",):
                chk.compare(args.kvlint, dtype, mode, block_values(rng, 16, 40), scale)
    # --calculate-kv-scales: the scale follows the row's absmax (a mask in the row sets it)
    for dtype in ("fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz"):
        for operand in ("key", "value"):
            for mode in ("nonsaturate", "saturate", "truncate"):
                for _ in range(3):
                    row = [v for v in block_values(rng, 16, 6) if v not in ("inf", "-inf", "nan")]
                    chk.compare_dynamic(args.kvlint, dtype, mode, row, operand)
    for dtype in ("int8_per_token_head", "fp8_per_token_head"):
        for _ in range(10):
            row = block_values(rng, rng.choice([8, 16, 64, 128]), 1)
            chk.compare(args.kvlint, dtype, "nonsaturate", row)
    # fp8_ds_mla: rows of one to four 128-element tiles (the NoPE part is 512), each tile its own
    # scale; cast's scale is the one of the largest value's tile, and its zero_up_to must read back
    # 0 beside that value while the next larger binary64 does not
    for _ in range(12):
        row = block_values(rng, 128, rng.randrange(1, 5))
        chk.compare(args.kvlint, "fp8_ds_mla", "nonsaturate", row)
        chk.compare_tile_scale(args.kvlint, [v for v in row if v not in ("inf", "-inf", "nan")])
    # aliases reach the same numbers
    chk.compare(args.kvlint, "torch.float8_e4m3fn", "nonsaturate", SENTINELS, expect_name="fp8_e4m3")
    chk.compare(args.kvlint, "half", "saturate", SENTINELS, expect_name="float16")
    # a path fixes the mode per format: --path P agrees with --overflow path_mode(P, format)
    for path, dtype, mode, name in PATHS:
        chk.compare_path(args.kvlint, path, dtype, mode, name, element_values(rng, name))
    for m in chk.mismatches[:25]:
        print("MISMATCH:", m)
    print("%d reference comparisons, %d mismatches" % (chk.compared, len(chk.mismatches)))
    return 1 if chk.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
