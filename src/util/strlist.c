/* strlist.c: suffix and membership tests (strlist.h). */
#include "util/strlist.h"

#include <string.h>

bool mem_ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
    return s && mem_ends_with(s, strlen(s), suffix);
}

bool mem_in_array(const char *const *v, size_t count, const char *s, size_t n)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(v[i]) == n && memcmp(v[i], s, n) == 0)
            return true;
    return false;
}

bool mem_in_list(const char *const *list, const char *s, size_t n)
{
    for (size_t i = 0; list[i]; i++)   /* the first byte first: most words differ there */
        if ((n == 0 || list[i][0] == s[0]) && strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return true;
    return false;
}

bool str_in_list(const char *const *list, const char *s)
{
    return mem_in_list(list, s, strlen(s));
}
