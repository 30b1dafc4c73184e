#!/bin/sh
# python_facts.sh: `kvlint facts --format json` on every Python fixture (tests/fixtures/python/<case>),
# compared with tests/fixtures/python/golden/<case>.json (the front end's facts: the "deployments"
# section belongs to resolution and is left out), then the properties the goldens exist for, stated
# on their own, and robustness on generated input (deep nesting, huge files, many files at once).
. "$top_srcdir/tests/e2e/lib.sh"
py="$fixtures/python"
golden="$py/golden"
if [ -z "${PYTHON3:-}" ]; then
    echo "SKIP: no python3 to filter JSON"
    exit 77
fi

# facts NAME DIR ARGS...: JSON facts (without deployments) of DIR into $tmpdir/NAME.json,
# diagnostics into $tmpdir/NAME.err.
facts() {
    name=$1 dir=$2
    shift 2
    (cd "$py" && "$KVLINT" facts --format json "$@" "$dir" >"$tmpdir/$name.raw" 2>"$tmpdir/$name.err")
    status=$?
    "$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("deployments", None)
json.dump(d, sys.stdout, indent=2, sort_keys=True)
print()' "$tmpdir/$name.raw" >"$tmpdir/$name.json" || return 99
    return $status
}

# query NAME EXPR: evaluate a Python expression over the facts `d` of NAME; prints its value.
query() {
    "$PYTHON3" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$tmpdir/$1.json"
}

# expect_query TEST NAME EXPR WANT
expect_query() {
    got=$(query "$2" "$3")
    if [ "$got" = "$4" ]; then pass "$1"; else fail "$1: got '$got', want '$4'"; fi
}

for case in sinks_vllm sinks_sglang sinks_transformers sinks_direct sinks_signatures sinks_shadow \
            sinks_sglang_helper triton_kernels tracking ranges traps multiswitch \
            decls arith crossfile interproc robustness suppress prefilter torchapi ckpt_fields; do
    facts "$case" "$case" -j 2
    expect_status "$case: exit" 0 $?
    compare_golden "$case: facts" "$golden/$case.json" "$tmpdir/$case.json"
done

# The torch API model (grammars/python/torch.tsv): random data, casts into an integer tensor's own
# dtype and reinterpretations (view(dtype), bitcast=True) are no int-casts; the near misses are ...
expect_query "torchapi: int-casts only where a value is converted into a float dtype" torchapi \
    'sorted((c["path"], c["line"]) for c in d["casts"])' \
    "[('torchapi/dtype_classes.py', 28), ('torchapi/reinterpret.py', 18)]"
# ... a chained in-place fill keeps its value, F.pad's value= and where's scalars are built in the
# padded tensor's dtype ...
expect_query "torchapi: chains, pads and wheres build their sentinels in the right dtype" torchapi \
    'sorted((c["path"], c["line"], c["api"], c["dtype"]["text"], c["value"]["text"]) for c in d["constructions"] if c["path"].endswith("chains.py"))' \
    "[('torchapi/chains.py', 9, '.to', 'torch.float16', 'torch.finfo(torch.float32).min'), ('torchapi/chains.py', 14, 'F.pad', 'hidden.dtype', '-1000000.0'), ('torchapi/chains.py', 24, 'F.pad', 'hidden.dtype', '-30000.0'), ('torchapi/chains.py', 29, 'torch.where', 'hidden.dtype', '-1e9'), ('torchapi/chains.py', 34, 'where', 'hidden.dtype', '-1e9')]"
# ... and 0/1 masks (comparisons, ~ of a call, bool tensors) times a sentinel reach the cache,
# while a sentinel that only feeds softmax, clamp or maximum does not.
expect_query "torchapi: mask products stored, softmax-only and clamp bounds silent" torchapi \
    'sorted((s["path"], s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"].endswith("mask_products.py"))' \
    "[('torchapi/mask_products.py', 15, ['torch.finfo(self.dtype).min']), ('torchapi/mask_products.py', 20, ['torch.finfo(self.dtype).min']), ('torchapi/mask_products.py', 25, ['-1e9']), ('torchapi/mask_products.py', 29, ['float(\"-inf\")'])]"
