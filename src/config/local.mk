src_libkvlint_a_SOURCES += src/config/project.h src/config/stub.c
