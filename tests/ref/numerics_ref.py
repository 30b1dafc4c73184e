"""numerics_ref.py: an independent model of kvlint's numerics in exact rational arithmetic.

Built from the format and recipe definitions, not from src/numerics: every finite value of an
8- or 16-bit format is decoded from its bit fields (sign, biased exponent, mantissa, the format's
NaN/inf rules) into a sorted table, and a real number is rounded by finding its two neighbours in
that table and taking the nearer one, the one with the even code on a tie. The value one step past
the largest finite value (same spacing) stands for overflow, so overflow is decided after rounding
as IEEE 754 defines it. binary32 is too big to tabulate and is rounded by its definition instead
(exponent by exact comparison with powers of two, then the nearest multiple of the quantum).
The block and scaled recipes (OCP MX v1.0, vLLM, SGLang, TensorRT-LLM) are written out in
fractions.Fraction; vLLM's per-token-head kernel is a binary32 sequence and is emulated as one.

Results are (stored, outcome) with stored a Fraction, or one of the strings "inf", "-inf", "nan",
"-0" (negative zero), so a comparison with kvlint's JSON is exact.
"""
from bisect import bisect_left
from fractions import Fraction
import math
import struct

INF, NINF, NAN = "inf", "-inf", "nan"


# ---------------------------------------------------------------- format definitions

class Fmt:
    """A binary format given by its fields: exp_bits, man_bits, bias and its special values."""

    def __init__(self, name, exp_bits, man_bits, bias, specials, has_neg_zero, saturates_always=False):
        self.name, self.e, self.m, self.bias = name, exp_bits, man_bits, bias
        self.specials = specials  # "ieee": all-ones exponent is inf/NaN; "fn": S.1111.111 NaN; "fnuz": 0x80 NaN; "none"
        self.has_inf = specials == "ieee"
        self.has_neg_zero = has_neg_zero
        self.saturates_always = saturates_always
        self._table = None

    def decode(self, code):
        """The value of a bit pattern: Fraction, "inf"/"-inf", "nan" or "-0"."""
        sign = (code >> (self.e + self.m)) & 1
        field = (code >> self.m) & ((1 << self.e) - 1)
        mant = code & ((1 << self.m) - 1)
        top = (1 << self.e) - 1
        if self.specials == "fnuz" and code == 1 << (self.e + self.m):
            return NAN
        if self.specials == "ieee" and field == top:
            return NAN if mant else (NINF if sign else INF)
        if self.specials == "fn" and field == top and mant == (1 << self.m) - 1:
            return NAN
        if field == 0:
            v = Fraction(mant, 1 << self.m) * Fraction(2) ** (1 - self.bias)
        else:
            v = (1 + Fraction(mant, 1 << self.m)) * Fraction(2) ** (field - self.bias)
        if sign:
            return "-0" if v == 0 else -v
        return v

    def table(self):
        """Sorted finite values >= 0 (index = code for the positive half) plus the overflow step."""
        if self._table is None:
            vals = []
            for code in range(1 << (self.e + self.m)):
                v = self.decode(code)
                if isinstance(v, Fraction):
                    vals.append(v)
            assert vals == sorted(vals) and len(set(vals)) == len(vals), self.name
            vals.append(vals[-1] + (vals[-1] - vals[-2]))  # one step past max: overflow
            self._table = vals
        return self._table

    @property
    def max(self):
        return self.table()[-2]


FORMATS = {
    "bfloat16": Fmt("bfloat16", 8, 7, 127, "ieee", True),
    "float16": Fmt("float16", 5, 10, 15, "ieee", True),
    "fp8_e4m3": Fmt("fp8_e4m3", 4, 3, 7, "fn", True),
    "fp8_e4m3fnuz": Fmt("fp8_e4m3fnuz", 4, 3, 8, "fnuz", False),
    "fp8_e5m2": Fmt("fp8_e5m2", 5, 2, 15, "ieee", True),
    "fp8_e5m2fnuz": Fmt("fp8_e5m2fnuz", 5, 2, 16, "fnuz", False),
    "fp4_e2m1": Fmt("fp4_e2m1", 2, 1, 1, "none", True, saturates_always=True),
}
F32_MAX = (2 - Fraction(1, 2 ** 23)) * Fraction(2) ** 127