# A list comprehension holds what its element may be (torch.cat of it too); elements that hold
# nothing known give no value.
expect_query "torchapi: a comprehension's masked chunks reach the cache through torch.cat" torchapi \
    'sorted((s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"].endswith("comprehensions.py"))' \
    "[(10, ['-1e9'])]"
# A tensor widened to float32 before the fill is converted into the cache from float32.
expect_query "torchapi: stores of widened keys convert from float32" torchapi \
    'sorted((s["line"], s.get("wide_source", False)) for s in d["stores"] if s["path"].endswith("widened.py"))' \
    "[(11, True), (16, False), (21, True), (25, False)]"
# Predicates (is_*, has_*) are 0/1 tensors as masks are: their products with a sentinel hold it.
expect_query "torchapi: is_pad / has_doc times a sentinel reach the cache" torchapi \
    'sorted((s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"].endswith("predicates.py"))' \
    "[(16, ['torch.finfo(self.dtype).min']), (18, ['-1e9'])]"
# register_buffer / register_parameter set self.NAME, nn.Parameter(x) holds x's values.
expect_query "torchapi: registered buffers and parameters (attention sinks) reach the cache" torchapi \
    'sorted((s["line"], s["operand"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"].endswith("buffers.py"))' \
    "[(19, 'key', ['-1e9']), (19, 'value', ['float(\"-inf\")']), (20, 'key', ['-3e38']), (20, 'value', ['float(\"-inf\")'])]"

# A sum of two masks reports each side's sentinel, not the first value a where() join listed (0).
expect_query "torchapi: where-joined mask plus padding mask is a sum of two sentinels" torchapi \
    '[(a["line"], a["a"]["text"], a["b"]["text"]) for a in d["arithmetic"] if a["kind"] == "sentinel-sum"]' \
    "[(17, 'torch.finfo(dtype).min', 'torch.finfo(dtype).min')]"

# Checkpoint config fields (issue 10): config.x, self.config.x, hf_config chains and getattr are
# symbolic (expr over fields), arithmetic on them too; another object's attribute, a dtype field, a
# default that is no constant, activations times a field and a config method stay unknown.
expect_query "ckpt_fields: symbolic values from config fields, nothing else" ckpt_fields \
    '[(v["origin"]["line"], v["expr"], v["fields"]) for s in d["stores"] for v in s["values"]]' \
    "[(13, 'control_token_gain / attention_multiplier', ['control_token_gain', 'attention_multiplier']), (14, '-anchor_bias', ['anchor_bias']), (15, '(((head_dim ** 2) + 1) * 0.5) - 3', ['head_dim']), (16, 'routing_scale', ['routing_scale']), (17, 'mask_value (default -1e+09)', ['mask_value']), (18, 'plain_value', ['plain_value'])]"

# Sinks declared in .kvlint.yaml.
facts sinks_user sinks_user --project sinks_user/.kvlint.yaml
expect_status "sinks_user: exit" 0 $?
compare_golden "sinks_user: facts" "$golden/sinks_user.json" "$tmpdir/sinks_user.json"
expect_query "sinks_user: both user sinks, key and value" sinks_user \
    '[(s["sink"], s["family"], s["operand"]) for s in d["stores"]]' \
    "[('self.store_kv', 'user', 'key'), ('self.store_kv', 'user', 'value'), ('write_pages', 'user', 'key'), ('write_pages', 'user', 'value')]"

# MultiSwitch (DOMAIN.md section 1): the -1e9 counting keys reach the cache with their origin ...
expect_query "multiswitch: -1e9 keys stored with their origin line" multiswitch \
    '[(v["min"], v["origin"]["line"]) for s in d["stores"] if s["sink"] == "self.counting_attn" and s["operand"] == "key" for v in s["values"] if v["kind"] == "sentinel"]' \
    '[(-1000000000, 13)]'
# ... built in the model dtype (a float16 model breaks the construction) and reaching the cache ...
expect_query "multiswitch: mask built in the model dtype reaches the cache" multiswitch \
    '[(c["api"], c["dtype"]["kind"], c["reaches_cache"]) for c in d["constructions"]]' \
    "[('torch.full', 'model', True)]"
