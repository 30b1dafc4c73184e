/*
 * strlist.h: the string tests every stage asks: does a name end with a suffix, is a word in a
 * list. One copy of each (kvlint had seven), with the length-counted forms the lexers need (a
 * token is a pointer and a length, not a NUL-terminated string).
 *
 * Not here: patterns and globs (project/glob.c), case-insensitive rule ids (check/).
 */
#ifndef KV_STRLIST_H
#define KV_STRLIST_H
#include <stdbool.h>
#include <stddef.h>

/* s ends with suffix; a NULL s ends with nothing. */
bool str_ends_with(const char *s, const char *suffix);
/* The n bytes at s end with suffix. */
bool mem_ends_with(const char *s, size_t n, const char *suffix);
/* s is one of the strings of the NULL-terminated list. */
bool str_in_list(const char *const *list, const char *s);
/* The n bytes at s are one of the strings of the NULL-terminated list. */
bool mem_in_list(const char *const *list, const char *s, size_t n);
/* The n bytes at s are one of the count strings of v. */
bool mem_in_array(const char *const *v, size_t count, const char *s, size_t n);

#endif
