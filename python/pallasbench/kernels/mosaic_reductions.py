"""Per-row Mosaic GPU reductions: one value a row (reduce_sum/max/mean, the per-row losses) in
one `plgpu.kernel` (the Mosaic twin of kernels/reductions.py's reduce_rows and row_values;
plumbing in mosaic_stream).

Memory-bound: every input read once, one value a row written. Rows are streamed as (br, bc)
column tiles (bc: at most a TMA box, 256 columns), folded into a per-row state carried across a
row's tiles: `state = step(tile, state, *values)` from `init(tile)`, then `finish(tile, state)`
once the row's last tile is in. No row is ever held whole, so any width streams (the Triton
family's wide rows take a second pass; this fold needs none: cross_entropy's softmax is online).
CTA c owns row blocks c * steps ... (c + 1) * steps - 1 and walks their tiles in row order
through a `stages`-slot TMA ring (plgpu.emit_pipeline over (steps, tiles a row), the state its
carry). Tiles are in mosaic_stream.rows_layout: each warp folds whole rows, so every row
reduction is a warp shuffle. The CTA's results collect in SMEM and leave in one TMA copy at the
end; a per-row input (cross_entropy's labels) comes in the same way at the start. Copies of one
dimension move multiples of 128 bytes: a CTA owns at least 32 rows of a 4-byte per-row array (64
of a 2-byte one).

Tunable under the task's `name` (pallasbench.task.tuning): "mosaic_tile_elems" (float32
values of one tile, all inputs together), "mosaic_stages".

Accuracy: states are float32 at every dtype. reduce_sum folds heads and tails apart
(reductions.split_for_sum: the head sums are exact), as the Triton kernel does. The softmax
losses fold an online max: cross_entropy keeps (max, rescaled exp-sum, the label's logit) and
returns (max - logit) + log(sum), exact where logits sit far from 0 (the offset case);
fused_softmax_cross_entropy keeps sum(y * (z - max)), shifted as the max grows, beside sum(y).
cosine_sim keeps x.y, x.x and y.y; its square roots are Newton-refined rsqrts (no sqrt rule on
JAX 0.10.2).
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

COSINE_EPS = 1e-8  # cosine_sim's epsilon (its task file's EPS)


@dataclasses.dataclass(frozen=True)
class Config:
    tile_elems: int = 8192  # float32 values of one tile, all (rows, cols) inputs together
    stages: int = 4  # TMA ring slots per input


def config_for(name) -> Config:
    return Config(**{f.name: tuning.choice(name, f"mosaic_{f.name}", f.default)
                     for f in dataclasses.fields(Config)})


class Tile:
    """What the fold's functions reduce and broadcast with: a (br, bc) tile of a row block,
    its first column `col0` (traced) of `cols`."""

    def __init__(self, lay: ms.Layouts, br: int, bc: int, cols: int, col0):
        self.lay, self.br, self.bc, self.cols, self.col0 = lay, br, bc, cols, col0

    def sum(self, v):
        return jnp.sum(v, axis=1)

    def max(self, v):
        return jnp.max(v, axis=1)

    def spread(self, v):
        """(br,) per-row values -> (br, bc), each row's value across it."""
        return self.lay.spread(v, (self.br, self.bc), 1)

    def column(self):
        """(br, bc) int32: each element's column in the whole row."""
        return self.lay.iota((self.br, self.bc), 1) + self.col0

    def full(self, value):
        """(br,) per-row state filled with `value` (a fold's init)."""
        return self.lay.cast(jnp.full((self.br,), value, jnp.float32), self.lay.layout.reduce(1))


