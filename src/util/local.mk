src_libkvlint_a_SOURCES += \
	src/util/arena.c src/util/arena.h \
	src/util/diag.c src/util/diag.h \
	src/util/fsutil.c src/util/fsutil.h \
	src/util/json.c src/util/json.h \
	src/util/strbuf.c src/util/strbuf.h \
	src/util/xalloc.c src/util/xalloc.h