# ... the adapter ids reach V with the symbolic range num_adapters ...
expect_query "multiswitch: adapter ids in V, up to num_adapters" multiswitch \
    '[(v["min"], v.get("max_symbol")) for s in d["stores"] if s["sink"] == "self.memory_attn" and s["operand"] == "value" for v in s["values"] if v.get("max_symbol")]' \
    "[(0, 'num_adapters')]"
expect_query "multiswitch: one int-cast of the ids" multiswitch 'len(d["casts"])' 1
# ... and the +-3.5 codeword keys are ordinary floats, no sentinel.
expect_query "multiswitch: codeword keys are +-3.5 floats" multiswitch \
    'sorted({(v["kind"], v["min"], v["max"]) for s in d["stores"] if s["sink"] == "self.memory_attn" and s["operand"] == "key" for v in s["values"]})' \
    "[('float', -3.5, 0), ('float', 0, 3.5)]"

# Sinks bind by their exact signatures (grammars/python/sinks.tsv): positions passed first to
# concat_and_cache_mla_rope_fused are not stored, other _C_cache_ops are no sinks, a call that fits
# no schema (arity, keyword) is none, and do_kv_cache_update's overloads are told apart by arity.
expect_query "signatures: only the schemas' K/V operands are stored" sinks_signatures \
    '[(s["line"], s["operand"], s["tensor"]) for s in d["stores"]]' \
    "[(15, 'kv', 'kv_c'), (15, 'kv', 'k_pe'), (18, 'kv', 'kv_c'), (18, 'kv', 'k_pe'), (35, 'key', 'key'), (35, 'value', 'value'), (46, 'key', 'key'), (46, 'value', 'value'), (47, 'kv', 'key'), (47, 'kv', 'value'), (49, 'key', 'key'), (49, 'value', 'value'), (55, 'key', 'k'), (55, 'value', 'k'), (64, 'key', 'k')]"
# A function or class of the scanned file shadows a sink of the same name.
expect_query "shadow: the file's own unified_kv_cache_update and Attention, and diffusers' Attention, are no sinks" sinks_shadow \
    'len(d["stores"])' 0
# SGLang: the pool methods are sinks, the JIT kernel set_mla_kv_buffer (bare or aliased, or a JIT
# module's five-argument entry) is not.
expect_query "sglang helper: only the pool methods store" sinks_sglang_helper \
    '[(s["line"], s["sink"], s["operand"]) for s in d["stores"]]' \
    "[(22, 'self.token_to_kv_pool.set_mla_kv_buffer', 'kv'), (24, 'forward_batch.token_to_kv_pool.set_kv_buffer', 'key'), (25, 'forward_batch.get_token_to_kv_pool().set_kv_buffer', 'key')]"
# Triton kernel bodies are registers: no fact inside them; the torch code beside them still counts.
expect_query "triton: nothing from kernel bodies, the torch.full beside them stays" triton_kernels \
    '[(k, x["line"]) for k in ("stores", "constructions", "casts", "arithmetic") for x in d[k]]' \
    "[('constructions', 40)]"

# Helpers of the same file: facts about what their callers pass in, once each.
expect_query "helpers: construction in make_mask, reaching the cache, once" tracking \
    '[(c["line"], c["dtype"]["text"], c["reaches_cache"]) for c in d["constructions"] if c["path"] == "tracking/helpers.py"]' \
    "[(9, 'self.dtype', True)]"
expect_query "helpers: store and int-cast inside helpers" tracking \
    '[(x["line"]) for k in ("stores", "casts") for x in d[k] if x["path"] == "tracking/helpers.py"]' \
    "[22, 22, 13]"

# Traps stay silent; a plain file is prefiltered.
expect_query "traps: no fact at all" traps 'sum(len(v) for v in d.values())' 0
expect_query "prefilter: nothing" prefilter 'sum(len(v) for v in d.values())' 0
# Imported constants keep the origin in the defining file.
expect_query "crossfile: origin in consts.py" crossfile '[c["value"]["origin"]["path"] for c in d["constructions"]]' \
    "['crossfile/pkg/consts.py']"