def floor_log2(a):
    """floor(log2(a)) for a Fraction a > 0, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def ceil_log2(a):
    e = floor_log2(a)
    return e if Fraction(2) ** e == a else e + 1


def round_half_even(n):
    """Nearest integer to the Fraction n, ties to even."""
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2):
        fl += 1
    return fl


# ---------------------------------------------------------------- element casts

def _neg(v):
    if v == 0:
        return "-0"
    return -v


def _signed_zero(fmt_has_neg_zero, negative):
    return "-0" if (negative and fmt_has_neg_zero) else Fraction(0)


def _overflow(name, negative, mode, has_inf, mx, saturates_always=False):
    if mode == "saturate" or saturates_always:
        return (-mx if negative else mx), "saturated"
    if has_inf:
        return (NINF if negative else INF), "overflow-inf"
    return NAN, "overflow-nan"


def _round_positive_table(fmt, a):
    """Nearest table value to a > 0 (ties: even index); may be the overflow step."""
    t = fmt.table()
    i = bisect_left(t, a)
    if i < len(t) and t[i] == a:
        return t[i]
    if i >= len(t):
        return t[-1] + 1  # far past max
    lo, hi = t[i - 1], t[i]
    if a - lo < hi - a:
        return lo
    if a - lo > hi - a:
        return hi
    return lo if (i - 1) % 2 == 0 else hi


def _round_positive_f32(a):
    e = max(floor_log2(a), -126)
    q = Fraction(2) ** (e - 23)
    return round_half_even(a / q) * q


def cast(name, x, mode):
    """Round x (Fraction, "inf", "-inf", "nan", "-0") to format `name`. Returns (stored, outcome)."""
    if name == "e8m0":
        return cast_e8m0(x, mode)
    if name == "float32":
        has_inf, has_neg_zero, mx, sat_always = True, True, F32_MAX, False
    else:
        f = FORMATS[name]
        has_inf, has_neg_zero, mx, sat_always = f.has_inf, f.has_neg_zero, f.max, f.saturates_always
    if type(x) is str:
        if x == NAN:
            return NAN, "exact"
        if x == "-0":
            return _signed_zero(has_neg_zero, True), "exact"
        negative = x == NINF
        if has_inf and mode == "nonsaturate":
            return x, "exact"
        return _overflow(name, negative, mode, has_inf, mx, sat_always)
    if x == 0:
        return Fraction(0), "exact"
    negative = x < 0
    a = -x if negative else x
    r = _round_positive_f32(a) if name == "float32" else _round_positive_table(FORMATS[name], a)
    if r > mx:
        return _overflow(name, negative, mode, has_inf, mx, sat_always)
    if r == 0:
        return _signed_zero(has_neg_zero, negative), "underflow-zero"
    return (-r if negative else r), ("exact" if r == a else "rounded")


def cast_e8m0(x, mode):
    """Powers of two 2^-127..2^127, no zero, no sign; nearest in the log domain."""
    if x == NAN:
        return NAN, "exact"
    if x == INF:
        return (Fraction(2) ** 127, "saturated") if mode == "saturate" else (NAN, "overflow-nan")
    if x in (NINF, "-0") or x <= 0:
        return NAN, "overflow-nan"
    k = floor_log2(x)
    if x * x >= Fraction(2) ** (2 * k + 1):  # x >= 2^(k + 1/2)
        k += 1
    if k > 127:
        return (Fraction(2) ** 127, "saturated") if mode == "saturate" else (NAN, "overflow-nan")
    k = max(k, -127)
    r = Fraction(2) ** k
    return r, ("exact" if r == x else "rounded")


def to_f32(x):
    """binary32 value of x (nearest even), inf beyond range; for Fractions and specials."""
    return cast("float32", x, "nonsaturate")[0]


def _as_float(v):
    """A binary32 value (Fraction or special) as a Python float, exactly."""
    if v == "-0":
        return -0.0
    return float(v)


def _f32_bits(f):
    return struct.unpack("<I", struct.pack("<f", f))[0]


def cast_cpu(name, x):
    """vLLM's CPU fp8 writer (csrc/cpu/cpu_attn_fp8.hpp), emulated bit by bit on binary32:
    float_to_fp8e4m3_scalar / float_to_fp8e5m2_scalar with inv_scale 1, the byte then decoded by
    the format's table. Other formats: a PyTorch cast."""
    if name not in ("fp8_e4m3", "fp8_e5m2"):
        return cast(name, x, "nonsaturate")
    mx = float(FORMATS[name].max)
    v = _as_float(to_f32(x))
    v = v if v < mx else mx          # std::min(fp8_max, v): NaN < max is false -> max
    v = v if -mx < v else -mx        # std::max(-fp8_max, v)
    clamped = not (abs(_as_float(to_f32(x))) <= mx)
    if v == 0.0:
        code = 0
    elif name == "fp8_e4m3":
        t = _as_float(to_f32(Fraction(v) * Fraction(1, 2 ** 120)))
        bits = _f32_bits(t)
        sign, payload = (bits >> 24) & 0x80, (bits >> 20) & 0x7F
        code = sign if payload == 0 else sign | min(payload, 0x7E)
    else:
        bits = _f32_bits(v)
        sign = (bits >> 24) & 0x80
        exp = ((bits >> 23) & 0xFF) - 127
        if exp < -14:
            shift = -14 - exp
            code = sign if shift + 21 >= 32 else sign | min((0x800000 | (bits & 0x7FFFFF)) >> (shift + 21), 3)
        else:
            code = sign | ((exp + 15) << 2) | ((bits >> 21) & 0x03)
    stored = FORMATS[name].decode(code)
    return stored, classify(x, stored, "saturated" if clamped else "rounded")


