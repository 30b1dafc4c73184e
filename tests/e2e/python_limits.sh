#!/bin/sh
# python_limits.sh: Python files that would crash or stall the parser. 70,000 unclosed brackets
# make libtree-sitter 0.20.7 abort (double free, exit 134), which lost the whole run's report.
# With a fixed core (bundled, or a system one of 0.20.8 or newer: `kvlint --version` says which)
# such files are parsed: a syntax-error note, their own findings, no abort; this fails if the faulty
# core is linked while kvlint counts it as fixed. With an older system core they are refused
# before the parse with a note naming the limit, and the run says it is incomplete (exit 2).
# Either way the neighbouring files' findings are still reported.
. "$top_srcdir/tests/e2e/lib.sh"

dir="$tmpdir/brackets"
mkdir -p "$dir"
cp -R "$fixtures/KV001/positive/." "$dir/"
"$PYTHON3" - "$dir" <<'PY'
import sys
d = sys.argv[1]
head = "import torch\nk = torch.full((2,), -1e9, dtype=torch.float16)\n"
with open(d + "/unclosed.py", "w") as f:
    f.write(head + "x = " + "(" * 70000 + "\n")
with open(d + "/lines.py", "w") as f:
    f.write(head + "x = (\n" * 70000)
with open(d + "/wide.py", "w") as f:   # a wide ERROR node: quadratic to locate before
    f.write(head + "x = " + "(" * 4000 + "\n" + "y = )\n" * 20000)
PY
(cd "$dir" && timeout 60 "$KVLINT" check --format json .) >"$tmpdir/out" 2>"$tmpdir/err"
status=$?
expect_contains "neighbouring findings still reported" "$tmpdir/out" '"rule": "KV001"'
expect_contains "wide: located" "$tmpdir/err" "wide.py:3:"
if "$KVLINT" --version | grep -q '^tree-sitter core: .*older than 0\.20\.8'; then
    expect_status "unclosed brackets, faulty core: no crash, incomplete" 2 $status
    expect_contains "unclosed: note names the file, line and limit" "$tmpdir/err" \
        "unclosed.py:3: note: brackets nested 70000 deep (the limit is 4096"
    expect_contains "one per line: refused too" "$tmpdir/err" "lines.py:70002: note: brackets nested 70000 deep"
    expect_contains "json counts the refused files" "$tmpdir/out" '"skipped": 2'
    expect_contains "json says incomplete" "$tmpdir/out" '"incomplete": "2 files skipped, '
else
    # wide.py's 4,000 brackets pass the evaluator's nesting limit: the run is incomplete (exit 2)
    # for that, not for a refused file.
    expect_status "unclosed brackets, fixed core: parsed, no crash" 2 $status
    expect_contains "unclosed: parsed, its syntax error located" "$tmpdir/err" \
        "unclosed.py:3:1: note: syntax error"
    expect_contains "one per line: parsed" "$tmpdir/err" "lines.py:4:3: note: syntax error"
    expect_not_contains "no file refused for its brackets" "$tmpdir/err" "brackets nested"
    expect_contains "unclosed: its own finding" "$tmpdir/out" '"path": "unclosed.py"'
    expect_contains "one per line: its own finding" "$tmpdir/out" '"path": "lines.py"'
    expect_not_contains "json: nothing skipped" "$tmpdir/out" '"skipped"'
fi
finish
