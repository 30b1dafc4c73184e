src_libkvlint_a_SOURCES += src/check/stub.c