# ---------------------------------------------------------------- outcomes and helpers

def is_num(v):
    return type(v) is Fraction


def value_of(v):
    """A comparable number: Fraction, or float('inf') etc; "-0" is 0."""
    if type(v) is Fraction:
        return v
    if v == "-0":
        return Fraction(0)
    return float(v)


def classify(x, stored, hint):
    if type(x) is Fraction and type(stored) is Fraction:
        if stored == x:
            return "exact"
        if hint == "saturated":
            return "saturated"
        return "underflow-zero" if stored == 0 else "rounded"
    if x == NAN:  # a NaN clamped to +max (vLLM's CPU writer) is saturated
        return "exact" if stored == NAN else ("saturated" if hint == "saturated" else "rounded")
    if stored == NAN:
        return "overflow-nan"
    if stored in (INF, NINF):
        return "exact" if stored == x else "overflow-inf"
    xv, sv = value_of(x), value_of(stored)
    if sv == xv:
        return "exact"
    if hint == "saturated":
        return "saturated"
    if sv == 0:
        return "underflow-zero"
    return "rounded"


def mul(a, b):
    """Product with the sign conventions of the specials (only finite Fractions and "-0" occur)."""
    if a == NAN or b == NAN:
        return NAN
    neg = (a == "-0" or (is_num(a) and a < 0)) != (b == "-0" or (is_num(b) and b < 0))
    p = value_of(a) * value_of(b)
    if p == 0:
        return "-0" if neg else Fraction(0)
    return p


def absmax(xs):
    """Largest |x| over non-NaN values; inf is float('inf')."""
    m = Fraction(0)
    for x in xs:
        if x == NAN:
            continue
        if x in (INF, NINF):
            return float("inf")
        m = max(m, abs(value_of(x)))
    return m


def finite(x):
    return type(x) is Fraction or x == "-0"


# ---------------------------------------------------------------- recipes

def scale_of(scale):
    s = to_f32(Fraction(scale)) if scale else Fraction(1)
    if not is_num(s) or s <= 0:
        return Fraction(1)
    return s


def dynamic_scale(xs, div):
    """vLLM --calculate-kv-scales: binary32(binary32(absmax) / div); 1 for an all-zero row."""
    amax = absmax(xs)
    if amax == float("inf"):
        return INF
    if amax == 0:
        return Fraction(1)
    return to_f32(to_f32(amax) / div)