def _tile_shape(rows: int, cols: int, n_matrices: int, row_itemsizes, cfg: Config, name):
    if cols % 32 or cols > ms.MAX_BOX and cols % ms.MAX_BOX:
        ms.refuse(name, f"{cols} columns: a multiple of 32 (of {ms.MAX_BOX} past it) is needed")
    bc = min(cols, ms.MAX_BOX)
    want = max(4, cfg.tile_elems // (bc * n_matrices))
    br = 4
    while br * 2 <= min(want, ms.MAX_BOX) and rows % (br * 2) == 0:
        br *= 2
    quantum = max(ms.COPY_QUANTUM // s for s in row_itemsizes)
    if rows % br or rows % quantum:
        ms.refuse(name, f"{rows} rows: a multiple of 4 and of {quantum} (per-row arrays move in "
                        f"{ms.COPY_QUANTUM}-byte copies) is needed")
    return br, bc, quantum


def reduce_rows(step, init, finish, *operands, out_dtype=None, name=None, config: Config | None = None,
                interpret=ms.AUTO):
    """(rows,) from (rows, cols) and (rows,) operands: per row, state = init(tile), then
    state = step(tile, state, *values) over its column tiles in order (values: the (br, bc)
    tiles of the (rows, cols) operands as float32, the (br,) blocks of the (rows,) ones, in
    operand order), then finish(tile, state) -> (br,). The output has the first operand's
    dtype (out_dtype if given)."""
    x = operands[0]
    rows, cols = x.shape
    if x.ndim != 2 or any(a.shape not in (x.shape, (rows,)) for a in operands):
        ms.refuse(name, f"operands {[a.shape for a in operands]}: (rows, cols) and (rows,) arrays")
    cfg = config or config_for(name)
    out_dtype = ms.out_float_dtype(operands, out_dtype)
    kinds = [a.ndim for a in operands]
    mats = [a for a in operands if a.ndim == 2]
    row_sizes = [a.dtype.itemsize for a in operands if a.ndim == 1] + [out_dtype.itemsize]
    br, bc, quantum = _tile_shape(rows, cols, len(mats), row_sizes, cfg, name)
    tile_bytes = sum(br * bc * a.dtype.itemsize for a in mats)
    units = rows // br

    def smem_of(ctas):  # the ring and the CTA's stretch of every per-row array
        return cfg.stages * tile_bytes + rows // ctas * sum(row_sizes)

    ctas = max(d for d in range(1, units + 1) if units % d == 0 and rows // d % quantum == 0
               and d <= ms.max_ctas(smem_of(d)))
    ms.check_smem(name, smem_of(ctas), f"{cfg.stages} stages of {br} x {bc} tiles and {rows // ctas} rows")
    rows_per_cta = rows // ctas
    gpu = ms.plgpu()
    scratch = [gpu.SMEM((rows_per_cta,), out_dtype)]
    scratch += [gpu.SMEM((rows_per_cta,), a.dtype) for a in operands if a.ndim == 1]
    n_copies = ms.range_copies(rows_per_cta) * kinds.count(1)
    scratch += [gpu.Barrier(num_arrivals=n_copies, num_barriers=1)] if n_copies else []
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_kernel, fns=(step, init, finish), kinds=kinds, tile=(br, bc), cols=cols,
                             steps=rows_per_cta // br, stages=cfg.stages,
                             vec=min(ms.VEC, bc // 32), interpreting=interpret is not None)
    return ms.launch(body, operands, ms.struct((rows,), out_dtype), ctas=ctas, scratch=scratch,
                     name=name, interpret=interpret)


def _kernel(*refs, fns, kinds, tile, cols, steps, stages, vec, interpreting):
    gpu = ms.plgpu()
    step_fn, init_fn, finish_fn = fns
    n_in, n_rows_in = len(kinds), kinds.count(1)
    in_gmem, out_gmem, out_smem = refs[:n_in], refs[n_in], refs[n_in + 1]
    row_smem = refs[n_in + 2:n_in + 2 + n_rows_in]
    br, bc = tile
    tiles_c = cols // bc
    lay = ms.Layouts(ms.rows_layout(vec), interpreting)
    cta = lax.axis_index("cta")
    first_row = cta * (steps * br)
    if n_rows_in:  # the CTA's stretch of each per-row input, before the pipeline starts
        barrier = refs[-1].at[0]
        for g, smem in zip([g for g, k in zip(in_gmem, kinds) if k == 1], row_smem):
            ms.load_range(g, smem, barrier, first_row, steps * br)
        gpu.barrier_wait(barrier)

    def body(indices, *tiles_and_state):
        *tiles, state = tiles_and_state
        s, c = indices
        t = Tile(lay, br, bc, cols, c * bc)
        tiles, row_values = iter(tiles), iter(row_smem)
        values = [lay.load(next(tiles)) if k == 2
                  else lay.load_reduced(next(row_values).at[pl.ds(s * br, br)], 1) for k in kinds]
        ms.release_smem()  # the tiles' slot is refilled as the body returns
        state = lax.cond(c == 0, lambda: init_fn(t), lambda: state)
        state = step_fn(t, state, *values)

        @pl.when(c == tiles_c - 1)
        def _():
            out_smem[pl.ds(s * br, br)] = finish_fn(t, state).astype(out_smem.dtype)

        return state

    spec = gpu.BlockSpec((br, bc), lambda s, c: (cta * steps + s, c))
    gpu.emit_pipeline(body, grid=(steps, tiles_c), in_specs=[spec] * kinds.count(2),
                      max_concurrent_steps=min(stages, steps * tiles_c),
                      init_carry=init_fn(Tile(lay, br, bc, cols, 0)))(*[g for g, k in zip(in_gmem, kinds) if k == 2])
    ms.store_range(out_smem, out_gmem, first_row, steps * br)
    gpu.wait_smem_to_gmem(0)


# ---- the tasks' folds ----------------------------------------------------------------------

def _split_sums(t, state, x):
    head, tail = reductions.split_for_sum(x, "int")
    return state[0] + t.sum(head), state[1] + t.sum(tail)


def _huber(d):
    a = jnp.abs(d)
    return jnp.where(a <= 1.0, 0.5 * d * d, a - 0.5)  # delta = 1 (huber_loss's DELTA)


def _cross_entropy_step(t, state, x, labels):
    m, s, logit = state
    m_new = jnp.maximum(m, t.max(x))
    s = s * jnp.exp(m - m_new) + t.sum(jnp.exp(x - t.spread(m_new)))
    # The label's logit: one column of the row matches, in one tile; the others add 0 exactly.
    logit = logit + t.sum(jnp.where(t.column() == t.spread(labels), x, 0.0))
    return m_new, s, logit


def _softmax_ce_step(t, state, z, y):
    """state: the max m, sum(exp(z - m)), sum(y * (z - m)) and sum(y) of the tiles so far."""
    m, s, dot, ysum = state
    m_new = jnp.maximum(m, t.max(z))
    s = s * jnp.exp(m - m_new) + t.sum(jnp.exp(z - t.spread(m_new)))
    # sum(y * (z - m)) moves by (m_new - m) * sum(y) (0 before any tile: m starts at -inf).
    shift = jnp.where(ysum == 0.0, 0.0, (m_new - m) * ysum)
    dot = dot - shift + t.sum(y * (z - t.spread(m_new)))
    return m_new, s, dot, ysum + t.sum(y)


def _cosine_step(t, state, x, y):
    dot, xx, yy = state
    return dot + t.sum(x * y), xx + t.sum(x * x), yy + t.sum(y * y)


def _cosine_finish(t, state):
    dot, xx, yy = state
    return dot / (ms.sqrt_refined(xx) * ms.sqrt_refined(yy) + COSINE_EPS)


def _zeros(n):
    return lambda t: tuple(t.full(0.0) for _ in range(n))


# Task name -> (step, init, finish).
FOLDS = {
    "reduce_sum": (_split_sums, _zeros(2), lambda t, st: st[0] + st[1]),
    "reduce_max": (lambda t, m, x: jnp.maximum(m, t.max(x)), lambda t: t.full(-jnp.inf), lambda t, m: m),
    "reduce_mean": (lambda t, acc, x: acc + t.sum(x), lambda t: t.full(0.0), lambda t, acc: acc / t.cols),
    "mse_loss": (lambda t, acc, p, q: acc + t.sum((p - q) * (p - q)), lambda t: t.full(0.0),
                 lambda t, acc: acc / t.cols),
    "huber_loss": (lambda t, acc, p, q: acc + t.sum(_huber(p - q)), lambda t: t.full(0.0),
                   lambda t, acc: acc / t.cols),
    "cross_entropy": (_cross_entropy_step, lambda t: (t.full(-jnp.inf), t.full(0.0), t.full(0.0)),
                      lambda t, st: (st[0] - st[2]) + jnp.log(st[1])),
    "fused_softmax_cross_entropy": (_softmax_ce_step, lambda t: (t.full(-jnp.inf), *_zeros(3)(t)),
                                    lambda t, st: jnp.log(st[1]) * st[3] - st[2]),
    "cosine_sim": (_cosine_step, _zeros(3), _cosine_finish),
}


def kernel_for(task: str):
    """The task's Mosaic GPU kernel: kernel(*inputs, interpret=AUTO) -> (rows,)."""
    step, init, finish = FOLDS[task]

    def kernel(*inputs, interpret=ms.AUTO):
        return reduce_rows(step, init, finish, *inputs, name=task, interpret=interpret)

    kernel.__name__ = f"{task}_mosaic"
    return kernel


KERNELS = {task: kernel_for(task) for task in FOLDS}
