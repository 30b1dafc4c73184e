src_libkvnumerics_a_SOURCES += src/numerics/numerics.h src/numerics/stub.c
src_libkvlint_a_SOURCES += src/cli/stub_cast.c
