# The two commands a newcomer needs: `make demo` and `make test`. Both install what is missing
# (Debian packages, via scripts/install-deps.sh) and build first.
JOBS ?= $(shell nproc)
BUILD ?= build
SAN_BUILD ?= build-asan
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETPS_WERROR=ON

.PHONY: all deps build test test-sanitizers demo bench format clean

all: build

deps:
	scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite, then the libtorch-free tests again under ASan + UBSan.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) test-sanitizers

test-sanitizers: deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHETPS_WERROR=ON -DHETPS_SANITIZE=ON \
	  -DHETPS_WITH_TORCH=OFF -DHETPS_BUILD_BENCH=OFF
	cmake --build $(SAN_BUILD) -j $(JOBS) --target hetps_core_tests
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# Fetches Fashion-MNIST once, then compares the baselines on the default scenario.
demo: build
	$(BUILD)/hetps data fetch fashion-mnist
	$(BUILD)/hetps compare --protocols bsp,asp,ssp,local_sgd --out runs/demo --force

bench: build
	$(BUILD)/bench/hetps_bench

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
