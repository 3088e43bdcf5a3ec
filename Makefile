# PallasBench: `make run` sets up and runs the suite; `make test` sets up and runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
BUILD := build
JAX_VERSION := 0.10.2
APT_PACKAGES := cmake ninja-build g++ libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev
# The HTML report's test renders the page in a real browser.
TEST_APT_PACKAGES := chromium-headless-shell

.PHONY: all setup deps test-deps venv build run test ctest pytest clean

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

test-deps:
	$(call apt_install,$(TEST_APT_PACKAGES))

# The project's Python: jax pinned (CPU build), numpy, pytest.
venv: $(VENV)/.installed
$(VENV)/.installed: python/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -r python/requirements.txt
	touch $@

# After the venv: the CUPTI timer library builds against the CUDA headers pip put there.
build: deps venv
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
	$(VPY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder tests/python tests/e2e

test: ctest pytest

clean:
	rm -rf $(BUILD)
