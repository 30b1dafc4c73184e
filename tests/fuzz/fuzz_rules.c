/* fuzz_rules.c: a rule file (the dialect of rules/KV001-sentinel-overflow.yaml and --rules DIR) through the rule loader. */
#include "fuzz.h"

#include "check/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    rule_set *s = rule_set_new();
    if (rules_load_file(s, fuzz_file(data, size), &d))
        rule_set_finish(s, &d);
    rule_set_free(s);
    arena_free(a);
    return 0;
}
