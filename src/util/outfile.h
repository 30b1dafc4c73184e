/*
 * outfile.h: writing a report file so that a failed run never leaves a lying or truncated one.
 *
 * out_file_open() never touches the target: the report goes to a new file beside it (same
 * directory, so the final rename(2) is atomic), and out_file_commit() checks every write (the
 * stream's sticky error flag), fsyncs, closes and renames it over the target only when all of that
 * succeeded. out_file_abort() removes the temporary file; an earlier report stays as it was.
 *
 * What the target may be:
 * - missing or a regular file: replaced by rename, as above;
 * - a symbolic link: the link itself is replaced by the report; the file it points to is never
 *   written (a checkout cannot redirect a report into ~/.bashrc by planting a link), unless the
 *   link leads to a device, FIFO or socket, which is written through the link (/dev/stdout);
 * - a device, FIFO or socket (/dev/null, /dev/stdout, a named pipe): written directly;
 * - a directory: refused.
 * NULL as the path means standard output (file descriptor 1), checked the same way, never closed.
 * Writes go through a stream of our own that keeps the errno of the first failed write, so the
 * message says why ("No space left on device") even when stdio would have forgotten.
 * An out_file must not move in memory between open and commit (the stream points to it).
 *
 * The helper knows files only; refusing a target that is one of the run's inputs is the caller's
 * check (out_file_target() gives the target's device and inode). It does not print: failures come
 * back as a sentence in the caller's buffer.
 */
#ifndef KV_OUTFILE_H
#define KV_OUTFILE_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct out_file {
    FILE *f;               /* where the report is written (a stream over fd; not stdout itself) */
    const char *path;      /* the target as given; NULL = standard output */
    char *tmp;             /* heap path of the temporary file, NULL when written directly */
    int fd;                /* the descriptor f writes to; 1 for standard output (never closed) */
    int err;               /* errno of the first failed write, 0 while every write succeeded */
} out_file;

/* Whether path can take a report, without creating anything (so a usage error comes before a
 * long run). On false, err holds the reason. */
bool out_file_usable(const char *path, char *err, size_t errlen);
/* The existing regular file the report would replace (following links, as a reader of the target
 * would see it): true and *dev, *ino set, or false if there is none. */
bool out_file_target(const char *path, dev_t *dev, ino_t *ino);
/* Open the stream for path (NULL = stdout). On false, err holds the reason and nothing exists. */
bool out_file_open(out_file *o, const char *path, char *err, size_t errlen);
/* Finish: check the writes, flush, sync, close and rename. On false, err holds the reason, the
 * temporary file is removed and the target is as it was. Always releases o. */
bool out_file_commit(out_file *o, char *err, size_t errlen);
/* Give up: close and remove the temporary file; the target is as it was. */
void out_file_abort(out_file *o);

#endif
