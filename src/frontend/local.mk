# The front-end interface, the registry of front ends, and what they share (suppression comments).
src_libkvlint_a_SOURCES += \
	src/frontend/frontend.h src/frontend/registry.c \
	src/frontend/suppress.c src/frontend/suppress.h

check_PROGRAMS += tests/unit/check_frontend
tests_unit_check_frontend_SOURCES = tests/unit/check_frontend.c
tests_unit_check_frontend_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_frontend_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_frontend
