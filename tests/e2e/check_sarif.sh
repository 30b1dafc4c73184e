#!/bin/sh
# check_sarif.sh: `kvlint check --format sarif` validates against the OASIS SARIF 2.1.0 schema
# (python3 + jsonschema), uses relative URIs, lists the rules with help text, carries related
# locations, code flows, and fingerprints that survive unrelated line moves.
# The schema is public third-party data kept beside the repository ($top_srcdir/../shared/schemas,
# as CI lays it out); when it is absent only the schema validation is skipped, loudly, except
# under CI=true where that is a failure.
. "$top_srcdir/tests/e2e/lib.sh"

# KVLINT_SARIF_SCHEMA (set by scripts/test) reaches the schema from `make distcheck`'s unpacked tree too.
schema="${KVLINT_SARIF_SCHEMA:-$top_srcdir/../shared/schemas/sarif-schema-2.1.0.json}"

validate() { # NAME FILE
    if [ ! -f "$schema" ]; then
        if [ "${CI:-}" = true ]; then
            fail "$1: SARIF schema not found at $schema (CI must provide shared/schemas)"
        else
            echo "SKIP: $1: *** SARIF schema not found at $schema: schema validation NOT run ***"
        fi
        return
    fi
    if [ -z "${PYTHON3:-}" ] || ! "$PYTHON3" -c 'import jsonschema' 2>/dev/null; then
        if [ "${CI:-}" = true ]; then fail "$1: python3 with jsonschema is required in CI"; else
            echo "SKIP: $1: *** python3 jsonschema missing: schema validation NOT run ***"; fi
        return
    fi
    if "$PYTHON3" - "$schema" "$2" >"$tmpdir/val" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
cls = jsonschema.validators.validator_for(schema)
errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:10]:
    print("/".join(map(str, e.path)), e.message[:300])
sys.exit(1 if errors else 0)
PY
    then pass "$1 validates against SARIF 2.1.0"; else fail "$1 does not validate"; cat "$tmpdir/val"; fi
}

# Config-only tree (an invalid dtype name): no Python front end involved.
(cd "$fixtures/KV009/positive" && "$KVLINT" check --format sarif .) >"$tmpdir/kv009.sarif"
expect_status "sarif on KV009 fixture" 1 $?
validate "KV009 fixture" "$tmpdir/kv009.sarif"
expect_contains "relative uri" "$tmpdir/kv009.sarif" '"uri": "deploy.yaml"'
expect_contains "uri base" "$tmpdir/kv009.sarif" '"uriBaseId": "%SRCROOT%"'
expect_contains "rules with help" "$tmpdir/kv009.sarif" '"help": {'
expect_contains "fingerprint" "$tmpdir/kv009.sarif" '"kvlintFinding/v1"'

# The MultiSwitch tree: related locations and code flows (needs the Python front end).
ms="$fixtures/multiswitch"
(cd "$ms" && "$KVLINT" check --format sarif switch --config deploy/fp8_e5m2.yaml \
    --model-config checkpoint-20/config.json) >"$tmpdir/ms.sarif"
expect_status "sarif on multiswitch e5m2" 1 $?
validate "multiswitch e5m2" "$tmpdir/ms.sarif"
expect_contains "related locations" "$tmpdir/ms.sarif" '"relatedLocations"'
expect_contains "code flows" "$tmpdir/ms.sarif" '"codeFlows"'

# Fingerprints ignore line numbers: add lines above the finding, the fingerprints stay.
cp -R "$ms" "$tmpdir/moved"
{ printf '# an unrelated comment\n\n'; cat "$ms/switch/multi.py"; } >"$tmpdir/moved/switch/multi.py"
(cd "$tmpdir/moved" && "$KVLINT" check --format sarif switch --config deploy/fp8_e5m2.yaml \
    --model-config checkpoint-20/config.json) >"$tmpdir/moved.sarif"
grep '"kvlintFinding/v1"' "$tmpdir/ms.sarif" >"$tmpdir/fp1"
grep '"kvlintFinding/v1"' "$tmpdir/moved.sarif" >"$tmpdir/fp2"
if [ -s "$tmpdir/fp1" ] && cmp -s "$tmpdir/fp1" "$tmpdir/fp2"; then pass "fingerprints survive line moves"
else fail "fingerprints changed (or none)"; fi
if grep -q '"startLine": 14' "$tmpdir/moved.sarif"; then pass "moved finding has its new line"
else fail "moved finding line"; fi
finish