def row_scaled(elem, xs, scale, mode, dynamic=None):
    s = scale_of(scale) if not dynamic else dynamic_scale(xs, dynamic)
    if s == INF:  # an infinite tensor absmax: every value reads back NaN (x / inf * inf)
        return [(NAN, "exact" if x == NAN else "overflow-nan") for x in xs]
    out = []
    for x in xs:
        q = x if not is_num(x) else x / s
        if x == "-0":
            q = "-0"
        if mode == "truncate":  # the CPU writer: f32(f32(x) * f32(1 / s))
            inv = to_f32(Fraction(1) / s)
            fx = to_f32(x)
            q = to_f32(fx * inv) if is_num(fx) else fx
            r, o = cast_cpu(elem, q)
        else:
            r, o = cast(elem, q, mode)
        stored = r if not is_num(r) and r != "-0" else mul(r, s)
        if r in (INF, NINF, NAN):
            stored = r
        o = classify(x, stored, o)
        if dynamic and o == "underflow-zero":
            o = "crushed"  # alone, the value would set a scale that keeps it
        out.append((stored, o))
    return out


def row_int8(xs, scale):
    """TensorRT-LLM INT8: cvt.rni.sat.s8.f32(x / scale) read back * scale."""
    s = scale_of(scale)
    out = []
    for x in xs:
        if x == NAN:
            out.append((NAN, "exact"))
            continue
        if x in (INF, NINF):
            q, hint = (127 if x == INF else -128), "saturated"
        else:
            q, hint = round_half_even(value_of(x) / s), "rounded"
            if q > 127 or q < -128:
                q, hint = (127 if q > 0 else -128), "saturated"
        stored = Fraction(0) if q == 0 else q * s
        out.append((stored, classify(x, stored, hint)))
    return out


def block_mxfp4(xs, _scale):
    """OCP MX v1.0 6.3: X = 2^(floor(log2(max|V|)) - 2) (E8M0: 2^-127..2^127), P = e2m1(V / X), saturating."""
    if not all(finite(x) for x in xs):
        return [(NAN, "exact" if x == NAN else "overflow-nan") for x in xs]
    amax = absmax(xs)
    e = floor_log2(amax) - 2 if amax > 0 else -127
    if e > 127:
        return [(NAN, "overflow-nan") for x in xs]
    e = max(e, -127)
    X = Fraction(2) ** e
    out = []
    for x in xs:
        r, o = cast("fp4_e2m1", x if not is_num(x) else x / X, "saturate")
        stored = mul(r, X)
        out.append((stored, classify(x, stored, o)))
    return out


def _nvfp4(xs, scale, div):
    k = scale_of(scale)
    amax = absmax(xs)
    sf = cast("fp8_e4m3", INF if amax == float("inf") else amax / (div * k), "saturate")[0]
    out, err = [], Fraction(0)
    for x in xs:
        if x == NAN:
            out.append((NAN, "exact"))
            continue
        if sf == 0:
            r, o = ("-0" if (x == "-0" or value_of(x) < 0) else Fraction(0)), "underflow-zero"
        else:
            r, o = cast("fp4_e2m1", x if not is_num(x) else x / (k * sf), "saturate")
        stored = mul(mul(r, sf), k)
        out.append((stored, classify(x, stored, o)))
        if finite(x):
            err += (value_of(x) - value_of(stored)) ** 2
    return out, err


def block_nvfp4(xs, scale):
    """vLLM NVFP4 KV: SF = e4m3_satfinite(amax / (6 k)), data = e2m1_satfinite(x / (k SF)), read data SF k."""
    return _nvfp4(xs, scale, 6)[0]


def block_nvfp4_4over6(xs, scale):
    six, e6 = _nvfp4(xs, scale, 6)
    four, e4 = _nvfp4(xs, scale, 4)
    return four if e4 < e6 else six


def block_mxfp8(xs, _scale):
    """SGLang to_mxfp8: e = clamp(ceil(log2(max(amax, 1e-30) / 448)), -127, 127); e4m3(clamp(x / 2^e))."""
    amax = absmax(xs)
    if amax == float("inf"):
        e = 127
    else:
        e = ceil_log2(max(amax, Fraction(1e-30)) / 448)
    e = min(max(e, -127), 127)
    X = Fraction(2) ** e
    out = []
    for x in xs:
        r, o = cast("fp8_e4m3", x if not is_num(x) else x / X, "saturate")
        stored = r if r in (NAN,) else mul(r, X)
        out.append((stored, classify(x, stored, o)))
    return out


