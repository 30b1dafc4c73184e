src_libkvlint_a_SOURCES += \
	src/scan/frontend.h \
	src/scan/scan.c src/scan/scan.h
