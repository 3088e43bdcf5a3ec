"""Column Mosaic GPU kernels: statistics over axis 0 (col_sum, batch_norm_1d), two
`plgpu.kernel`s each (the Mosaic twins of the Triton kernels in those task files; plumbing in
mosaic_stream).

Memory-bound: x is read once by the first kernel (and once more by batch_norm's normalizing
write). A column sum over thousands of rows needs many CTAs, so the work is a grid of column
strips (`strip` columns, 512-byte row segments at float32) by row parts:

1. column_partials: CTA (strip j, part k) streams its (br, strip) tiles through a `stages`-slot
   TMA ring (plgpu.emit_pipeline), adding each tile's values into float32 register tiles (the
   pipeline's carry: one add an element, no reduction per tile); at the end each tile is
   reduced over its rows (across the warps, through SMEM) and stored as row k of a (parts, cols)
   float32 partial array.
2. col_sum: one CTA a strip sums its (parts, strip) block of partials. batch_norm_1d: CTA (j, k)
   reads its strip's partials, forms the strip's mean and scale, and streams its tiles again,
   writing gamma * (x - mean) * rstd + beta through SMEM and TMA stores.

Accuracy (float32 at every dtype): col_sum sums split heads and tails apart
(reductions.split_for_sum; head sums are exact), as the Triton kernel does. batch_norm_1d works
on s = x - p, p the column's first element (exact where a column sits far from 0: the offset case
adds up to 1e3 a column), and keeps centred moments throughout: each register element runs
Welford's update over the rows it sees, the tile's rows and then the parts merge by Chan's
formula (M2 = sum M2_i + n * sum (mean_i - mean)^2, equal counts), and the output is
((x - p) - mean) * (gamma * rstd) + beta. A one-pass E[s^2] - E[s]^2 lost up to 2e-5 of the
output at float32 (the large case) where XLA's two-pass variance loses 4e-6.

Tunable under the task's `name` (pallasbench.task.tuning): "mosaic_strip", "mosaic_tile_elems",
"mosaic_stages", "mosaic_out_slots".
"""

from __future__ import annotations

import dataclasses
import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.kernels import reductions
from pallasbench.task import tuning

EPS = 1e-5  # batch_norm_1d's epsilon (its task file's EPS)


@dataclasses.dataclass(frozen=True)
class Config:
    strip: int = 32 * ms.VEC  # columns of a strip: one layout tile wide
    tile_elems: int = 4096  # elements of one tile
    stages: int = 4  # TMA ring slots
    out_slots: int = 2  # SMEM buffers batch_norm's output tiles rotate through


def config_for(name, **defaults) -> Config:
    """Config with the family's defaults (or `defaults`), each replaceable under mosaic_<field>."""
    base = dataclasses.replace(Config(), **defaults)
    return Config(**{f.name: tuning.choice(name, f"mosaic_{f.name}", getattr(base, f.name))
                     for f in dataclasses.fields(Config)})


@dataclasses.dataclass(frozen=True)
class Grid:
    br: int  # rows of a tile
    bc: int  # columns of a strip
    strips: int
    parts: int  # row parts: CTA (j, k) owns tiles k * steps ... (k + 1) * steps - 1 of strip j
    steps: int  # tiles of a part

    @property
    def ctas(self) -> int:
        return self.strips * self.parts