# Interprocedural flow (interproc/): each shape reaches its store with the caller's dtype.
expect_query "interproc: tuple returned through three helpers, unpacked" interproc \
    '[(v["text"], v["origin"]["line"]) for s in d["stores"] if s["path"] == "interproc/tuples.py" and s["line"] == 44 for v in s["values"]]' \
    "[('-1e9', 8)]"
expect_query "interproc: the second element of a returned tuple is not stored" interproc \
    '[s["line"] for s in d["stores"] if s["path"] == "interproc/tuples.py" and s["line"] == 48 and any(v["kind"] == "sentinel" for v in s["values"])]' \
    "[]"
expect_query "interproc: methods of another class (attribute, class, static, classmethod, forward)" interproc \
    '[(s["line"], v["kind"]) for s in d["stores"] if s["path"] == "interproc/classes.py" for v in s["values"]]' \
    "[(42, 'sentinel'), (43, 'sentinel'), (44, 'sentinel'), (45, 'integer'), (46, 'sentinel'), (47, 'float')]"
expect_query "interproc: an object's constructor arguments reach its methods, each object its own" interproc \
    '[(s["line"], v["text"]) for s in d["stores"] if s["path"] == "interproc/instances.py" for v in s["values"]]' \
    "[(25, '-1e9'), (26, '0.0'), (28, 'float(\"-inf\")')]"
expect_query "interproc: lambdas called where they are defined, binding late; one only passed on is not" interproc \
    '[(s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/lambdas.py"]' \
    "[(12, ['-1e9']), (14, ['-1e4'])]"
expect_query "interproc: functools.partial, bound arguments first, the call's keywords replacing bound ones; *args unknown" interproc \
    '[(s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/partials.py"]' \
    "[(26, ['-1e9']), (29, ['float(\"-inf\")']), (31, ['-1e4']), (33, ['0.0']), (21, ['torch.finfo(k.dtype).min']), (37, ['-3e4'])]"
expect_query "interproc: inherited methods on self, objects and super(), run as the subclass's (overrides, inherited __init__)" interproc \
    '[(s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/inherit.py"]' \
    "[(17, ['-1e9']), (20, ['-2e9']), (20, ['-4e9']), (20, ['-5e9']), (20, ['-3e9'])]"
expect_query "interproc: dict literals read by listed string keys; other keys and changed dicts unknown" interproc \
    '[(s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/dicts.py"]' \
    "[(18, ['-1e9']), (19, ['float(\"-inf\")']), (20, ['-1e4']), (21, ['0.0'])]"
expect_query "interproc: objects of imported classes, and subclasses inheriting their methods (self, super(), objects; not where overridden), store the caller's values, placed in the class" interproc \
    '[(s["line"], [(v["origin"]["path"], v["origin"]["line"], v["text"]) for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/pkg/pools.py"]' \
    "[(14, [('interproc/pkg/objects.py', 13, '-1e9')]), (25, [('interproc/pkg/objects.py', 18, 'float(\"-inf\")')]), (40, [('interproc/pkg/objects.py', 23, 'torch.finfo(k.dtype).min')]), (25, [('interproc/pkg/subclasses.py', 11, '-1e9')]), (25, [('interproc/pkg/subclasses.py', 12, 'float(\"-inf\")')]), (25, [('interproc/pkg/subclasses.py', 24, '-3e4')]), (25, [('interproc/pkg/subclasses.py', 25, '-4e4')])]"
expect_query "interproc: an imported class naming a constant of a third file (a method, through another member, an initialiser, module.NAME) is followed though built with nothing" interproc \
    '[(s["line"], [(v["origin"]["path"], v["origin"]["line"]) for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/pkg/own_sentinels.py" and s["line"] >= 25]' \
    "[(25, [('interproc/pkg/consts.py', 1)]), (26, [('interproc/pkg/consts.py', 1)]), (27, [('interproc/pkg/consts.py', 1)])]"
