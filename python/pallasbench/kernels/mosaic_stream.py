"""Shared plumbing of the memory-bound Mosaic GPU families (mosaic_elementwise, mosaic_rows,
mosaic_columns): one `plgpu.kernel` each (custom call `mosaic_gpu_v2`), never `pl.pallas_call`.

- Grid: `ctas` CTAs of one warpgroup (128 threads) each, named "cta". The work is cut into
  units (tiles, row blocks, column strips); CTA c owns units c * steps ... (c + 1) * steps - 1, a
  contiguous stretch of the arrays, and walks them with `plgpu.emit_pipeline` (TMA copies into
  a ring of `stages` SMEM slots, one barrier a slot). `ctas` is the largest divisor of the unit
  count within what the SMs hold at the kernel's shared memory (see `split_units`).
- Outputs leave through SMEM and TMA stores issued by the kernel (`SlotStore`), not through
  emit_pipeline's out_specs: JAX 0.10.2's Mosaic GPU interpreter cannot run the predicated
  copies emit_pipeline issues for outputs ("predicate not supported"), and the explicit store
  is the same TMA store on the GPU.
- Lowering semantics: Lane, with explicit layouts. Warpgroup semantics infers layouts itself,
  but on JAX 0.10.2 its inference ran for over six minutes on a CPU core before it was stopped
  on an eight-chunk softmax (Lane lowers it in 0.3 s), and reductions need layouts either way.
  Lane lowers every array op as written, so the layouts below are given wherever an array is
  loaded, reduced or broadcast.
- Layouts (`rows_layout`, `cols_layout`): 4-element vectors (16-byte loads at float32),
  a warp reading 512 contiguous bytes of one row at a time from an unswizzled SMEM tile, so no
  bank conflicts. `rows_layout` gives each warp whole rows (4 rows a tile of (4, 128)), so a
  reduction along a row is a shuffle within one warp; `cols_layout` spreads one row over the 4
  warps ((1, 512) tiles) for rows too wide to hold 4 of them, its row reductions crossing warps
  through SMEM scratch (`REDUCTION_SCRATCH`). Vectors stay at 4 elements at 16-bit dtypes:
  Mosaic's cross-warp reduction refuses float32 vectors of 8 ("Unoptimized configuration").
- Interpret mode (JAX's Mosaic GPU interpreter, the CPU): 0.10.2's interpreter has no rule for
  `layout_cast` and cannot reshape an SMEM ref, so `Layouts` skips the casts there and the row
  family reshapes values instead of refs. The numbers are the same: layouts only say which
  thread holds which element.
- Barriers are allocated with num_barriers=1 and indexed `.at[0]`: the default allocation has
  shape (1,) on JAX 0.10.2 and () on 0.11.2.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_matmul

NUM_SMS = mosaic_matmul.NUM_SMS
# A TMA box has at most this many elements along each dimension.
MAX_BOX = 256
# 1D copies move a multiple of this many bytes (Mosaic splits them over the warpgroup).
COPY_QUANTUM = 128
# Elements a thread holds in one vector register of the layouts below.
VEC = 4
# SMEM reserved for cross-warp reductions (cols_layout rows, column sums): 2 KB is JAX's default,
# too little for a (16, 128) tile reduced over its rows.
REDUCTION_SCRATCH = 8192
# Shared memory a CTA may use on Hopper, less the barriers and the reduction scratch.
SMEM_BYTES = mosaic_matmul.SMEM_BYTES - REDUCTION_SCRATCH
# CTAs an SM holds at most (one warpgroup each): enough warps to hide the arithmetic of the
# longer elementwise bodies (gelu, mish) behind the loads.
MAX_CTAS_PER_SM = 4
AUTO = "auto"


def plgpu():
    """jax.experimental.pallas.mosaic_gpu, imported on first use (it imports absl-py)."""
    from jax.experimental.pallas import mosaic_gpu

    return mosaic_gpu


def interpret_for(interpret):
    """The `interpret` argument of plgpu.kernel: AUTO passes none inside the tracer, whose choice
    stands (the CPU tracer's exportable interpreter rules, or a real lowering: worker/interpret.py
    forced()); elsewhere it follows the worker's interpret mode (JAX's Mosaic GPU interpreter in
    a CPU process, which cannot be exported, a real lowering otherwise). None lowers for the GPU;
    anything else is passed as it is."""
    if interpret is not AUTO:
        return interpret
    from pallasbench.worker import interpret as worker_interpret

    if worker_interpret.tracer_decides():
        return None
    return mosaic_matmul.interpret_params() if worker_interpret.interpreting() else None


def rows_layout(vec: int = VEC):
    """Warps own rows: (4, 32 vec) tiles, warp w holding row w of each, its 32 lanes `vec`
    columns each (vec < VEC only for rows narrower than 128 columns)."""
    gpu = plgpu()
    return gpu.Layout.TILED(gpu.Tiling(((4, 32 * vec), (vec,))), warp_dims=(-3,), lane_dims=(-2,),
                            vector_dim=-1)


def cols_layout():
    """Warps split rows: (1, 512) tiles, warp w holding columns 128w..128w+127 of each."""
    gpu = plgpu()
    return gpu.Layout.TILED(gpu.Tiling(((1, 128 * VEC), (32 * VEC,), (VEC,))), warp_dims=(-3,),
                            lane_dims=(-2,), vector_dim=-1)


@dataclasses.dataclass(frozen=True)
class Layouts:
    """The layout of a family's (rows, cols) arrays, cast where Lane semantics needs to be told:
    loads, broadcasts, iotas. No casts in interpret mode (see the module docstring)."""

    layout: object
    interpreting: bool

    def cast(self, value, layout=None):
        return value if self.interpreting else plgpu().layout_cast(value, layout or self.layout)

    def load(self, ref):
        """A 2D ref's value in the layout, as float32 (integer refs keep their type)."""
        value = self.cast(ref[...])
        return value.astype(jnp.float32) if jnp.issubdtype(value.dtype, jnp.floating) else value

    def load_reduced(self, ref, axis: int):
        """A 1D ref's value in the layout with `axis` reduced (a bias row: axis 0; one value
        per row: axis 1), floats as float32."""
        value = self.cast(ref[...], self.layout.reduce(axis))
        return value.astype(jnp.float32) if jnp.issubdtype(value.dtype, jnp.floating) else value

    def spread(self, value, shape, axis: int):
        """A reduced 1D value broadcast back along `axis` to the 2D `shape`."""
        return self.cast(lax.broadcast_in_dim(value, shape, (1 - axis,)))

    def iota(self, shape, axis: int):
        return self.cast(lax.broadcasted_iota(jnp.int32, shape, axis))


