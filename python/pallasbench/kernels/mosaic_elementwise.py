"""Elementwise Mosaic GPU kernels: one `plgpu.kernel` mapping a task's function over row-major
tiles (the Mosaic twin of kernels/elementwise.py's map_blocks; plumbing in mosaic_stream).

Memory-bound: each element is read once per input and written once. Tiles are (br, bc): bc
columns (at most a TMA box, 256, and a multiple of the layout's 128-column tile), br rows filling
`block_bytes` of the widest input (16 KB: 16 x 256 float32, 32 x 256 bfloat16). CTA c streams
tiles c * steps ... (c + 1) * steps - 1 (row-major, so a CTA reads one contiguous stretch)
through a `stages`-slot TMA ring (`plgpu.emit_pipeline`); results go back through `out_slots`
SMEM buffers and TMA stores. At 16 KB tiles and 4 stages a unary op uses 96 KB of shared memory:
two CTAs an SM, 6 tiles (96 KB) of loads in flight per SM.

Operands are (rows, cols) matrices, tiled alike, or (cols,) vectors (a bias) of which each tile
gets its bc slice, broadcast down the rows in the kernel. `fn` sees every float operand as
float32 (integer operands keep their type) in mosaic_stream.rows_layout and returns the tile,
cast once to the output dtype on store: one rounding, as the reference rounds.

Tunable under the task's `name` (pallasbench.task.tuning): "mosaic_block_bytes",
"mosaic_stages", "mosaic_out_slots".

Math the Mosaic lowering lacks (JAX 0.10.2 and 0.11.2 have no log1p/expm1/sqrt rules) is
written with the primitives it has: `log1p` and `expm1` below keep full float32 accuracy near 0
(Goldberg's and Kahan's forms), `rsqrt` is lax.rsqrt.
"""

from __future__ import annotations

import dataclasses
import functools

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.task import tuning


@dataclasses.dataclass(frozen=True)
class Config:
    block_bytes: int = 16384  # bytes of the widest input's tile
    stages: int = 4  # TMA ring slots per input
    out_slots: int = 2  # SMEM buffers the results rotate through


def config_for(name) -> Config:
    """Config's defaults, each replaceable under `mosaic_<field>` (tuning.choice)."""
    return Config(**{f.name: tuning.choice(name, f"mosaic_{f.name}", f.default)
                     for f in dataclasses.fields(Config)})


def _dividing(n: int, cap: int, quantum: int) -> int | None:
    """The largest multiple of quantum, at most cap, dividing n (None if there is none)."""
    d = min(cap, n) // quantum * quantum
    while d >= quantum and n % d:
        d -= quantum
    return d if d >= quantum else None


