/*
 * registry.c: the list of front ends, and the few questions asked of all of them.
 *
 * Adding a front end is one line here plus its own folder; the scanner and the CLI iterate this
 * list and know no front end by name. Order matters only when two front ends claim one path: the
 * first wins.
 */
#include "frontend/frontend.h"

const char FE_CLAIM_BY_CONTENT[] = "?";

const frontend *const kv_frontends[] = {
    &python_frontend,
    &config_frontend,
    &cxx_frontend,
    NULL,
};

size_t kv_frontend_count(void)
{
    size_t n = 0;
    while (kv_frontends[n])
        n++;
    return n;
}

size_t kv_frontend_index(const frontend *fe)
{
    size_t i = 0;
    while (kv_frontends[i] && kv_frontends[i] != fe)
        i++;
    return i;
}

const frontend *kv_frontend_for(const char *path, const char **lang)
{
    for (size_t i = 0; kv_frontends[i]; i++) {
        const char *l = kv_frontends[i]->claim(path, NULL, 0);
        if (l) {
            if (lang)
                *lang = l;
            return kv_frontends[i];
        }
    }
    return NULL;
}

bool kv_frontends_selfcheck(char *why, size_t n)
{
    for (size_t i = 0; kv_frontends[i]; i++)
        if (kv_frontends[i]->selfcheck && !kv_frontends[i]->selfcheck(why, n))
            return false;
    return true;
}