def split_units(units: int, max_ctas: int) -> tuple[int, int]:
    """(ctas, steps): the most CTAs, at most max_ctas, that divide `units` evenly."""
    ctas = max(d for d in range(1, min(units, max(1, max_ctas)) + 1) if units % d == 0)
    return ctas, units // ctas


def max_ctas(smem_per_cta: int) -> int:
    """CTAs the GPU holds at once with `smem_per_cta` bytes of shared memory each."""
    return NUM_SMS * max(1, min(MAX_CTAS_PER_SM, SMEM_BYTES // max(1, smem_per_cta)))


def check_smem(name: str, used: int, what: str) -> None:
    if used > SMEM_BYTES:
        raise ValueError(f"{name}: {what} needs {used} bytes of shared memory a CTA, more than the "
                         f"{SMEM_BYTES} a Hopper CTA has beside the reduction scratch; use fewer "
                         "stages or smaller blocks")


class SlotStore:
    """Results written to SMEM and stored by TMA, `slots` SMEM buffers in rotation: a slot is
    rewritten only once the store that last read it has finished reading."""

    def __init__(self, smem, slots: int):
        self.smem, self.slots = smem, slots

    def put(self, step, value, dst, *, reshape=None):
        """value -> the slot of `step` -> dst (a GMEM view of the slot's shape). `reshape`: the
        shape the slot is written as (the row family's (br, cols) view of a 3D slot)."""
        gpu = plgpu()
        slot = lax.rem(step, jnp.int32(self.slots))
        gpu.wait_smem_to_gmem(self.slots - 1, wait_read_only=True)
        target = self.smem.at[slot]
        if reshape is None:
            target[...] = value
        else:
            target.reshape(*reshape)[...] = value
        gpu.commit_smem()
        gpu.copy_smem_to_gmem(target, dst)


def release_smem() -> None:
    """Every warp's shared-memory accesses so far, ordered before any later write to that memory
    (a warpgroup barrier, and an async-proxy fence for TMA writes): `commit_smem`. Two places
    need it where Mosaic GPU puts no barrier of its own:

    - A pipeline body that only reads its tiles (no SlotStore, whose waits are barriers): once
      the body returns, emit_pipeline's one elected thread refills the slot for a later step
      (JAX 0.10.2 and 0.11.2 pipeline.py: no barrier before `copy_in` without out_specs), while
      a slower warp may still be loading its rows of it. End such a body with this.
    - Shared memory reused across a released run_scoped allocation: emit_pipeline's TMA ring is
      one, released at the pipeline's end without a barrier ("we don't synchronize when we exit
      the allocation", pallas/mosaic_gpu/lowering.py), and a cross-warp reduction takes its
      scratch at the same offset, storing into it before its first barrier. A warp reducing
      right after the pipeline then overwrote the ring's slot 0 while a slower warp still read
      it (batch_norm_1d's bfloat16 race, mosaic_columns). Call this between a pipeline and a
      cross-warp reduction, either way round."""
    plgpu().commit_smem()


def store_range(smem, gmem, start, count: int) -> None:
    """smem[0:count] -> gmem[start:start + count] in TMA copies of at most MAX_BOX elements."""
    gpu = plgpu()
    gpu.commit_smem()
    for off in range(0, count, MAX_BOX):
        n = min(MAX_BOX, count - off)
        gpu.copy_smem_to_gmem(smem.at[pl.ds(off, n)], gmem.at[pl.ds(start + off, n)])


def load_range(gmem, smem, barrier, start, count: int) -> None:
    """gmem[start:start + count] -> smem[0:count], copies of at most MAX_BOX elements arriving
    on `barrier` (range_copies(count) of them: the barrier's arrival count must include them)."""
    gpu = plgpu()
    for off in range(0, count, MAX_BOX):
        n = min(MAX_BOX, count - off)
        gpu.copy_gmem_to_smem(gmem.at[pl.ds(start + off, n)], smem.at[pl.ds(off, n)], barrier)


def range_copies(count: int) -> int:
    return -(-count // MAX_BOX)


def launch(body, operands, out_type, *, ctas: int, scratch, name: str, interpret):
    """Runs body(*in_refs, *out_refs, *scratch_refs) on `ctas` one-warpgroup CTAs (axis "cta")."""
    gpu = plgpu()
    body = functools.partial(body)
    body.__name__ = name or "mosaic_kernel"  # the kernel's name in profiles
    call = gpu.kernel(
        body,
        out_type=out_type,
        scratch_types=scratch,
        grid=(ctas,),
        grid_names=("cta",),
        compiler_params=gpu.CompilerParams(lowering_semantics=gpu.LoweringSemantics.Lane,
                                           reduction_scratch_bytes=REDUCTION_SCRATCH),
        interpret=interpret,
    )
    return call(*operands)


def rsqrt_refined(v):
    """1 / sqrt(v) to about an ulp: rsqrt and one Newton step. rsqrt alone is off by two ulps
    or more, which reaches an output unshrunk where it is a scale (batch_norm_1d: 3 outputs of
    65536 past the tolerance in its large case at SMALL)."""
    r = lax.rsqrt(v)
    return r * (1.5 - (0.5 * v) * (r * r))


def sqrt_refined(v):
    """sqrt(v) for v >= 0 through rsqrt_refined (JAX 0.10.2's Mosaic GPU has no sqrt rule);
    0 at 0, where v * rsqrt(v) would be 0 * inf."""
    return jnp.where(v > 0.0, v * rsqrt_refined(v), 0.0)


def refuse(name: str, why: str) -> None:
    raise ValueError(f"{name}: the Mosaic GPU kernel cannot run this: {why}")


def is_float(dtype) -> bool:
    return jnp.issubdtype(jnp.dtype(dtype), jnp.floating)


def out_float_dtype(operands, out_dtype=None):
    """out_dtype, else the first float operand's dtype."""
    if out_dtype is not None:
        return jnp.dtype(out_dtype)
    return next(jnp.dtype(a.dtype) for a in operands if is_float(a.dtype))


def struct(shape, dtype):
    return jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype))