def plan(shape, in_itemsizes, cfg: Config, name=None):
    """(br, bc): the tile of a (rows, cols) array whose widest input has max(in_itemsizes)."""
    rows, cols = shape
    bc = _dividing(cols, ms.MAX_BOX, 32 * ms.VEC)
    if bc is None:
        ms.refuse(name, f"{cols} columns: no multiple of {32 * ms.VEC} up to {ms.MAX_BOX} divides them")
    want = max(4, cfg.block_bytes // (bc * max(in_itemsizes)))
    br = _dividing(rows, min(want, ms.MAX_BOX), 4)
    if br is None:
        ms.refuse(name, f"{rows} rows: not a multiple of 4")
    return br, bc


def map_blocks(fn, *operands, out_dtype=None, name=None, config: Config | None = None,
               interpret=ms.AUTO):
    """fn(*values) -> tile over (br, bc) tiles of the first operand; the output has its shape
    and out_dtype (default: the first float operand's dtype). See the module docstring."""
    x = operands[0]
    if x.ndim != 2 or any(a.ndim == 2 and a.shape != x.shape or a.ndim == 1 and a.shape != x.shape[1:]
                          or a.ndim not in (1, 2) for a in operands):
        ms.refuse(name, f"operands {[a.shape for a in operands]}: (rows, cols) matrices of one shape "
                        "or (cols,) vectors")
    cfg = config or config_for(name)
    out_dtype = ms.out_float_dtype(operands, out_dtype)
    br, bc = plan(x.shape, [a.dtype.itemsize for a in operands], cfg, name)
    rows, cols = x.shape
    tiles_c = cols // bc
    in_bytes = sum((br if a.ndim == 2 else 1) * bc * a.dtype.itemsize for a in operands)
    out_bytes = br * bc * out_dtype.itemsize
    smem = cfg.stages * in_bytes + cfg.out_slots * out_bytes
    ms.check_smem(name, smem, f"{cfg.stages} stages of {br} x {bc} tiles")
    ctas, steps = ms.split_units(rows // br * tiles_c, ms.max_ctas(smem))
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_kernel, fn=fn, ndims=[a.ndim for a in operands], tile=(br, bc),
                             tiles_c=tiles_c, steps=steps, cfg=cfg, interpreting=interpret is not None)
    return ms.launch(body, operands, ms.struct(x.shape, out_dtype), ctas=ctas,
                     scratch=[ms.plgpu().SMEM((cfg.out_slots, br, bc), out_dtype)], name=name,
                     interpret=interpret)


def _kernel(*refs, fn, ndims, tile, tiles_c, steps, cfg, interpreting):
    gpu = ms.plgpu()
    n_in = len(ndims)
    in_gmem, out_gmem, out_smem = refs[:n_in], refs[n_in], refs[n_in + 1]
    br, bc = tile
    lay = ms.Layouts(ms.rows_layout(), interpreting)
    cta = lax.axis_index("cta")

    def tile_at(s):
        t = cta * steps + s
        return lax.div(t, jnp.int32(tiles_c)), lax.rem(t, jnp.int32(tiles_c))

    specs = [gpu.BlockSpec((br, bc), tile_at) if nd == 2 else gpu.BlockSpec((bc,), lambda s: tile_at(s)[1:])
             for nd in ndims]
    store = ms.SlotStore(out_smem, cfg.out_slots)

    def step(indices, *in_smem):
        (s,) = indices
        values = [lay.load(r) if nd == 2 else lay.spread(lay.load_reduced(r, 0), (br, bc), 0)
                  for r, nd in zip(in_smem, ndims)]
        i, j = tile_at(s)
        store.put(s, fn(*values).astype(out_smem.dtype),
                  out_gmem.at[pl.ds(i * br, br), pl.ds(j * bc, bc)])

    gpu.emit_pipeline(step, grid=(steps,), in_specs=specs,
                      max_concurrent_steps=min(cfg.stages, steps))(*in_gmem)
    gpu.wait_smem_to_gmem(0)


# ---- float32 math the Mosaic lowering has no rule for -------------------------------------

def log1p(e):
    """log(1 + e) for e >= -0.5 to float32 accuracy near 0 (Goldberg): u = 1 + e rounds, and
    log(u) * e / (u - 1) undoes the rounding; where u rounds to 1, log1p(e) = e."""
    u = 1.0 + e
    d = u - 1.0
    return jnp.where(d == 0.0, e, jnp.log(u) * (e / d))


def expm1(x):
    """exp(x) - 1 to float32 accuracy near 0 (Kahan): (u - 1) * x / log(u), u = exp(x); exact
    limits where u rounds to 1 (x) or to 0 (-1). Used where x <= 0 (elu); x > 88 gives NaN."""
    u = jnp.exp(x)
    d = u - 1.0
    kahan = jnp.where(d == 0.0, x, jnp.where(d == -1.0, -1.0, d * x / jnp.log(u)))
    # Near 0 the quotient inherits exp's and log's own rounding (1.2e-5 relative on the CPU's
    # tiny stress case): the Taylor series to x^5 is float32-exact for |x| < 1/32.
    taylor = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return jnp.where(jnp.abs(x) < 1.0 / 32.0, taylor, kahan)


# Rounded to float32 exactly as jax.nn.gelu rounds it.
_SQRT_2_OVER_PI = float(np.float32(np.sqrt(2.0 / np.pi)))


def gelu(x):
    """jax.nn.gelu(x, approximate=True), the same operations."""
    return x * (0.5 * (1.0 + jnp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x)))))


def softplus(x):
    """max(x, 0) + log1p(exp(-|x|)): stable for any x."""
    return jnp.maximum(x, 0.0) + log1p(jnp.exp(-jnp.abs(x)))


def _mish(x):
    # Past x = 20, tanh(softplus(x)) rounds to 1 in float32; clamping there keeps n finite.
    e = jnp.exp(jnp.minimum(x, 20.0))
    n = e * (e + 2.0)
    return jnp.where(x > 20.0, x, x * n / (n + 2.0))


KEEP_PROB = 0.9  # fused_bias_gelu_dropout's keep probability (its task file's KEEP_PROB)

# Task name -> the function of float32 tiles the task's kernel maps.
BODIES = {
    "relu": lambda x: jnp.maximum(x, 0.0),
    "leaky_relu": lambda x: jnp.where(x >= 0.0, x, 0.01 * x),
    "gelu": gelu,
    "silu": lambda x: x / (1.0 + jnp.exp(-x)),
    "sigmoid": lambda x: 1.0 / (1.0 + jnp.exp(-x)),
    "tanh": jnp.tanh,
    "softplus": softplus,
    "elu": lambda x: jnp.where(x > 0.0, x, expm1(x)),
    "hardswish": lambda x: x * jnp.clip(x + 3.0, 0.0, 6.0) / 6.0,
    "mish": _mish,
    "exp": jnp.exp,
    "log": jnp.log,
    "rsqrt": lax.rsqrt,
    "clamp": lambda x: jnp.clip(x, -1.0, 1.0),
    "add": lambda x, y: x + y,
    "multiply": lambda x, y: x * y,
    "maximum": jnp.maximum,
    "fused_gelu_bias": lambda x, b: gelu(x + b),
    "fused_bias_gelu_dropout": lambda x, b, keep: gelu(x + b) * keep.astype(jnp.float32) / KEEP_PROB,
    "sigmoid_bce": lambda z, t: jnp.maximum(z, 0.0) - z * t + log1p(jnp.exp(-jnp.abs(z))),
}


def kernel_for(task: str):
    """The task's Mosaic GPU kernel: kernel(*inputs, interpret=AUTO) -> output."""
    body = BODIES[task]

    def kernel(*inputs, interpret=ms.AUTO):
        return map_blocks(body, *inputs, name=task, interpret=interpret)

    kernel.__name__ = f"{task}_mosaic"
    return kernel


KERNELS = {task: kernel_for(task) for task in BODIES}
