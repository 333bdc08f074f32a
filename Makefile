# Front door: `make run` and `make test` (README.md). Each installs what is missing,
# configures a Release build with CMake + Ninja, and builds.
BUILD ?= build/release
ASAN_BUILD ?= build/asan
SCENARIO ?= scenarios/dle-resnet50-a100.yaml
JOBS ?= $(shell nproc)

.PHONY: deps configure build build-cli run test asan fuzz bench validate update-golden clean

deps:
	@scripts/install-deps

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_WERROR=ON

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# `make run` builds only the command line, so a newcomer sees a result quickly.
build-cli: configure
	cmake --build $(BUILD) -j $(JOBS) --target gpuplan

run: build-cli
	$(BUILD)/cli/gpuplan run $(SCENARIO)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE gpu

validate: build-cli
	$(BUILD)/cli/gpuplan validate tests/validation

update-golden: build
	cd $(BUILD) && GPUPLAN_UPDATE_GOLDEN=1 ./tests/cli_tests -ts=cli.golden

bench: build
	$(BUILD)/bench/gpuplan_bench

# The ASan/UBSan suite: every test under clang with AddressSanitizer + UndefinedBehaviorSanitizer
# (scripts/configure-sanitize; the same build holds the fuzz targets).
asan: deps
	scripts/configure-sanitize $(ASAN_BUILD)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	# The MPI test is left out here: OpenMPI's own start-up allocations (libmpi and its
	# dlopen'ed components) are reported by LeakSanitizer; `make test` runs it.
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'gpu|mpi'

# libFuzzer targets of fuzz/ (clang, ASan + UBSan, built in ASAN_BUILD), each for
# FUZZ_SECONDS; fails on any crash, leak, timeout or out-of-memory (scripts/fuzz,
# fuzz/README.md). CI runs `make fuzz FUZZ_SECONDS=8 FUZZ_SEED=1`.
FUZZ_SECONDS ?= 60
# libFuzzer's seed: 0 draws one; CI gives 1, so its runs repeat.
FUZZ_SEED ?= 0
fuzz: deps
	JOBS=$(JOBS) FUZZ_BUILD=$(ASAN_BUILD) FUZZ_SEED=$(FUZZ_SEED) scripts/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build
