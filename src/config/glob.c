/*
 * glob.c: kv_glob_match, the one glob dialect of .kvlint.yaml (include, exclude, deployments).
 *
 * `*` matches within one path segment, `**` any number of whole segments ("a/" + "**" matches
 * everything under a, "**" + "/b" matches b at any depth), `?` one character other than '/'. No character classes,
 * no braces. Matching is a small backtracking matcher; patterns come from the user's own file, and
 * each `*` retries at most the length of the path, so cost is bounded by |pattern| * |path|^k for
 * k stars (a handful in practice).
 */
#include <stdbool.h>
#include <string.h>

#include "config/project.h"

static bool match_from(const char *p, const char *s)
{
    for (;;) {
        if (*p == '\0')
            return *s == '\0';
        if (p[0] == '*' && p[1] == '*') {
            const char *rest = p + 2;
            bool slash = *rest == '/';
            if (slash)
                rest++;
            /* zero segments, then after each '/' */
            if (match_from(rest, s))
                return true;
            for (const char *t = s; *t; t++)
                if (*t == '/' && match_from(rest, t + 1))
                    return true;
            return !slash && *rest == '\0';
        }
        if (*p == '*') {
            for (const char *t = s;; t++) {
                if (match_from(p + 1, t))
                    return true;
                if (*t == '\0' || *t == '/')
                    return false;
            }
        }
        if (*s == '\0')
            return false;
        if (*p == '?' ? *s == '/' : *p != *s)
            return false;
        p++;
        s++;
    }
}

bool kv_glob_match(const char *pattern, const char *path)
{
    if (!pattern || !path)
        return false;
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    while (pattern[0] == '.' && pattern[1] == '/')
        pattern += 2;
    return match_from(pattern, path);
}
