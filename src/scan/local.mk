src_libkvlint_a_SOURCES += \
	src/scan/scan.c src/scan/scan.h
