src_libkvlint_a_SOURCES += src/resolve/deploy.h src/resolve/stub.c
