src_libkvlint_a_SOURCES += \
	src/scan/scan.c src/scan/scan.h
src_libkvlint_a_SOURCES += src/scan/compdb.c src/scan/compdb.h