def grid_for(rows: int, cols: int, smem_per_cta: int, cfg: Config, name) -> Grid:
    bc = cfg.strip
    if bc % (32 * ms.VEC) or cols % bc:
        ms.refuse(name, f"{cols} columns: strips of {bc} (a multiple of {32 * ms.VEC}) must divide them")
    br = max(4, min(ms.MAX_BOX, cfg.tile_elems // bc))
    while rows % br and br > 4:
        br //= 2
    units = rows // br
    if rows % br or units % 4:
        ms.refuse(name, f"{rows} rows: at least 4 tiles of a multiple of 4 rows are needed")
    strips = cols // bc
    # Row parts: a multiple of 4 (the combining reads them in rows_layout), at most a TMA box.
    want = max(4, ms.max_ctas(smem_per_cta) // strips)
    parts = max(d for d in range(4, min(units, want, ms.MAX_BOX) + 1, 4) if units % d == 0)
    return Grid(br, bc, strips, parts, units // parts)


def _strip_and_part(g: Grid):
    cta = lax.axis_index("cta")
    return lax.div(cta, jnp.int32(g.parts)), lax.rem(cta, jnp.int32(g.parts))


def column_partials(fold, x, *, pivot: bool, name=None, config: Config | None = None,
                    interpret=ms.AUTO):
    """Per part k and column, fold's statistics of part k's rows, each a (parts, cols) float32
    array: fold = (n_out, init, step, finish) with init(lay, shape) -> state of (br, bc)
    tiles, step(state, v, s) -> state for the part's s-th tile v (float32; x - p with
    `pivot`, see _pivot), finish(lay, state, steps) -> n_out (bc,) column values. Returns (partials, grid)."""
    cfg = config or config_for(name)
    n_out = fold[0]
    rows, cols = x.shape
    tile_bytes = cfg.strip * max(4, min(ms.MAX_BOX, cfg.tile_elems // cfg.strip)) * x.dtype.itemsize
    smem = (cfg.stages + 1) * tile_bytes + n_out * 4 * cfg.strip
    g = grid_for(rows, cols, smem, cfg, name)
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_partials_kernel, fold=fold, g=g, pivot=pivot, stages=cfg.stages,
                             interpreting=interpret is not None)
    scratch = [gpu.SMEM((n_out, g.bc), jnp.float32), gpu.SMEM((g.br, g.bc), x.dtype),
               gpu.Barrier(num_arrivals=1, num_barriers=1)]
    outs = ms.launch(body, [x], [ms.struct((g.parts, cols), jnp.float32)] * n_out, ctas=g.ctas,
                     scratch=scratch, name=f"{name}_partials", interpret=interpret)
    return outs, g


def _pivot(x_gmem, tile_smem, barrier, lay, j, g: Grid):
    """(bc,): the float32 mean of strip j's first br rows, each column's pivot. Every CTA of the
    strip, in both kernels, computes it from the same tile by the same instructions, so all
    use the same values. Near the column's mean (within a few sigma / sqrt(br)), it keeps
    mean(x - p) small, so rounding it costs little; far from 0 (the offset case), x - p is
    exact. Row 0 alone as the pivot, up to 3 sigma off, cost 2 ulps of the output in the large
    case (the mean of x - p rounded at 3 sigma)."""
    gpu = ms.plgpu()
    gpu.copy_gmem_to_smem(x_gmem.at[pl.ds(0, g.br), pl.ds(j * g.bc, g.bc)], tile_smem, barrier)
    gpu.barrier_wait(barrier)
    return jnp.sum(lay.load(tile_smem), axis=0) * (1.0 / g.br)


def _partials_kernel(x_gmem, *refs, fold, g: Grid, pivot, stages, interpreting):
    gpu = ms.plgpu()
    n_out, init, step, finish = fold
    out_gmem, (sums_smem, pivot_smem, barrier) = refs[:n_out], refs[n_out:]
    lay = ms.Layouts(ms.rows_layout(), interpreting)
    j, k = _strip_and_part(g)
    if pivot:
        p = lay.spread(_pivot(x_gmem, pivot_smem, barrier.at[0], lay, j, g), (g.br, g.bc), 0)

    def body(indices, tile, state):
        v = lay.load(tile)
        ms.release_smem()  # the slot is refilled as the body returns
        return step(state, v - p if pivot else v, indices[0])

    spec = gpu.BlockSpec((g.br, g.bc), lambda s: (k * g.steps + s, j))
    # The race batch_norm_1d had at bfloat16 on the H100 (2026-12-06: not bit-identical across two
    # runs, 18291 of 4194304 elements off on another seed): finish's cross-warp reduction stored
    # into the ring's released slot 0 while a slower warp still loaded that tile (at MEDIUM each
    # CTA walks 2 tiles through a 2-slot ring of 8 KiB slots, exactly the 8 KiB reduction
    # scratch; float32's 4 slots of 16 KiB needed a warp three tiles behind). See release_smem.
    ms.release_smem()  # the pivot's reduction scratch becomes the ring's slot 0
    state = gpu.emit_pipeline(body, grid=(g.steps,), in_specs=[spec], init_carry=init(lay, (g.br, g.bc)),
                              max_concurrent_steps=min(stages, g.steps))(x_gmem)
    ms.release_smem()  # the ring becomes finish's reduction scratch
    for i, column in enumerate(finish(lay, state, g.steps)):
        sums_smem[i] = column
    gpu.commit_smem()
    for i in range(n_out):
        gpu.copy_smem_to_gmem(sums_smem.at[i], out_gmem[i].at[k, pl.ds(j * g.bc, g.bc)])
    gpu.wait_smem_to_gmem(0)


def _zero_tiles(n):
    return lambda lay, shape: tuple(lay.cast(jnp.zeros(shape, jnp.float32)) for _ in range(n))


def _add_split(state, v, s):
    return tuple(a + b for a, b in zip(state, reductions.split_for_sum(v, "int")))


# col_sum's fold: head and tail sums.
SPLIT_SUMS = (2, _zero_tiles(2), _add_split, lambda lay, st, steps: tuple(jnp.sum(a, axis=0) for a in st))


def _moments_step(state, v, s):
    """Each element's running mean and M2 (Welford) over its rows, the s-th tile's added."""
    mean, m2 = state
    delta = v - mean
    mean = mean + delta * (1.0 / (s + 1).astype(jnp.float32))
    return mean, m2 + delta * (v - mean)


def merge_moments(lay, means, m2s, count):
    """(mean, M2) of the (n, bc) tiles' columns, each row a group of `count` values (Chan)."""
    n = means.shape[0]
    mean = jnp.sum(means, axis=0) * (1.0 / n)
    d = means - lay.spread(mean, means.shape, 0)
    return mean, jnp.sum(m2s, axis=0) + count * jnp.sum(d * d, axis=0)


# batch_norm_1d's fold: per column mean and M2 of s = x - p.
MOMENTS = (2, _zero_tiles(2), _moments_step, lambda lay, st, steps: merge_moments(lay, *st, steps))


def col_sum(x, *, name="col_sum", config: Config | None = None, interpret=ms.AUTO):
    """x.sum(axis=0) at x's dtype, summed in float32 as split heads and tails."""
    (heads, tails), g = column_partials(SPLIT_SUMS, x, pivot=False, name=name, config=config,
                                        interpret=interpret)
    interpret = ms.interpret_for(interpret)
    gpu = ms.plgpu()
    scratch = [gpu.SMEM((2, g.parts, g.bc), jnp.float32), gpu.SMEM((g.bc,), x.dtype),
               gpu.Barrier(num_arrivals=2, num_barriers=1)]
    body = functools.partial(_combine_kernel, g=g, interpreting=interpret is not None)
    return ms.launch(body, [heads, tails], ms.struct((x.shape[1],), x.dtype), ctas=g.strips,
                     scratch=scratch, name=name, interpret=interpret)


def _combine_kernel(heads, tails, out_gmem, parts_smem, out_smem, barrier, *, g: Grid, interpreting):
    gpu = ms.plgpu()
    lay = ms.Layouts(ms.rows_layout(), interpreting)
    cols = pl.ds(lax.axis_index("cta") * g.bc, g.bc)
    for i, src in enumerate((heads, tails)):
        gpu.copy_gmem_to_smem(src.at[:, cols], parts_smem.at[i], barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    total = jnp.sum(lay.load(parts_smem.at[0]), axis=0) + jnp.sum(lay.load(parts_smem.at[1]), axis=0)
    out_smem[...] = total.astype(out_smem.dtype)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[cols])
    gpu.wait_smem_to_gmem(0)


def batch_norm_1d(x, gamma, beta, *, name="batch_norm_1d", config: Config | None = None,
                  interpret=ms.AUTO):
    """gamma * (x - mean0) / sqrt(var0 + eps) + beta, statistics over axis 0 (biased var)."""
    if gamma.shape != x.shape[1:] or beta.shape != x.shape[1:]:
        ms.refuse(name, f"gamma {gamma.shape} and beta {beta.shape} must be ({x.shape[1]},)")
    cfg = config or config_for(name)
    (means, m2s), g = column_partials(MOMENTS, x, pivot=True, name=name, config=cfg, interpret=interpret)
    interpret = ms.interpret_for(interpret)
    gpu = ms.plgpu()
    tile = (g.br, g.bc)
    scratch = [gpu.SMEM((2, g.parts, g.bc), jnp.float32), gpu.SMEM((2, g.bc), x.dtype), gpu.SMEM(tile, x.dtype),
               gpu.SMEM((cfg.out_slots, *tile), x.dtype), gpu.Barrier(num_arrivals=4, num_barriers=1),
               gpu.Barrier(num_arrivals=1, num_barriers=1)]
    tiles = (cfg.stages + 1 + cfg.out_slots) * g.br * g.bc * x.dtype.itemsize  # ring, pivot tile, outputs
    ms.check_smem(name, tiles + 2 * g.parts * g.bc * 4 + 2 * g.bc * x.dtype.itemsize, "the normalizing pass")
    body = functools.partial(_normalize_kernel, g=g, rows=x.shape[0], cfg=cfg,
                             interpreting=interpret is not None)
    return ms.launch(body, [x, means, m2s, gamma, beta], ms.struct(x.shape, x.dtype), ctas=g.ctas,
                     scratch=scratch, name=name, interpret=interpret)


def _normalize_kernel(x_gmem, means, m2s, gamma, beta, out_gmem, parts_smem, vec_smem, pivot_smem, out_smem,
                      barrier, pivot_barrier, *, g: Grid, rows, cfg, interpreting):
    gpu = ms.plgpu()
    lay = ms.Layouts(ms.rows_layout(), interpreting)
    j, k = _strip_and_part(g)
    cols = pl.ds(j * g.bc, g.bc)
    for i, src in enumerate((means, m2s)):
        gpu.copy_gmem_to_smem(src.at[:, cols], parts_smem.at[i], barrier.at[0])
    for i, src in enumerate((gamma, beta)):
        gpu.copy_gmem_to_smem(src.at[cols], vec_smem.at[i], barrier.at[0])
    p = _pivot(x_gmem, pivot_smem, pivot_barrier.at[0], lay, j, g)
    gpu.barrier_wait(barrier.at[0])
    mean, m2 = merge_moments(lay, lay.load(parts_smem.at[0]), lay.load(parts_smem.at[1]), g.steps * g.br)
    var = m2 * (1.0 / rows)  # of s = x - p, as of x
    scale = lay.load_reduced(vec_smem.at[0], 0) * ms.rsqrt_refined(var + EPS)
    # The column mean p + mean as hi + lo exactly (TwoSum): x - hi is exact where x sits near
    # it (the offset case), a single rounding elsewhere, as XLA's x - mean is.
    hi = p + mean
    back = hi - p
    lo = (p - (hi - back)) + (mean - back)
    shape = (g.br, g.bc)
    hi, lo = lay.spread(hi, shape, 0), lay.spread(lo, shape, 0)
    a, b = lay.spread(scale, shape, 0), lay.spread(lay.load_reduced(vec_smem.at[1], 0), shape, 0)
    store = ms.SlotStore(out_smem, cfg.out_slots)

    def body(indices, tile):
        (s,) = indices
        y = ((lay.load(tile) - hi) - lo) * a + b
        store.put(s, y.astype(out_smem.dtype), out_gmem.at[pl.ds((k * g.steps + s) * g.br, g.br), cols])

    spec = gpu.BlockSpec(shape, lambda s: (k * g.steps + s, j))
    ms.release_smem()  # the statistics' reduction scratch becomes the ring's slot 0
    gpu.emit_pipeline(body, grid=(g.steps,), in_specs=[spec],
                      max_concurrent_steps=min(cfg.stages, g.steps))(x_gmem)
    gpu.wait_smem_to_gmem(0)


KERNELS = {"col_sum": lambda x, interpret=ms.AUTO: col_sum(x, interpret=interpret),
           "batch_norm_1d": lambda x, gamma, beta, interpret=ms.AUTO: batch_norm_1d(x, gamma, beta,
                                                                                   interpret=interpret)}
