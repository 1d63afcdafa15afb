# RealmLite — build, test, demo, bench.
#   make demo    build and run the example app
#   make test    layer checks, C engine tests under ASan/UBSan, swift test, TSan, release-build stops, fuzz, bench smoke
#   make docs    the DocC catalog (build/docs/RealmLite.doccarchive)
#   make bench   benchmarks (QUICK=1 for a smoke run)
#   make fuzz    libFuzzer harnesses (FUZZ_SECONDS per harness)
#   make stress  long crash-loop / compaction / power-loss / multi-process runs, kill -9 during migrations
#   make example-server  the HTTP example (Examples/Server) under load
#   make tsan    threading tests under ThreadSanitizer
# test/bench/fuzz set themselves up on a fresh machine (liblmdb-dev via
# apt-get); demo needs only the Swift toolchain.

SHELL := /bin/bash
CC := $(shell command -v clang 2>/dev/null || echo cc)
BUILD := build
CSTORAGE_SRC := $(wildcard Sources/CStorage/*.c)
CSTORAGE_HDR := $(wildcard Sources/CStorage/*.h Sources/CStorage/include/*.h)
CTEST_DIR := Tests/CStorageCTests
CTEST_SUPPORT := $(wildcard $(CTEST_DIR)/support/*.c)
CTEST_SRC := $(wildcard $(CTEST_DIR)/test_*.c)
CTEST_NAMES := $(patsubst $(CTEST_DIR)/%.c,%,$(CTEST_SRC))

CWARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
CINC := -ISources/CStorage/include -ISources/CStorage -I$(CTEST_DIR)/support
SAN := -fuse-ld=lld -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_FLAGS := $(CWARN) $(CINC) -O1 -g $(SAN)
REL_FLAGS := $(CWARN) $(CINC) -O2 -g

.PHONY: all deps layers test ctest swifttest tsan stops-release docs demo bench fuzz stress example-server clean

all:
	swift build

# liblmdb-dev: the reference backend for tests and benchmarks.
deps:
	@if ! pkg-config --exists lmdb 2>/dev/null || [ ! -f /usr/include/lmdb.h ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing liblmdb-dev"; \
	    (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblmdb-dev libsqlite3-dev pkg-config >/dev/null; \
	  else \
	    echo "missing liblmdb-dev: run  sudo apt-get install -y liblmdb-dev libsqlite3-dev pkg-config"; exit 1; \
	  fi; \
	fi

# The engine and the test support are compiled once per flavour into
# $(BUILD)/obj-<flavour>/ and linked into every test program: compiling them
# into each program was most of ctest's time.
CTEST_HDR := $(CSTORAGE_HDR) $(wildcard $(CTEST_DIR)/support/*.h)
ctest_objs = $(patsubst Sources/CStorage/%.c,$(BUILD)/obj-$(1)/%.o,$(CSTORAGE_SRC)) \
             $(patsubst $(CTEST_DIR)/support/%.c,$(BUILD)/obj-$(1)/support/%.o,$(CTEST_SUPPORT))
define ctest_flavour
$(BUILD)/obj-$(1)/%.o: Sources/CStorage/%.c $(CSTORAGE_HDR) | deps
	@mkdir -p $$(dir $$@)
	$(CC) $(filter-out -fuse-ld=%,$(2)) -c -o $$@ $$<
$(BUILD)/obj-$(1)/support/%.o: $(CTEST_DIR)/support/%.c $(CTEST_HDR) | deps
	@mkdir -p $$(dir $$@)
	$(CC) $(filter-out -fuse-ld=%,$(2)) -c -o $$@ $$<
$(BUILD)/$(1)/%: $(CTEST_DIR)/%.c $(call ctest_objs,$(1)) $(CTEST_HDR) | deps
	@mkdir -p $$(dir $$@)
	$(CC) $(2) -o $$@ $$< $(call ctest_objs,$(1)) -llmdb -lpthread
endef
$(eval $(call ctest_flavour,asan,$(ASAN_FLAGS)))
$(eval $(call ctest_flavour,rel,$(REL_FLAGS)))
# Named here, the objects are not intermediate: make keeps them and
# rebuilds them when missing.
$(call ctest_objs,asan) $(call ctest_objs,rel): $(CTEST_HDR)

# The engine's layers call only downward: fails on any call from a lower
# layer into a higher one (table in Sources/CStorage/internal.h). The object
# layer calls the engine only through Sources/RealmLite/Storage/Engine.swift.
layers:
	python3 scripts/check_layers.py --cc $(CC) --src Sources/CStorage
	bash scripts/check_engine_seam.sh

# Every C test runs under ASan/UBSan; each prints its own checks and exits
# non-zero on failure. The layer check runs first.
ctest: deps layers $(addprefix $(BUILD)/asan/,$(CTEST_NAMES))
	@pass=0; fail=0; failed=""; \
	for t in $(CTEST_NAMES); do \
	  echo "== $$t (asan+ubsan)"; \
	  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	     TMPDIR=$${TMPDIR:-/tmp} $(BUILD)/asan/$$t; then pass=$$((pass+1)); \
	  else fail=$$((fail+1)); failed="$$failed $$t"; fi; \
	done; \
	echo "ctest: $$pass passed, $$fail failed" | tee $(BUILD)/ctest.summary; \
	[ $$fail = 0 ] || { echo "failed:$$failed"; exit 1; }

swifttest: deps
	@mkdir -p $(BUILD)
	swift test 2>&1 | tee $(BUILD)/swifttest.log; exit $${PIPESTATUS[0]}
	bash scripts/check_swift5.sh
	$(MAKE) -C fuzz objects-replay

# The stop scenarios in a release build: -O builds behave differently
# (preconditionFailure drops its message there), and apps ship -O.
stops-release: deps
	swift test -c release -Xswiftc -enable-testing --package-path Tests/ReleaseStops

# The DocC catalog (Sources/RealmLite/RealmLite.docc plus docs/*.md as
# articles), built with the toolchain's docc; a broken symbol link or an
# undocumented public symbol fails it, and so does README.md's package
# snippet or example if it does not build.
docs:
	bash scripts/build_docs.sh

# Each phase's wall time goes to $(PHASES) and is printed at the end.
PHASES = $(BUILD)/phases.log
PHASE = bash scripts/phase.sh $(PHASES)

# -j2 builds the C test and fuzz programs two at a time (they run one
# after another in their recipes): the build is most of ctest's time.
test: deps
	@mkdir -p $(BUILD); : > $(PHASES)
	@$(PHASE) ctest $(MAKE) -j2 ctest
	@$(PHASE) swifttest $(MAKE) swifttest
	@$(PHASE) tsan $(MAKE) tsan
	@$(PHASE) stops-release $(MAKE) stops-release
	@$(PHASE) docs $(MAKE) docs
	@if [ -f fuzz/Makefile ]; then $(PHASE) fuzz-short $(MAKE) -j2 -C fuzz test-short; fi
	@if [ -f benchmarks/Makefile ]; then $(PHASE) bench-quick $(MAKE) -C benchmarks QUICK=1 bench; fi
	@echo "make test, wall time per phase:"; cat $(PHASES)
	@# One closing line for CI: C test programs plus XCTest cases.
	@c=$$(sed -n 's/^ctest: \([0-9]*\) passed.*/\1/p' $(BUILD)/ctest.summary); \
	 last=$$(grep -E 'Executed [0-9]+ tests' $(BUILD)/swifttest.log | tail -1); \
	 x=$$(echo "$$last" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/'); \
	 k=$$(echo "$$last" | sed -nE 's/.*with ([0-9]+) tests? skipped.*/\1/p'); \
	 echo "make test: all suites passed"; echo "tests: $$(( $${c:-0} + $${x:-0} - $${k:-0} )) passed, 0 failed, $${k:-0} skipped"

