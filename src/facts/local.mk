src_libkvlint_a_SOURCES += \
	src/facts/facts.c src/facts/facts.h \
	src/facts/facts_json.c src/facts/facts_json.h \
	src/facts/expr.c
