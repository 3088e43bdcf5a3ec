"""Probe of the CUPTI timer on the GPU machine: loads build/libpallasbench_timer.so next to the
libcupti JAX uses, times a 4096^2 f32 matmul in samples, prints the grouped records.
usage: python3 bench/results/2026-11-30-h200/scripts/probe_cupti.py
"""
import ctypes
import json
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

root = Path(__file__).resolve().parents[4]
import nvidia  # noqa: E402  (the namespace package of the pip CUDA libraries)

libdir = Path(list(nvidia.__path__)[0]) / "cu13" / "lib"
cupti = libdir / "libcupti.so.13"
print("libcupti:", cupti, cupti.exists())
lib = ctypes.CDLL(str(root / "build" / "libpallasbench_timer.so"))
err = ctypes.create_string_buffer(1024)
rc = lib.pb_timer_init(str(cupti).encode(), err, ctypes.c_size_t(len(err)))
print("init:", rc, err.value.decode())
x = jnp.ones((4096, 4096), jnp.float32)
f = jax.jit(lambda a: a @ a)
for _ in range(3):
    f(x).block_until_ready()
walls = []
for _ in range(20):
    jax.block_until_ready(x)
    lib.pb_timer_begin_sample()
    t0 = time.perf_counter()
    f(x).block_until_ready()
    walls.append((time.perf_counter() - t0) * 1e6)
    lib.pb_timer_end_sample()
lib.pb_timer_collect.restype = ctypes.c_size_t
buf = ctypes.create_string_buffer(1 << 20)
n = lib.pb_timer_collect(buf, ctypes.c_size_t(len(buf)))
data = json.loads(buf.value.decode())
print("samples", len(data["samples"]), "outside", data["outside"], "straddling", data["straddling"])
for s, w in zip(data["samples"], walls):
    print(f"sum {s['sum_us']:.1f} us span {s['span_us']:.1f} us wall {w:.1f} us kernels {s['kernels']}")