# Builds the demo product and what it depends on (CStorage, RealmLite) only:
# CLMDB (lmdb.h) and SQLite are for tests and benchmarks, so no deps here.
demo:
	swift run -c release RealmLiteDemo

# The notes server (its own package, with Hummingbird) under NotesLoad, for
# each read mode: checks every endpoint, then prints requests/s and p50/p99
# latency with and without writers. Not part of `make test` (the first build
# of its dependencies takes minutes). MODES, DURATION, CONNECTIONS, WRITERS,
# NOTES tune it (Examples/Server/run.sh).
example-server:
	bash Examples/Server/run.sh

bench: deps
	$(MAKE) -C benchmarks bench QUICK=$(QUICK)

fuzz: deps
	$(MAKE) -C fuzz fuzz

stress: deps
	$(MAKE) -C fuzz stress
	@# kill -9 at random moments of a 200k-object migration (MigrationKillTests)
	REALMLITE_MIGRATION_OBJECTS=200000 REALMLITE_MIGRATION_KILLS=$${MIGRATION_KILLS:-40} \
	  swift test -c release -Xswiftc -enable-testing --filter MigrationKillTests

# The threading, notification, Realm and keyed-class tests under
# ThreadSanitizer (a separate build in .build-tsan; part of make test since
# it found a race that the other suites cannot see).
TSAN_TESTS ?= ThreadingTests|ThreadingGuideTests|NotificationTests|RealmTests|KeyedClassTests|CrossProcessNotificationTests|ActorObservationTests|ChangeSequenceTests|ChangesetRandomTests|MapObservationTests|ObjectObservationTests|OpeningTests|LoggerTests|ListChangeLogTests|SetMapChangeLogTests
tsan: deps
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=halt_on_error=1 swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter "$(TSAN_TESTS)"

# The realmlite command-line tool (README, "Command-line tool"), built -c
# release, into $(PREFIX)/bin ($(DESTDIR) for staged installs).
PREFIX ?= /usr/local
.PHONY: install
install:
	swift build -c release --product realmlite
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$(swift build -c release --show-bin-path)/realmlite" "$(DESTDIR)$(PREFIX)/bin/realmlite"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/realmlite"

clean:
	rm -rf $(BUILD) .build .build-tsan .build-docs