expect_query "interproc: closures, partials and tuples another file's factories return run there (make_fill, make_masker, make_partial, make_pair, a def rebound to a closure; make_scale holds no sentinel)" interproc \
    '[(s["line"], [(v["text"], v["origin"]["path"]) for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/pkg/closure_user.py"]' \
    "[(14, [('-1e9', 'interproc/pkg/closure_user.py')]), (16, [('torch.finfo(dtype).min', 'interproc/pkg/fills.py')]), (20, [('float(\"-inf\")', 'interproc/pkg/closure_user.py')]), (22, [('-1e5', 'interproc/pkg/closure_user.py')]), (24, [('-1e9', 'interproc/pkg/rebound.py')])]"
expect_query "interproc: factories called with nothing that could become a fact still run when they make a function and store (make_writer, make_cache_writer in an attribute): the caller's sentinels stored in fills.py" interproc \
    '[(s["line"], [(v["text"], v["origin"]["path"], v["origin"]["line"]) for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/pkg/fills.py"]' \
    "[(23, [('-3e4', 'interproc/pkg/closure_user.py', 18)]), (45, [('-1e9', 'interproc/pkg/closure_user.py', 33)])]"
expect_query "interproc: a closure in a returned tuple" interproc \
    '[(s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/closures.py" and s["line"] == 53]' \
    "[(53, ['-1e5'])]"
expect_query "interproc: an imported helper stores the caller's value, placed in the helper" interproc \
    '[(s["path"], s["line"], [(v["origin"]["path"], v["origin"]["line"]) for v in s["values"]]) for s in d["stores"] if s["path"] == "interproc/pkg/cache_ops.py"]' \
    "[('interproc/pkg/cache_ops.py', 7, [('interproc/pkg/slots_user.py', 19)]), ('interproc/pkg/cache_ops.py', 7, [('interproc/pkg/writer.py', 11)])]"
expect_query "interproc: eight factories built with nothing that could become a fact load no module: the helper call after them and the third product passed a sentinel are both followed" interproc \
    '[(s["path"], s["line"], [v["text"] for v in s["values"]]) for s in d["stores"] if any(v["origin"]["path"] == "interproc/pkg/slots_user.py" for v in s["values"])]' \
    "[('interproc/pkg/cache_ops.py', 7, ['-1e9']), ('interproc/pkg/factories.py', 19, ['float(\"-inf\")'])]"
expect_query "interproc: an imported helper builds the caller's sentinel in the caller's dtype" interproc \
    '[(c["line"], c["value"]["origin"]["path"], c["dtype"]["dtype"]) for c in d["constructions"] if c["path"] == "interproc/pkg/cache_ops.py"]' \
    "[(15, 'interproc/pkg/writer.py', 'float16')]"
expect_query "interproc: an imported helper's cast of positions is one fact, not one per caller" interproc \
    '[c["value"]["origin"]["path"] for c in d["casts"] if c["path"] == "interproc/pkg/cache_ops.py"]' \
    "['interproc/pkg/cache_ops.py']"
expect_query "interproc: imported helpers, every import form, values from the helper file" interproc \
    '[(s["line"], v["origin"]["path"]) for s in d["stores"] if s["path"] == "interproc/pkg/model.py" and s["operand"] == "key" for v in s["values"]]' \
    "[(18, 'interproc/pkg/masks.py'), (19, 'interproc/pkg/consts.py'), (20, 'interproc/pkg/consts.py'), (22, 'interproc/pkg/consts.py'), (23, 'interproc/pkg/model.py')]"
expect_query "interproc: finfo(dtype).min of an imported helper is in the caller's dtype" interproc \
    '[v["symbol_dtype"]["text"] for s in d["stores"] if s["path"] == "interproc/pkg/model.py" and s["line"] == 18 for v in s["values"]]' \
    "['k.dtype']"
expect_query "interproc: a write into a parameter reaches the caller's tensor" interproc \
    '[(s["operand"], v["origin"]["line"]) for s in d["stores"] if s["path"] == "interproc/slices.py" and s["line"] == 21 for v in s["values"] if v["kind"] == "sentinel"]' \
    "[('key', 18), ('value', 8)]"
