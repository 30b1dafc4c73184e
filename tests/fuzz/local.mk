# libFuzzer targets, one per parser of user bytes (tests/fuzz/fuzz_*.c; see tests/fuzz/fuzz.h).
# Every build links each target with replay.c and `make check` replays the regression corpus
# tests/fuzz/regress/<target>/ (crashes found once, kept fixed) and the seed fixtures through it.
# With ./configure --enable-fuzzing (clang), `make fuzz` builds the libFuzzer binaries and runs each
# for FUZZ_SECONDS (default 60) on a corpus seeded from the fixtures, with a dictionary.
FUZZ_TARGETS = python config project rules glob compdb
FUZZ_SECONDS = 60
FUZZ_COMMON = tests/fuzz/fuzz.h tests/fuzz/fuzz_common.c

check_PROGRAMS += tests/fuzz/replay_python tests/fuzz/replay_config tests/fuzz/replay_project \
	tests/fuzz/replay_rules tests/fuzz/replay_glob tests/fuzz/replay_compdb
tests_fuzz_replay_python_SOURCES = tests/fuzz/fuzz_python.c tests/fuzz/replay.c $(FUZZ_COMMON)
tests_fuzz_replay_python_LDADD = $(KV_LIBS)
tests_fuzz_replay_config_SOURCES = tests/fuzz/fuzz_config.c tests/fuzz/replay.c $(FUZZ_COMMON)
tests_fuzz_replay_config_LDADD = $(KV_LIBS)
tests_fuzz_replay_project_SOURCES = tests/fuzz/fuzz_project.c tests/fuzz/replay.c $(FUZZ_COMMON)
tests_fuzz_replay_project_LDADD = $(KV_LIBS)
tests_fuzz_replay_rules_SOURCES = tests/fuzz/fuzz_rules.c tests/fuzz/replay.c $(FUZZ_COMMON)
tests_fuzz_replay_rules_LDADD = $(KV_LIBS)
tests_fuzz_replay_glob_SOURCES = tests/fuzz/fuzz_glob.c tests/fuzz/replay.c $(FUZZ_COMMON)
tests_fuzz_replay_glob_LDADD = $(KV_LIBS)
tests_fuzz_replay_compdb_SOURCES = tests/fuzz/fuzz_compdb.c tests/fuzz/replay.c $(FUZZ_COMMON)
tests_fuzz_replay_compdb_LDADD = $(KV_LIBS)
TESTS += tests/fuzz/replay.sh
CLEANFILES += tests/fuzz/replay_*.out
EXTRA_DIST += tests/fuzz/replay.sh tests/fuzz/seed.sh tests/fuzz/regress tests/fuzz/dict

FUZZ_BINARIES = tests/fuzz/fuzz_python tests/fuzz/fuzz_config tests/fuzz/fuzz_project \
	tests/fuzz/fuzz_rules tests/fuzz/fuzz_glob tests/fuzz/fuzz_compdb
EXTRA_PROGRAMS += $(FUZZ_BINARIES)
CLEANFILES += $(FUZZ_BINARIES)
tests_fuzz_fuzz_python_SOURCES = tests/fuzz/fuzz_python.c $(FUZZ_COMMON)
tests_fuzz_fuzz_python_LDADD = $(KV_LIBS)
tests_fuzz_fuzz_python_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz_config.c $(FUZZ_COMMON)
tests_fuzz_fuzz_config_LDADD = $(KV_LIBS)
tests_fuzz_fuzz_config_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_project_SOURCES = tests/fuzz/fuzz_project.c $(FUZZ_COMMON)
tests_fuzz_fuzz_project_LDADD = $(KV_LIBS)
tests_fuzz_fuzz_project_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_rules_SOURCES = tests/fuzz/fuzz_rules.c $(FUZZ_COMMON)
tests_fuzz_fuzz_rules_LDADD = $(KV_LIBS)
tests_fuzz_fuzz_rules_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_glob_SOURCES = tests/fuzz/fuzz_glob.c $(FUZZ_COMMON)
tests_fuzz_fuzz_glob_LDADD = $(KV_LIBS)
tests_fuzz_fuzz_glob_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_compdb_SOURCES = tests/fuzz/fuzz_compdb.c $(FUZZ_COMMON)
tests_fuzz_fuzz_compdb_LDADD = $(KV_LIBS)
tests_fuzz_fuzz_compdb_LDFLAGS = $(FUZZ_LDFLAGS)

if FUZZING
fuzz: $(FUZZ_BINARIES)
	@for t in $(FUZZ_TARGETS); do \
	  corpus=fuzz-corpus/$$t; mkdir -p $$corpus fuzz-crashes/$$t; \
	  $(SHELL) $(srcdir)/tests/fuzz/seed.sh $$t $(srcdir) $$corpus; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  KVLINT_DATADIR=$(abs_top_srcdir) ./tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
	    -dict=$(srcdir)/tests/fuzz/dict/$$t.dict -artifact_prefix=fuzz-crashes/$$t/ \
	    $$corpus $(srcdir)/tests/fuzz/regress/$$t || exit 1; \
	done
else
fuzz:
	@echo "make fuzz needs ./configure --enable-fuzzing (clang with libFuzzer: CC=clang-14)"; exit 1
endif
.PHONY: fuzz