def block_fp4_mx16(xs, _scale):
    """SGLang KVFP4QuantizeUtil: scale_exp = ceil(log2(max(amax / 6, 1e-10))); magnitude index =
    number of bounds <= |x| / 2^scale_exp (ties away from zero)."""
    if not all(finite(x) for x in xs):
        return [(NAN, "exact" if x == NAN else "overflow-nan") for x in xs]
    bounds = [Fraction(b) for b in ("0.25", "0.75", "1.25", "1.75", "2.5", "3.5", "5")]
    values = [Fraction(v) for v in ("0", "0.5", "1", "1.5", "2", "3", "4", "6")]
    amax = absmax(xs)
    e = ceil_log2(max(amax / 6, Fraction(1e-10)))
    X = Fraction(2) ** e
    out = []
    for x in xs:
        v = abs(value_of(x)) / X
        m = sum(1 for b in bounds if b <= v)
        stored = values[m] * X
        if is_num(x) and x < 0:  # the sign bit is kept: a negative value crushed to 0 reads -0
            stored = _neg(stored)
        out.append((stored, classify(x, stored, "rounded")))
    return out


def _f32(v):
    """Round a Fraction to binary32 (result of one IEEE binary32 operation)."""
    return to_f32(v)


def row_per_token_head(xs, fp8):
    """vLLM _reshape_cache_per_token_head_kernel in binary32: s = max(amax / QMAX, 1e-6f),
    q = clamp(x * (1 / s), QMIN, QMAX), int8 truncates (Triton float->int), fp8 rounds; read q * s."""
    qmax, qmin = (Fraction(448), Fraction(-448)) if fp8 else (Fraction(127), Fraction(-128))
    x32 = [x if not is_num(x) else _f32(x) for x in xs]
    amax = Fraction(0)
    for v in x32:
        if v == NAN:
            continue
        a = float("inf") if v in (INF, NINF) else abs(value_of(v))
        amax = max(amax, a) if a != float("inf") else float("inf")
        if amax == float("inf"):
            break
    out = []
    if amax == float("inf"):
        # s = inf, 1/s = 0: finite values give 0 * inf = NaN when read back, inf gives NaN.
        for x in xs:
            out.append((NAN, "exact" if x == NAN else "overflow-nan"))
        return out
    s = _f32(amax / qmax)
    tiny = _f32(Fraction(1e-6))
    if s < tiny:
        s = tiny
    inv = _f32(1 / s)
    for x, v in zip(xs, x32):
        if x == NAN:
            out.append((NAN, "exact"))
            continue
        negative = v == "-0" or (is_num(v) and v < 0)
        prod = value_of(v) * inv
        q = _f32(prod) if prod != 0 else ("-0" if negative else Fraction(0))
        if is_num(q):
            q = min(max(q, qmin), qmax)
        if fp8:
            stored = mul(cast("fp8_e4m3", q, "saturate")[0], s)
        else:
            qv = value_of(q)
            t = abs(qv.numerator) // qv.denominator
            stored = Fraction(0) if t == 0 else (-t if qv < 0 else t) * s
        out.append((stored, classify(x, stored, "rounded")))
    return out


FLT_MIN = Fraction(2) ** -126


def tile_ds_mla(xs, _scale=None):
    """vLLM concat_and_cache_ds_mla_kernel, one tile of 128 NoPE latents: x in binary32,
    s = max(f32(amax / 448), FLT_MIN), q = f32(x / s), code = e4m3(q) saturating, read code * s.
    An infinity makes s inf: finite values read 0 * inf, inf / inf is NaN, so the tile is NaN."""
    x32 = [x if x == NAN else to_f32(x) for x in xs]
    amax = absmax(x32)
    if amax == float("inf"):
        return [(NAN, "exact" if x == NAN else "overflow-nan") for x in xs]
    s = max(to_f32(amax / 448), FLT_MIN)
    out = []
    for x, v in zip(xs, x32):
        if x == NAN:
            out.append((NAN, "exact"))
            continue
        negative = v == "-0" or (is_num(v) and v < 0)
        quot = value_of(v) / s
        q = to_f32(quot) if quot != 0 else ("-0" if negative else Fraction(0))
        stored = mul(cast("fp8_e4m3", q, "saturate")[0], s)
        out.append((stored, classify(x, stored, "rounded")))
    return out