# ... and kvlint check finds them with the dtype of the config that declares it.
(cd "$py/interproc" && "$KVLINT" check --format json .) >"$tmpdir/interproc.check.json" 2>"$tmpdir/interproc.check.err"
expect_status "interproc: check exit" 1 $?
compare_golden "interproc: check findings" "$golden/interproc.check.json" "$tmpdir/interproc.check.json"

# Syntax errors: a note, and the facts of the intact part.
expect_contains "robustness: syntax error note" "$tmpdir/robustness.err" "robustness/broken.py:15:24: note: syntax error"
expect_query "robustness: facts from the intact part" robustness '[s["line"] for s in d["stores"]]' '[13]'
expect_contains "robustness: binary skipped" "$tmpdir/robustness.err" "binary.py: note: skipped: binary file"

# Generated input: deep nesting and long operator chains (bounded recursion), a huge file over the
# size limit, and a tree of many files (threads); none may crash or hang.
gen="$tmpdir/gen"
mkdir -p "$gen"
"$PYTHON3" - "$gen" <<'PY'
import sys
d = sys.argv[1]
n = 20000
with open(d + "/deep.py", "w") as f:
    f.write("import torch\nMASK = -1e9\n")
    f.write("x = " + "(" * 3000 + "MASK" + ")" * 3000 + "\n")  # under the 4096 bracket limit (python_limits.sh)
    f.write("y = " + " + ".join(["MASK"] * n) + "\n")
    f.write("z = " + "[" * 3000 + "]" * 3000 + "\n")
    f.write("k = torch.full((2,), x, dtype=torch.float16)\n")
    f.write("w = " + "-" * n + "1e9\n")
    f.write("def f(a=" + "f(" * 2000 + ")" * 2000 + "): pass\n")
    f.write("a = x" + ".b" * n + "\n")
    f.write("(" * 3000 + "p" + ")" * 3000 + " = 1\n")
    f.write("self" + ".attn" * 5000 + "(q, x, x)\n")
    f.write("after = torch.full((2,), MASK, dtype=torch.float16)\n")
with open(d + "/fanout.py", "w") as f:  # summaries that would explode without the budget
    f.write("import torch\n")
    for i in range(6):
        f.write("def f%d(x, d):\n" % i)
        for _ in range(60):
            f.write("    y = f%d(x - 1e4, d)\n" % (i + 1) if i < 5 else "    y = torch.full((2,), x, dtype=d)\n")
        f.write("    return y\n")
with open(d + "/huge.py", "w") as f:
    f.write("MASK = -1e9\n" + "x = torch.full((2,), MASK, dtype=torch.float16)\n" * 200000)
for i in range(200):
    with open(d + "/m%03d.py" % i, "w") as f:
        f.write("import torch\nfrom .m%03d import MASK\nMASK = -1e4 * %d\n" % ((i + 1) % 200, i + 1))
        f.write("def g(k, dtype):\n    return torch.full_like(k, MASK, dtype=dtype)\n")
PY
(cd "$gen" && "$KVLINT" facts --format json -j 2 --max-file-size 4M . >"$tmpdir/gen.out" 2>"$tmpdir/gen.err")
# Limits were hit (size, nesting, budget): every file is still reported on, and the run says it is
# incomplete and exits 2 rather than looking clean.
expect_status "generated: exit" 2 $?
expect_contains "generated: huge file skipped with a warning" "$tmpdir/gen.err" "huge.py: warning: skipped"
expect_contains "generated: too deep is said" "$tmpdir/gen.err" "deep.py: note: code nested deeper than 96"
expect_contains "generated: incomplete run said" "$tmpdir/gen.err" "kvlint facts: incomplete run: 1 file skipped, 3 files cut short by a limit"
expect_contains "generated: deep file still analysed" "$tmpdir/gen.out" '"path": "deep.py"'
expect_contains "generated: summary fan-out stops at the budget" "$tmpdir/gen.err" "fanout.py: note: analysis stopped early"
count=$(grep -c '"api": "torch.full_like"' "$tmpdir/gen.out")
expect_status "generated: one construction per module file" 200 "$count"
finish
