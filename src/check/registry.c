/*
 * registry.c: the condition families kvlint knows, from check/families.def (one line per family),
 * and lookups by name. Nothing here knows what any family does.
 */
#include <string.h>

#include "check/family.h"

#define FAMILY(def) extern const family_def def;
#include "check/families.def"
#undef FAMILY

static const family_def *const registry[] = {
#define FAMILY(def) &def,
#include "check/families.def"
#undef FAMILY
};

enum { NFAMILIES = sizeof registry / sizeof *registry };

const family_def *family_find(const char *name)
{
    for (size_t i = 0; i < NFAMILIES; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

void family_names(strbuf *sb)
{
    for (size_t i = 0; i < NFAMILIES; i++)
        sb_addf(sb, "%s%s", i ? ", " : "", registry[i]->name);
}

bool family_has_placeholder(const family_def *f, const char *name)
{
    if (strcmp(name, "fix") == 0 || strcmp(name, "deployment") == 0)
        return true;
    for (size_t i = 0; f->placeholders && f->placeholders[i]; i++)
        if (strcmp(f->placeholders[i], name) == 0)
            return true;
    return false;
}

const char *rule_family_name(const rule *r)
{
    return r->family->name;
}

bool rule_judges_values(const rule *r)
{
    return (r->family->flags & FAMILY_JUDGES_VALUES) != 0;
}
