# silt — the two commands a newcomer needs are `make demo` and `make test`.
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
RELEASE := build/release
ASAN := build/asan

.PHONY: deps build asan demo deb test unit bench bench-tpch-sf10 fuzz fuzz-smoke format clean stress tsan

deps:
	@bash scripts/install-deps.sh

$(RELEASE)/build.ninja: | deps
	@cmake -S . -B $(RELEASE) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

# -g1: line tables for the sanitizers' stack traces, a third less compile time than -g.
$(ASAN)/build.ninja: | deps
	@cmake -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSILT_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" $(CMAKE_FLAGS) >/dev/null

build: deps $(RELEASE)/build.ninja
	@ninja -C $(RELEASE) -j $(JOBS)

asan: deps $(ASAN)/build.ninja
	@ninja -C $(ASAN) -j $(JOBS)

demo: build
	@$(RELEASE)/silt demo demo-out

# The Debian package of the release build (cmake/install.cmake): build/release/silt_<version>_<arch>.deb.
deb: build
	@cd $(RELEASE) && cpack -G DEB >/dev/null && ls $(CURDIR)/$(RELEASE)/silt_*.deb

# Release + ASan/UBSan builds, unit tests in both, then SQL/conformance/interop suites and a
# fuzz smoke run. Ends with one "N passed, N failed" line.
test: build asan
	@bash scripts/run-tests.sh

# Reliability, long (issue 31): >= 2,000 SIGKILLs across every write path, a crash at every
# storage operation of a write sequence (~1,000 child processes), a 10-minute multi-process
# concurrency soak (results: docs/reliability.md), then the TSan run. `make test`
# runs both suites at a bounded size.
STRESS_KILLS ?= 2000
STRESS_SOAK_SECONDS ?= 600
stress: build
	@python3 test/reliability/crash_harness.py $(RELEASE)/silt --kills $(STRESS_KILLS) --seconds 3000
	@SILT_CRASHOP_ALL=1 $(RELEASE)/silt_unit_tests --gtest_brief=1 --gtest_filter='CrashAtStorageOpTest.*'
	@python3 test/reliability/concurrency.py $(RELEASE)/silt --seconds $(STRESS_SOAK_SECONDS) \
	  --appenders 6 --dml 2 --readers 2
	@$(MAKE) --no-print-directory tsan

# ThreadSanitizer build of what the concurrent tests run: the silt binary (the concurrency test on
# it) and the unit tests of the thread pool, parallel listings and concurrent commits.
TSAN := build/tsan
TSAN_UNIT_FILTER ?= *Concurren*:*ThreadPool*:*Parallel*:*OnAPool*:*Race*
$(TSAN)/build.ninja: | deps
	@cmake -S . -B $(TSAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  -DCMAKE_CXX_FLAGS="-fsanitize=thread -Wno-tsan" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
	  $(CMAKE_FLAGS) >/dev/null

tsan: deps $(TSAN)/build.ninja
	@ninja -C $(TSAN) -j $(JOBS) silt silt_unit_tests
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(TSAN)/silt_unit_tests --gtest_brief=1 \
	  --gtest_filter='$(TSAN_UNIT_FILTER)'
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" python3 test/reliability/concurrency.py $(TSAN)/silt \
	  --seconds 60 --appenders 3

bench: deps
	@cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DSILT_BENCH=ON >/dev/null
	@ninja -C build/bench -j $(JOBS)
	@BENCH_RECORD=1 bash bench/run.sh
	@BENCH_RECORD=1 bash bench/tpch.sh 1
	@BENCH_RECORD=1 bash bench/dml.sh $(BENCH_DML_SCALE)
	@BENCH_RECORD=1 bash bench/compact.sh $(BENCH_COMPACT_SCALE)
	@BENCH_RECORD=1 bash bench/vacuum.sh $(BENCH_VACUUM_FILES)
	@BENCH_RECORD=1 bash bench/dfp.sh $(BENCH_DFP_SCALE)
	@BENCH_RECORD=1 bash bench/maintenance.sh $(BENCH_MAINT_SCALE)

# TPC-H at SF 10 (issue 22's second target): all 22 queries, both engines under a 4 GB memory
# limit, 1 and 2 threads (~11 GB of data in build/bench-data/tpch-sf10; generation takes a while).
bench-tpch-sf10: deps
	@cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DSILT_BENCH=ON >/dev/null
	@ninja -C build/bench -j $(JOBS) tpch_bench
	@BENCH_RECORD=1 TPCH_MEMORY_GB=4 bash bench/tpch.sh 10

# bench/dml.sh: 10M rows × scale; bench/compact.sh: 10k small files × scale (0.1 = 1k files).
BENCH_DML_SCALE ?= 1
BENCH_COMPACT_SCALE ?= 0.1
# bench/vacuum.sh: table sizes in data files (1000000 needs ~3M free inodes and ~10 minutes).
BENCH_VACUUM_FILES ?= 100000 1000000
# bench/dfp.sh: star schema with a 50M-row × scale fact table in 500 files (0.02 = 1M rows, quick).
BENCH_DFP_SCALE ?= 1
# bench/maintenance.sh: 100 tables, 10M rows × scale in total (0.01 = 100k rows, quick).
BENCH_MAINT_SCALE ?= 1

FUZZ_SECONDS ?= 300
fuzz: deps
	@CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSILT_FUZZ=ON -DSILT_FUZZ_ENGINE=ON >/dev/null
	@ninja -C build/fuzz -j $(JOBS)
	@bash scripts/run-fuzz.sh build/fuzz $(FUZZ_SECONDS)

format:
	@clang-format -i $$(git ls-files '*.h' '*.cc')

clean:
	rm -rf build demo-out
