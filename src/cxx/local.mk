# The C/C++/CUDA front end: libclang translation units to store facts (see src/cxx/cxxfe.h).
src_libkvlint_a_SOURCES += \
	src/cxx/cxxfe.h src/cxx/frontend.c src/cxx/cxxdata.c src/cxx/cxxsinks.c src/cxx/cxxids.c \
	src/cxx/cxxtok.h src/cxx/cxxtok.c src/cxx/cxxreach.c \
	src/cxx/cxxparse.c src/cxx/cxxpch.c src/cxx/cxxtypes.c src/cxx/cxxeval.h src/cxx/cxxeval.c \
	src/cxx/cxxwalk.c src/cxx/libclang.h src/cxx/libclang.c

# Its tables and the stub headers that stand in for the CUDA SDK and c10 (docs/cxx.md), installed
# under $(pkgdatadir)/grammars/cxx.
cxxgrammarsdir = $(pkgdatadir)/grammars/cxx
dist_cxxgrammars_DATA = grammars/cxx/cxx.tsv grammars/cxx/sinks.tsv
cxxstubsdir = $(pkgdatadir)/grammars/cxx/stubs
dist_cxxstubs_DATA = \
	grammars/cxx/stubs/kvlint_cuda_prelude.h grammars/cxx/stubs/cuda_runtime.h grammars/cxx/stubs/cuda.h \
	grammars/cxx/stubs/cuda_fp16.h grammars/cxx/stubs/cuda_bf16.h grammars/cxx/stubs/cuda_fp8.h \
	grammars/cxx/stubs/math_constants.h
cxxstubsc10dir = $(pkgdatadir)/grammars/cxx/stubs/c10/util
dist_cxxstubsc10_DATA = \
	grammars/cxx/stubs/c10/util/Half.h grammars/cxx/stubs/c10/util/BFloat16.h \
	grammars/cxx/stubs/c10/util/Float8_e4m3fn.h grammars/cxx/stubs/c10/util/Float8_e5m2.h
cxxstubscudadir = $(pkgdatadir)/grammars/cxx/stubs/cuda/std
dist_cxxstubscuda_DATA = grammars/cxx/stubs/cuda/std/limits

# Tests: the compilation database and flag translation, claims, the prefilter's soundness; and the
# facts and findings of every fixture (tests/fixtures/cxx) against its golden JSON.
check_PROGRAMS += tests/unit/check_cxx
tests_unit_check_cxx_SOURCES = tests/unit/check_cxx.c
tests_unit_check_cxx_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_cxx_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_cxx tests/e2e/cxx_facts.sh
EXTRA_DIST += tests/e2e/cxx_facts.sh
