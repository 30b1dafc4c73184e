#!/bin/sh
# python_limits.sh: Python files that would crash or stall the parser. 70,000 unclosed brackets
# made libtree-sitter 0.20.7 abort (double free, exit 134) and lost the whole run's report; now the
# file is refused before the parse with a note naming the limit, the neighbouring file's findings
# are still reported, and the run says it is incomplete (exit 2).
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
expect_status "unclosed brackets: no crash, incomplete" 2 $?
expect_contains "unclosed: note names the file, line and limit" "$tmpdir/err" \
    "unclosed.py:3: note: brackets nested 70000 deep (the limit is 4096"
expect_contains "one per line: refused too" "$tmpdir/err" "lines.py:70002: note: brackets nested 70000 deep"
expect_contains "neighbouring findings still reported" "$tmpdir/out" '"rule": "KV001"'
expect_contains "wide: located" "$tmpdir/err" "wide.py:3:"
expect_contains "json counts the refused files" "$tmpdir/out" '"skipped": 2'
expect_contains "json says incomplete" "$tmpdir/out" '"incomplete": "2 files skipped, '
finish
