src_libkvlint_a_SOURCES += src/python/grammar.c src/python/grammar.h src/python/stub.c
