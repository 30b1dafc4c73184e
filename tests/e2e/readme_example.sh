#!/bin/sh
# readme_example.sh: the README shows real output. Runs the commands of the README's console blocks
# (`$ kvlint check examples/`, `$ kvlint matrix examples/`, `$ kvlint cast ...`) from the source
# tree and compares with the text under them (a trailing "..." line means "the first lines").
. "$top_srcdir/tests/e2e/lib.sh"
readme="$top_srcdir/README.md"
"${PYTHON3:-python3}" - "$readme" "$tmpdir" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"```console\n\$ (kvlint [^\n]*)\n(.*?)```", text, re.S)
for i, (cmd, out) in enumerate(blocks):
    with open(os.path.join(sys.argv[2], "cmd%d" % i), "w") as f:
        f.write(cmd[len("kvlint "):] + "\n")
    with open(os.path.join(sys.argv[2], "want%d" % i), "w") as f:
        f.write(out)
print(len(blocks))
PY
n=$(ls "$tmpdir"/cmd* 2>/dev/null | wc -l)
if [ "$n" -lt 3 ]; then fail "README has its three console examples (found $n)"; fi
i=0
while [ "$i" -lt "$n" ]; do
    args=$(cat "$tmpdir/cmd$i")
    # shellcheck disable=SC2086
    (cd "$top_srcdir" && NO_COLOR=1 "$KVLINT" $args) >"$tmpdir/got$i" 2>&1
    if grep -qx '\.\.\.' "$tmpdir/want$i"; then
        grep -vx '\.\.\.' "$tmpdir/want$i" >"$tmpdir/want$i.head"
        head -n "$(wc -l <"$tmpdir/want$i.head")" "$tmpdir/got$i" >"$tmpdir/got$i.head"
        compare_golden "README: kvlint $args" "$tmpdir/want$i.head" "$tmpdir/got$i.head"
    else
        compare_golden "README: kvlint $args" "$tmpdir/want$i" "$tmpdir/got$i"
    fi
    i=$((i + 1))
done
finish
