/*
 * gitdir.c: a work tree's top, git folder and index paths without running git (see gitdir.h).
 *
 * Index format (git's Documentation/gitformat-index.txt): a 12-byte header ("DIRC", version,
 * entry count), the entries sorted by path, then extensions (a 4-byte signature and a 4-byte
 * size each) and a trailing hash. An entry is 62 bytes of stat data, object name and flags
 * (64 when version 3's extended flag is set), then its path: NUL-padded to a multiple of 8 bytes
 * in versions 2 and 3; in version 4 a varint saying how many bytes of the previous path to drop
 * and the NUL-terminated rest. Every length is checked against the buffer; anything unexpected
 * declines, and the caller asks git.
 */
#include "scan/gitdir.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum { INDEX_MAX_BYTES = 512 << 20, CONFIG_MAX_BYTES = 1 << 20, ENTRY_FIXED = 62, HASH_BYTES = 20 };

bool gitdir_env_overrides(void)
{
    static const char *const vars[] = { "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
                                        "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM" };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return true;
    return false;
}

char *gitdir_find_top(const char *dir, char **dotgit)
{
    char *cur = fs_canonical(dir);
    for (int hops = 0; hops < 256; hops++) {
        char *git = fs_join(cur, ".git");
        struct stat st;
        if (lstat(git, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
            *dotgit = git;
            return cur;
        }
        free(git);
        if (!strcmp(cur, "/"))
            break;
        char *slash = strrchr(cur, '/');
        if (slash == cur)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    free(cur);
    return NULL;
}

/* The first line of a small file (heap), or NULL. */
static char *first_line(const char *path)
{
    char *data = NULL;
    size_t len;
    const char *why;
    if (fs_read_file(path, 4096, &data, &len, &why) != FS_OK)
        return NULL;
    data[strcspn(data, "\r\n")] = '\0';
    return data;
}

char *gitdir_resolve(const char *top, const char *dotgit, bool common)
{
    char *gitdir;
    if (fs_is_dir(dotgit)) {
        gitdir = xstrdup(dotgit);
    } else {
        char *line = first_line(dotgit);
        if (!line || strncmp(line, "gitdir: ", 8) != 0 || !line[8]) {
            free(line);
            return NULL;
        }
        gitdir = line[8] == '/' ? xstrdup(line + 8) : fs_join(top, line + 8);
        free(line);
    }
    if (!common)
        return gitdir;
    char *cfile = fs_join(gitdir, "commondir");
    char *line = first_line(cfile);
    free(cfile);
    if (line && *line) {
        char *shared = line[0] == '/' ? xstrdup(line) : fs_join(gitdir, line);
        free(gitdir);
        gitdir = shared;
    }
    free(line);
    return gitdir;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A repository whose objects are named by SHA-256 (extensions.objectFormat): entries are longer. */
static bool other_object_format(const char *common)
{
    char *cfile = fs_join(common, "config"), *data = NULL;
    size_t len;
    const char *why;
    bool other = false;
    if (fs_read_file(cfile, CONFIG_MAX_BYTES, &data, &len, &why) == FS_OK)
        for (const char *p = data; !other && *p; p++)   /* keys are case-insensitive: ObjectFormat */
            other = (*p | 0x20) == 'o' && !strncasecmp(p, "objectformat", 12);
    free(data);
    free(cfile);
    return other;
}

/* The entries of an index buffer into paths (arena a); false when it is not one this reads. */
static bool parse_index(const unsigned char *buf, size_t len, kv_arena *a, char ***paths, size_t *n)
{
    if (len < 12 + HASH_BYTES || memcmp(buf, "DIRC", 4) != 0)
        return false;
    uint32_t version = be32(buf + 4), count = be32(buf + 8);
    if (version < 2 || version > 4 || count > len / ENTRY_FIXED)
        return false;
    size_t end = len - HASH_BYTES, at = 12, cap = 0;
    strbuf prev = STRBUF_INIT;
    bool ok = true;
    for (uint32_t i = 0; ok && i < count; i++) {
        if (end - at < ENTRY_FIXED + 1) {
            ok = false;
            break;
        }
        unsigned flags = (unsigned)buf[at + 60] << 8 | buf[at + 61];
        bool extended = flags & 0x4000;
        size_t name = at + ENTRY_FIXED + (extended ? 2 : 0);
        if ((extended && version < 3) || name >= end) {
            ok = false;
            break;
        }
        const unsigned char *nul;
        if (version == 4) {
            size_t drop = buf[name] & 127;
            while (ok && (buf[name] & 128)) {   /* git's offset varint: each further byte adds one */
                if (++name >= end || drop > SIZE_MAX >> 8)
                    ok = false;
                else
                    drop = ((drop + 1) << 7) | (buf[name] & 127);
            }
            name++;
            nul = ok && name < end ? memchr(buf + name, '\0', end - name) : NULL;
            if (!nul || drop > prev.len) {
                ok = false;
                break;
            }
            prev.len -= drop;
            if (prev.buf)
                prev.buf[prev.len] = '\0';
            sb_add(&prev, (const char *)buf + name, (size_t)(nul - (buf + name)));
            if ((flags & 0xfff) != 0xfff && prev.len != (flags & 0xfff)) {   /* git sizes it so */
                ok = false;
                break;
            }
            at = (size_t)(nul - buf) + 1;
        } else {
            nul = memchr(buf + name, '\0', end - name);
            size_t nlen = nul ? (size_t)(nul - (buf + name)) : 0;
            if (!nul || ((flags & 0xfff) != 0xfff && nlen != (flags & 0xfff))) {
                ok = false;
                break;
            }
            sb_reset(&prev);
            sb_add(&prev, (const char *)buf + name, nlen);
            size_t size = ((name - at) + nlen + 8) & ~(size_t)7;   /* 1 to 8 NULs pad it */
            if (size > end - at) {
                ok = false;
                break;
            }
            at += size;
        }
        if (!prev.len) {
            ok = false;
            break;
        }
        int order = *n ? strcmp((*paths)[*n - 1], sb_str(&prev)) : -1;
        if (order > 0)
            ok = false;
        else if (order < 0) {   /* a conflicted path has one entry per stage: keep one */
            *paths = arena_grow(a, *paths, &cap, *n + 1, sizeof **paths);
            (*paths)[(*n)++] = arena_strndup(a, prev.buf, prev.len);
        }
    }
    sb_release(&prev);
    /* extensions: a split index ("link") holds only changes to another file, a sparse one
     * ("sdir") folders in place of their files; either way git must answer */
    while (ok && at < end) {
        if (end - at < 8) {
            ok = false;
            break;
        }
        uint32_t size = be32(buf + at + 4);
        if (!memcmp(buf + at, "link", 4) || !memcmp(buf + at, "sdir", 4) || size > end - at - 8)
            ok = false;
        at += 8 + (size_t)size;
    }
    return ok;
}

bool gitdir_index_paths(const char *top, const char *dotgit, kv_arena *a, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    if (gitdir_env_overrides())
        return false;
    char *gitdir = gitdir_resolve(top, dotgit, false), *common = gitdir_resolve(top, dotgit, true);
    if (!gitdir || !common || other_object_format(common)) {
        free(gitdir);
        free(common);
        return false;
    }
    char *file = fs_join(gitdir, "index"), *data = NULL;
    size_t len;
    const char *why;
    bool ok;
    struct stat st;
    if (stat(file, &st) != 0 && errno == ENOENT && fs_is_dir(gitdir))
        ok = true;   /* no index yet: nothing is tracked */
    else
        ok = fs_read_file(file, INDEX_MAX_BYTES, &data, &len, &why) == FS_OK &&
             parse_index((const unsigned char *)data, len, a, paths, n);
    if (!ok)
        *n = 0;
    free(data);
    free(file);
    free(gitdir);
    free(common);
    return ok;
}
