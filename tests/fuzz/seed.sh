#!/bin/sh
# seed.sh TARGET SRCDIR CORPUS: put seed inputs for a fuzz target into CORPUS, from the fixtures
# (the config target's inputs start with a byte that picks the file name: see fuzz_config.c).
set -eu
t=$1 src=$2 out=$3
copy_all() {   # copy_all PREFIX-BYTE-OCTAL FILES...: each file, behind the byte when given
    byte=$1; shift
    for f in "$@"; do
        [ -f "$f" ] || continue
        name=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
        if [ -n "$byte" ]; then { printf "\\$byte"; cat "$f"; } >"$out/seed-$name"; else cp "$f" "$out/seed-$name"; fi
    done
}
case $t in
python) copy_all "" $(find "$src/tests/fixtures" -name '*.py' | sort) ;;
config)
    copy_all 000 $(find "$src/tests/fixtures" -name '*.yaml' | sort)
    copy_all 001 $(find "$src/tests/fixtures" -name '*.json' | sort)
    copy_all 002 $(find "$src/tests/fixtures" -name '*.sh' | sort)
    copy_all 003 $(find "$src/tests/fixtures" -name 'Dockerfile*' | sort)
    copy_all 004 $(find "$src/tests/fixtures" -name '*.env' -o -name '.env' -o -name '.env.*' | sort)
    copy_all 010 $(find "$src/tests/fixtures" -name '*.service' | sort) ;;
project) copy_all "" $(find "$src/tests/fixtures" "$src/examples" -name '.kvlint.yaml' | sort) ;;
rules) copy_all "" "$src"/rules/*.yaml ;;
compdb) copy_all "" $(find "$src/tests/fixtures" -name 'compile_commands.json*' | sort) ;;
glob)
    printf 'deploy/**/*.yaml\ndeploy/a/b/c.yaml' >"$out/seed-1"
    printf '*a*a*a*b\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' >"$out/seed-2"
    printf '**/**/**/*.b\na/b/c/d/e/f/g/h.c' >"$out/seed-3"
    printf 'vendor\nvendor/x/y.py' >"$out/seed-4" ;;
esac
