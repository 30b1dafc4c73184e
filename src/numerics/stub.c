/* TEMPORARY scaffolding until the numerics library lands: replaced by the real implementation. */
#include <math.h>
#include <stdlib.h>
#include "numerics/numerics.h"
static const kvn_fmt_info f32 = { "float32", 32, 8, 23, 127, 3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, true, true, true, "ieee", 16777216 };
static const kvn_dtype_info d32 = { "float32", NULL, KVN_KIND_ELEMENT, KVN_F32, 0, KVN_E8M0, "" };
const kvn_fmt_info *kvn_fmt_get(kvn_fmt f) { (void)f; return &f32; }
kvn_result kvn_cast(kvn_fmt f, double x, kvn_overflow mode) { (void)f; (void)mode; return (kvn_result){ (float)x, KVN_EXACT }; }
uint32_t kvn_encode(kvn_fmt f, double x, kvn_overflow mode) { (void)f; (void)x; (void)mode; return 0; }
double kvn_decode(kvn_fmt f, uint32_t bits) { (void)f; (void)bits; return 0; }
const char *kvn_outcome_name(kvn_outcome o) { (void)o; return "exact"; }
double kvn_bf16_bits_as_f16(double x) { return x; }
size_t kvn_dtype_count(void) { return 1; }
const kvn_dtype_info *kvn_dtype_get(kvn_dtype d) { return d == 0 ? &d32 : NULL; }
kvn_dtype kvn_dtype_parse(const char *name, bool rocm) { (void)name; (void)rocm; return 0; }
kvn_dtype kvn_dtype_by_fmt(kvn_fmt f) { (void)f; return 0; }
const char *kvn_dtype_valid_names(void) { return "float32"; }
double kvn_dtype_int_exact_max(kvn_dtype d) { (void)d; return 16777216; }
bool kvn_store_row(kvn_dtype d, const double *in, size_t n, const kvn_params *p, kvn_result *out) { (void)d; (void)in; (void)n; (void)p; (void)out; return false; }
bool kvn_parse_number(const char *s, double *out, bool *b32) { char *e; *out = strtod(s, &e); *b32 = false; return e != s; }
