# PallasBench: `make run` sets up and runs the suite; `make test` sets up and runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
BUILD := build
JAX_VERSION := 0.10.2
APT_PACKAGES := cmake ninja-build g++ libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev zlib1g-dev
# The HTML report's test renders the page in a real browser.
TEST_APT_PACKAGES := chromium-headless-shell

.PHONY: all setup deps test-deps venv build run test test-variants ctest pytest clean dataset dataset-check

all: build

# Debian packages (skipped when already installed).
define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
endef

# What the C++ build needs.
deps:
	$(call apt_install,$(APT_PACKAGES))

# After deps, never beside them (make -j): apt-get holds one lock.
test-deps: deps
	$(call apt_install,$(TEST_APT_PACKAGES))

# The project's Python: jax pinned (CPU build), numpy, pytest. The CUDA headers go in first (a
# few seconds): the C++ build needs nothing else from the venv, so it can run beside the rest of
# the install (~25 s of one core).
venv: $(VENV)/.installed
$(VENV)/.headers: python/requirements-cuda-headers.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -r python/requirements-cuda-headers.txt
	touch $@
$(VENV)/.installed: python/requirements.txt $(VENV)/.headers
	$(VPY) -m pip install -q -r python/requirements.txt
	touch $@

# After the CUDA headers: the CUPTI timer library builds against what pip put in the venv.
build: deps $(VENV)/.headers
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD)

setup: build venv

# The suite at SMALL: on the GPU when JAX sees one, else in Pallas interpret mode on the CPU.
run: setup
	$(BUILD)/pallasbench run --size small --device auto

# One test process per core: each test is a process of its own with its own temporary folders
# (22 s -> 12 s on the 2-core CI machine; repeated at -j6 and in random order without a failure).
ctest: build
	cd $(BUILD) && ctest --output-on-failure -j$$(nproc)

# Two workers, whole files each (--dist loadfile keeps a file's module fixtures, such as the
# corpus's one eval per task, in one process), handed out slowest first in the order
# tests/conftest.py sets (--no-loadscope-reorder: xdist would sort them by number of tests).
pytest: setup test-deps
	$(VPY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder -m "not bench_variants" tests/python tests/e2e

# The bench/variants files' preflight (tests/conftest.py BENCH_VARIANTS): run it before a GPU probe.
test-variants: setup
	$(VPY) -m pytest -q -n 2 --dist loadfile -m bench_variants tests/python

# The installs and the build side by side (the build, pip and apt at once), then ctest and pytest
# one after the other, each with every core.
test:
	$(MAKE) -j3 setup test-deps
	$(MAKE) -j1 ctest pytest

# The PallasBench-Robust release (docs/dataset.md): dataset/README.md and dataset/data/ rebuilt
# from the committed records dataset/manifest.json names (the binary gives the filters' names).
dataset: setup
	PYTHONPATH=python $(VPY) -m pallasbench.tools.release --manifest dataset/manifest.json --to dataset

# The committed release is what its records make, byte for byte (~8 s: kept out of make test).
dataset-check: setup
	@scratch=$$(mktemp -d) && trap 'rm -rf "$$scratch"' EXIT && \
	  PYTHONPATH=python $(VPY) -m pallasbench.tools.release --manifest dataset/manifest.json --to "$$scratch" && \
	  cmp "$$scratch/README.md" dataset/README.md && diff -r "$$scratch/data" dataset/data && \
	  echo "dataset/: identical to its rebuild"

clean:
	rm -rf $(BUILD)
