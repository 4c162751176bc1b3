# The two commands a newcomer needs: `make demo` and `make test`. Both install what is missing
# (Debian packages, via scripts/install-deps.sh) and build first.
JOBS ?= $(shell nproc)
BUILD ?= build
SAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
FUZZ_TARGETS = $(basename $(notdir $(wildcard fuzz/*.cpp)))
# Debug information as line tables only (-g1): enough for every stack trace, and a libtorch
# translation unit compiles in 14 s instead of 21 s with full -g (measured on learner.cpp).
LINE_TABLES = -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG' -DCMAKE_CXX_FLAGS_DEBUG='-g1'
# Unity builds (HETPS_UNITY_BUILD in CMakeLists.txt) for the main and sanitizer builds: they start
# clean in CI, where parsing the heavy headers once per batch of files, not per file, pays most.
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETPS_WERROR=ON -DHETPS_UNITY_BUILD=ON $(LINE_TABLES)

.PHONY: all deps build test test-sanitizers test-tsan test-fuzz demo bench format clean

all: build

deps:
	scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite, then the libtorch-free tests again under ASan + UBSan, and those of the
# threads engine's own synchronization under TSan (no libtorch: TSan cannot see inside
# libtorch's and OpenBLAS's thread pools), then the fuzz targets for a short while.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) test-sanitizers
	$(MAKE) test-tsan
	$(MAKE) test-fuzz

test-sanitizers: deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug $(LINE_TABLES) -DHETPS_WERROR=ON -DHETPS_UNITY_BUILD=ON -DHETPS_SANITIZE=ON \
	  -DHETPS_WITH_TORCH=OFF -DHETPS_BUILD_BENCH=OFF
	cmake --build $(SAN_BUILD) -j $(JOBS) --target hetps_core_tests
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# File by file, unlike the other make builds: so CI still compiles every core source on its own,
# which catches an include that a unity batch-mate would supply.
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LINE_TABLES) -DHETPS_WERROR=ON -DHETPS_UNITY_BUILD=OFF \
	  -DHETPS_TSAN=ON -DHETPS_WITH_TORCH=OFF -DHETPS_BUILD_BENCH=OFF
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target hetps_tsan_tests
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/tests/hetps_tsan_tests

# The libFuzzer targets of fuzz/ (clang; docs/architecture.md, "Hostile input"), each for
# FUZZ_SECONDS on a copy of its committed seed corpus, two at a time; a finding fails the target
# and its input stays under $(FUZZ_BUILD)/fuzz-runs/. Longer: `make test-fuzz FUZZ_SECONDS=600`.
# Optimized: -O2 ran three times the inputs a second of -O0 (measured on fuzz_config: 18,200
# against 6,200) for about 20 s more of building from clean.
test-fuzz: deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  $(LINE_TABLES) -DHETPS_WERROR=ON -DHETPS_FUZZ=ON -DHETPS_WITH_TORCH=OFF -DHETPS_BUILD_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	scripts/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Fetches Fashion-MNIST once, then compares every protocol hetps has (as `hetps protocols` lists
# them) on the default scenario, hetero-compute, three seeds each; prints the table and the path
# of the report (runs/demo/report/report.html).
DEMO_SEEDS ?= 3
demo: build
	$(BUILD)/hetps data fetch fashion-mnist
	$(BUILD)/hetps compare --seeds $(DEMO_SEEDS) --out runs/demo --force \
	  --protocols $$($(BUILD)/hetps protocols | awk '/^[a-z]/ { print $$1 }' | paste -sd, -)

bench: build
	$(BUILD)/bench/hetps_bench

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
