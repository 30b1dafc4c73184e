# bench/local.mk: benchmarks. Built and run on demand (`make bench`), never part of `make check`.
# Shared by the areas: add your program with `EXTRA_PROGRAMS +=` and your target under `bench:`.
EXTRA_PROGRAMS = bench/config-bench
CLEANFILES += $(EXTRA_PROGRAMS)
bench_config_bench_SOURCES = bench/config-bench.c
bench_config_bench_LDADD = $(KV_LIBS)

.PHONY: bench bench-config bench-python
bench: bench-config bench-python
# The config front end next to a bare libyaml event loop over the same generated manifests.
bench-config: bench/config-bench$(EXEEXT)
	./bench/config-bench$(EXEEXT)

# The Python front end next to tree-sitter parse-only time, on the standard library and PyTorch.
EXTRA_PROGRAMS += bench/python-bench
bench_python_bench_SOURCES = bench/python-bench.c
bench_python_bench_LDADD = $(KV_LIBS)
EXTRA_DIST += bench/python-facts.sh bench/python.results.md
bench-python: bench/python-bench$(EXEEXT) src/kvlint$(EXEEXT)
	$(SHELL) $(srcdir)/bench/python-facts.sh .

# Rule evaluation over the front ends: check vs facts on stdlib + PyTorch + generated configs.
EXTRA_DIST += bench/check.sh
bench: bench-check
.PHONY: bench-check
bench-check: src/kvlint$(EXEEXT)
	$(SHELL) $(srcdir)/bench/check.sh .

# A pre-commit style run on one file of the example (goal: at most 50 ms).
EXTRA_DIST += bench/one-file.sh
bench: bench-one-file
.PHONY: bench-one-file
bench-one-file: src/kvlint$(EXEEXT)
	$(SHELL) $(srcdir)/bench/one-file.sh .

# Any tree given by path (a vLLM or SGLang checkout): files, bytes, parse-only and facts CPU time,
# `kvlint check -j 2` wall time and peak memory, one-file run. make bench-tree TREE=DIR [ONEFILE=F]
EXTRA_DIST += bench/tree.sh
.PHONY: bench-tree
bench-tree: bench/python-bench$(EXEEXT) src/kvlint$(EXEEXT)
	@test -n "$(TREE)" || { echo "usage: make bench-tree TREE=DIR [ONEFILE=FILE]" >&2; exit 2; }
	$(SHELL) $(srcdir)/bench/tree.sh . "$(TREE)" $(ONEFILE)

# The C/C++/CUDA front end on a kernel tree (vLLM csrc/, SGLang sgl-kernel/): files, wall and CPU
# time of `kvlint check -j 2` (best of 3), peak memory, findings. make bench-cxx TREE=DIR
EXTRA_DIST += bench/cxx.sh bench/cxx.results.md
.PHONY: bench-cxx
bench-cxx: src/kvlint$(EXEEXT)
	@test -n "$(TREE)" || { echo "usage: make bench-cxx TREE=DIR" >&2; exit 2; }
	$(SHELL) $(srcdir)/bench/cxx.sh . "$(TREE)"

# Peak memory of the report writers on a report of many findings (DOCS generated YAML documents,
# one finding each; default 100000). make bench-report [DOCS=N]
EXTRA_DIST += bench/report-size.sh bench/report.results.md
.PHONY: bench-report
bench-report: src/kvlint$(EXEEXT)
	$(SHELL) $(srcdir)/bench/report-size.sh . $(DOCS)

# The Python evaluator on one module of NAMES module-level names (default 200000): the environment
# lookups are hashed, so this is linear. make bench-names [NAMES=N]
EXTRA_DIST += bench/python-names.sh bench/python-names.results.md
.PHONY: bench-names
bench-names: src/kvlint$(EXEEXT)
	$(SHELL) $(srcdir)/bench/python-names.sh . $(NAMES)

# Where the C/C++/CUDA front end's time goes, per translation unit: why the prefilter lets it
# through, parse, precompiled-header and analysis CPU, libclang memory. make bench-cxx-units TREE=DIR
EXTRA_PROGRAMS += bench/cxx-bench
bench_cxx_bench_SOURCES = bench/cxx-bench.c
bench_cxx_bench_LDADD = $(KV_LIBS)
.PHONY: bench-cxx-units
bench-cxx-units: bench/cxx-bench$(EXEEXT)
	@test -n "$(TREE)" || { echo "usage: make bench-cxx-units TREE=DIR" >&2; exit 2; }
	KVLINT_DATADIR=$(srcdir) ./bench/cxx-bench$(EXEEXT) "$(TREE)"