def tile_scale_ds_mla(xs):
    """The scale fp8_ds_mla gives the tile holding the row's largest magnitude (finite rows)."""
    x32 = [to_f32(x) for x in xs if x != NAN]
    return max(to_f32(absmax(x32) / 448), FLT_MIN)


BLOCKS = {
    "mxfp4": (32, block_mxfp4),
    "nvfp4": (16, block_nvfp4),
    "nvfp4_4over6": (16, block_nvfp4_4over6),
    "mxfp8": (32, block_mxfp8),
    "fp4_mx_block16": (16, block_fp4_mx16),
}


def _mark_crushed(fn, xs, res, *args):
    out = []
    for x, (stored, o) in zip(xs, res):
        if o == "underflow-zero":
            alone = fn([x], *args)[0][0]
            if value_of(alone) != 0:
                o = "crushed"
        out.append((stored, o))
    return out


def store_row(dtype, xs, mode="nonsaturate", scale=None, dynamic=None):
    """What kvlint's kvn_store_row should give for the row xs (Fractions and specials)."""
    if dtype in ("fp8_e4m3", "fp8_e4m3fnuz", "fp8_e5m2", "fp8_e5m2fnuz"):
        return row_scaled(dtype, xs, scale, mode, dynamic)
    if dtype in FORMATS or dtype in ("float32", "e8m0"):
        if mode == "truncate":
            return [cast_cpu(dtype, x) for x in xs]
        return [cast(dtype, x, mode) for x in xs]
    if dtype == "int8":
        return row_int8(xs, scale)
    if dtype in ("int8_per_token_head", "fp8_per_token_head"):
        fp8 = dtype.startswith("fp8")
        return _mark_crushed(lambda r: row_per_token_head(r, fp8), xs, row_per_token_head(xs, fp8))
    size, fn = (128, tile_ds_mla) if dtype == "fp8_ds_mla" else BLOCKS[dtype]
    out = []
    for start in range(0, len(xs), size):
        blk = xs[start:start + size]
        padded = blk + [Fraction(0)] * (size - len(blk))
        res = fn(padded, scale)[:len(blk)]
        out.extend(_mark_crushed(fn, blk, res, scale))
    return out


# ---------------------------------------------------------------- literals

def parse_literal(s):
    """A Python/C numeric literal as kvlint reads it: Fraction or special; f/F suffix = binary32."""
    t = s.replace("_", "")
    low = t.lower().lstrip("+-")
    neg = t.startswith("-")
    if low in ("inf", "infinity"):
        return NINF if neg else INF
    if low == "nan":
        return NAN
    b32 = False
    is_hex = low.startswith("0x")
    if (t.endswith("f") or t.endswith("F")) and (not is_hex or "p" in low):
        t, b32 = t[:-1], True
    if is_hex:
        d = float.fromhex(t) if "p" in t.lower() else float(int(t, 16))
        v = Fraction(d)
    elif b32:
        v = Fraction(t)  # the exact decimal, rounded once to binary32 below
    else:
        d = float(t)  # binary64, as strtod and Python read it
        if math.isinf(d):
            return NINF if d < 0 else INF
        v = Fraction(d)
    if b32:
        v = to_f32(v)
    if is_num(v) and v == 0 and neg:
        return "-0"
    return v


def stored_matches(ref, got):
    """Compare a reference result with kvlint's JSON "stored" (float, or "inf"/"-inf"/"nan")."""
    if isinstance(got, str):
        return ref == got
    if ref in (INF, NINF, NAN):
        return False
    if ref == "-0":
        return got == 0 and math.copysign(1.0, got) < 0
    if got == 0 and math.copysign(1.0, got) < 0:
        return False  # kvlint said -0, reference +0
    return Fraction(got) == ref
