/*
 * fuzz.h: what the libFuzzer targets in tests/fuzz/ share. Each target is one file defining
 * LLVMFuzzerTestOneInput for one parser of user bytes; it is linked either with libFuzzer
 * (--enable-fuzzing, clang: `make fuzz`) or with replay.c, a main() that feeds every file of the
 * directories it is given, which `make check` runs over tests/fuzz/regress/<target>/ on every build
 * (the sanitizer build included) so that a crash once found stays fixed.
 *
 * The helpers keep per-process read-only state (the front ends' init(), done once) and hand a
 * target's bytes to code that reads files through a memfd (a regular file with no name on disk),
 * so project and rule loaders run on exactly the fuzzer's bytes.
 */
#ifndef KV_FUZZ_H
#define KV_FUZZ_H
#include <stddef.h>
#include <stdint.h>

#include "frontend/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run fe on data as the file path would be (claim, prefilter skipped, index, link, analyze), then
 * print its facts as JSON into memory, as `kvlint facts` would. */
void fuzz_frontend(const frontend *fe, const char *path, const uint8_t *data, size_t size);
/* A path naming a regular file that holds exactly data; valid until the next call. */
const char *fuzz_file(const uint8_t *data, size_t size);

#endif
