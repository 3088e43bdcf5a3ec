"""Mosaic GPU (Hopper) FlashAttention forward for the attention family (flash_attention,
multi_head_attention, attention_forward), each part one `plgpu.kernel` (custom call
`mosaic_gpu_v2`, Lane lowering semantics), and the pieces qk_softmax's kernel
(mosaic_qk_softmax.py) and the warp-specialised one (mosaic_attention_ws.py) share. Not a task.

`attention`: q, k, v as (G, S, D) heads. Grid (head, query block[, key split]); a CTA owns
BLOCK_Q = 64 query rows (one wgmma M, one compute warpgroup), brought into SMEM by TMA.
Key/value tiles of `block_kv` rows stream through a ring of `stages` SMEM slots (`Ring`): the
warpgroup issues the TMA load of tile j + stages as soon as every thread is done with slot j, so
`stages - 1` tiles are in flight while it computes. Per tile:
- scores s = q @ k^T by wgmma (k's (bk, D) tile, D contiguous, is the K-major B operand that
  32-bit wgmma needs: passed as its transposed view), read into registers (WGMMA layout);
- the online softmax in registers, base 2 (float32: q pre-scaled by log2(e)/sqrt(D) and rounded
  to nearest TF32 once, in SMEM, as online_attention.queries does; 16-bit: scores scaled after
  the dot): running row max m, exp-sum l, the accumulator rescaled by exp2(m_old - m_new);
- acc += p @ v by wgmma into the accumulator, p from registers. wgmma takes a register A operand
  only at 16 bits, and a 32-bit B operand only K-major (docs/jax_versions.md), which a (bk, D)
  v tile is not, so p goes in as p_hi + p_lo, two bfloat16 terms (~16 bits of p, as
  online_attention's weighted_values does at 16 bits), and float32 v is split in SMEM by the
  warpgroup into bfloat16 v_hi + v_lo: p @ v = p_hi v_hi + p_hi v_lo + p_lo v_hi, three 16-bit
  wgmmas (the cost of 1.5 TF32 ones) accurate to ~2^-16, eight times TF32's 2^-11. 16-bit v:
  p_hi v + p_lo v.
The output, acc / l, goes back through q's SMEM tile and a TMA store.
Causal (attention_forward): block_kv == BLOCK_Q, query block i walks key tiles 0..i-1 unmasked
and tile i masked; the grid puts query blocks slowest, longest first.
Key splits (non-causal, `kv_splits` > 1): a short sequence has few 64-row query blocks (4-8 at
flash_attention's MEDIUM for 132 SMs), so each query block's keys are split over `kv_splits`
CTAs; each writes its unnormalised float32 accumulator and its rows' max and exp-sum, and
mosaic_attention_merge.py's `merge_splits`, a second kernel over (head, query block), rescales
the parts to their common row max, sums and normalises them.

Configuration (`config_for`, pallasbench.task.tuning under the task's name): this kernel has one
compute warpgroup and no warp specialisation, so the CPU interpreter (worker/mosaic_interpret.py)
runs it; it is the default for float32, for every SMALL shape, and wherever key splits are
needed to fill the SMs. 16-bit attention over 256 keys or more whose 128-row blocks fill the SMs
(and every causal one) defaults to mosaic_attention_ws.py: FlashAttention-3's schedule, two
compute warpgroups in ping-pong and a memory warpgroup issuing the TMA loads, GPU only.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_matmul
from pallasbench.kernels import mosaic_stream as ms
from pallasbench.kernels.online_attention import round_tf32
from pallasbench.task import tuning

LOG2E = math.log2(math.e)
# Query rows of a CTA: one compute warpgroup's wgmma M.
BLOCK_Q = mosaic_matmul.WGMMA_M
SMEM_BYTES = ms.SMEM_BYTES  # less the reduction scratch, as ms.check_smem counts
# Columns of a key split's row max and exp-sum tiles (each row's value repeated): 64 bytes, the
# narrowest float32 tile wgmma-layout stores and TMA copies take here.
STAT_COLS = 16


@dataclasses.dataclass(frozen=True)
class Config:
    block_kv: int = 64  # key/value rows per tile
    stages: int = 2  # SMEM ring slots for k and v tiles
    col_splits: int = 1  # qk_softmax: CTAs per query block, each storing N / col_splits columns
    # attention: 2 runs mosaic_attention_ws (FlashAttention-3 schedule, 16-bit only, not in the
    # CPU interpreter), 1 the one-warpgroup kernel below.
    compute_wgs: int = 1
    kv_splits: int = 1  # one-warpgroup attention: CTAs per query block, each over S / kv_splits keys


def config_for(name: str, seq: int, d: int, itemsize: int, causal: bool = False,
               attention: bool = True, heads: int = 1) -> Config:
    """Attention over `heads` heads of `seq` keys (qk_softmax: attention=False).

    Two compute warpgroups (mosaic_attention_ws) for 16-bit attention over 256 keys or more
    whose 128-query blocks fill the SMs (all causal ones: their CTAs' work is uneven anyway):
    128-key tiles at head dim 64 or less (64 causal, the diagonal tile; 64 at head dim 128,
    where a thread's scores, p_hi, p_lo and accumulator would pass ~200 registers), as many
    stages (2..4) as SMEM holds. Else one warpgroup: 64-key tiles and 2 stages, so that two CTAs
    share an SM wherever their SMEM allows (all but float32 at head dim 128), and, non-causal,
    the keys split over `kv_splits` CTAs until the grid has NUM_SMS CTAs (a second kernel merges
    the splits). Tunable under `name`: "mosaic_compute_wgs", "mosaic_block_kv",
    "mosaic_stages", "mosaic_kv_splits", "mosaic_col_splits"."""
    fills = heads * (seq // (2 * BLOCK_Q)) >= mosaic_matmul.NUM_SMS
    wgs = 2 if attention and itemsize == 2 and seq >= 256 and (causal or fills) else 1
    wgs = tuning.choice(name, "mosaic_compute_wgs", wgs)
    block_kv = 64 if wgs == 1 or causal or d > 64 else min(128, seq)
    block_kv = min(tuning.choice(name, "mosaic_block_kv", block_kv), seq)
    stages, splits = 2, 1
    if wgs > 1:
        stages = max(2, min(4, (SMEM_BYTES - wgs * BLOCK_Q * d * itemsize) // (2 * block_kv * d * itemsize)))
    elif attention and not causal:
        while heads * (seq // BLOCK_Q) * splits < mosaic_matmul.NUM_SMS and splits * 2 <= seq // block_kv:
            splits *= 2
    return Config(block_kv=block_kv, stages=tuning.choice(name, "mosaic_stages", stages),
                  col_splits=tuning.choice(name, "mosaic_col_splits", default_col_splits(seq, block_kv)),
                  compute_wgs=wgs, kv_splits=tuning.choice(name, "mosaic_kv_splits", splits))


def fixed_smem(d: int, block_kv: int, itemsize: int) -> int:
    """SMEM beside the k/v ring: the q (and output) tile and, at float32, v's bfloat16 halves."""
    return BLOCK_Q * d * itemsize + (2 * block_kv * d * 2 if itemsize == 4 else 0)


def transforms(minor_elems: int, dtype):
    return mosaic_matmul._transforms(minor_elems, jnp.dtype(dtype).itemsize)


def check(name, cfg: Config, seq: int, d: int, smem: int):
    """Refuse, by name, a shape the tiles cannot cover or `smem` bytes beyond a CTA's."""
    if seq % BLOCK_Q or seq % cfg.block_kv or cfg.block_kv % 64:
        ms.refuse(name, f"sequence {seq}: a multiple of {BLOCK_Q} queries and of the {cfg.block_kv}-key "
                        "tiles (a multiple of 64) is needed")
    if d % 16 or d > ms.MAX_BOX:
        ms.refuse(name, f"head dim {d}: a multiple of 16 up to {ms.MAX_BOX} is needed")
    if cfg.stages < 2:
        ms.refuse(name, f"{cfg.stages} stages (at least 2)")
    ms.check_smem(name, smem, f"{cfg.stages} stages of {cfg.block_kv} keys")


def launch(body, operands, out_type, grid, names, scratch, name, interpret):
    gpu = ms.plgpu()
    body = functools.partial(body)
    body.__name__ = name
    return gpu.kernel(
        body, out_type=out_type, scratch_types=scratch, grid=grid, grid_names=names,
        compiler_params=gpu.CompilerParams(lowering_semantics=gpu.LoweringSemantics.Lane),
        interpret=ms.interpret_for(interpret),
    )(*operands)


class Ring:
    """k (and v) tiles of one head streaming through `stages` SMEM slots, one TMA barrier a slot
    and operand. The one warpgroup both loads and consumes: a slot is refilled once the wgmma
    that read it has been waited for."""

    def __init__(self, gmems, smems, barriers, head, bk: int, stages: int, tile_of=lambda t: t):
        self.gmems, self.smems, self.barriers = gmems, smems, barriers
        self.head, self.bk, self.stages, self.tile_of = head, bk, stages, tile_of

    def slot(self, step):
        return lax.rem(step, jnp.int32(self.stages))

    def load(self, which: int, step, slot):
        gpu = ms.plgpu()
        rows = pl.ds(self.tile_of(step) * self.bk, self.bk)
        gpu.copy_gmem_to_smem(self.gmems[which].at[self.head, rows], self.smems[which].at[slot],
                              self.barriers[which].at[slot])

    def prologue(self, steps):
        for i in range(self.stages):
            @pl.when(i < steps)
            def _():
                for which in range(len(self.gmems)):
                    self.load(which, jnp.int32(i), i)

    def wait(self, which: int, slot):
        ms.plgpu().barrier_wait(self.barriers[which].at[slot])
        return self.smems[which].at[slot]

    def refill(self, which: int, step, slot, steps):
        # Every thread's reads of the slot (wgmma's, each warp waiting for its own, and plain
        # loads) are done before one thread's TMA overwrites it: a warpgroup barrier, with the
        # proxy fence commit_smem adds.
        ms.plgpu().commit_smem()

        @pl.when(step + self.stages < steps)
        def _():
            self.load(which, step + self.stages, slot)


def wgmma_layout():
    return ms.plgpu().Layout.WGMMA


def load_wgmma(ref, interpreting):
    """An SMEM tile's value in the WGMMA layout, as float32 where it is float32. plgpu.load takes
    its index argument required on jax 0.10.2, deprecated on 0.11.2 (a DeprecationWarning each
    call): it is passed only where the signature has no default. The interpreter reads the ref."""
    if interpreting:
        return ref[...]
    gpu = ms.plgpu()
    if inspect.signature(gpu.load).parameters["idx"].default is inspect.Parameter.empty:
        return gpu.load(ref, (), layout=wgmma_layout())
    return gpu.load(ref, layout=wgmma_layout())


def cast(x, layout, interpreting):
    return x if interpreting else ms.plgpu().layout_cast(x, layout)


def spread(row_values, shape):
    return lax.broadcast_in_dim(row_values, shape, (0,))


def scores(q_smem, k_tile, bk):
    """(BLOCK_Q, bk) float32 q @ k^T (k_tile: a (bk, D) SMEM tile, its transpose the K-major B)."""
    gpu = ms.plgpu()

    def qk(acc_ref):
        gpu.wgmma(acc_ref, q_smem, k_tile.transpose((1, 0)))
        return acc_ref[...]

    return pl.run_scoped(qk, gpu.ACC((BLOCK_Q, bk), jnp.float32))


def accumulate(acc, terms):
    """acc + sum(a @ b for a, b in terms), the wgmmas accumulating into acc in place (its
    registers handed to the tensor cores as the accumulator)."""
    gpu = ms.plgpu()

    def pv(acc_ref):  # (pl.run_state of ACC.init: the CPU interpreter cannot run wgmma in it)
        acc_ref[...] = acc
        for a, b in terms:
            gpu.wgmma(acc_ref, a, b)
        return acc_ref[...]

    return pl.run_scoped(pv, gpu.ACC(acc.shape, jnp.float32))


def prepare_queries(q_smem, scale, interpreting):
    """float32: q * scale rounded to nearest TF32, written back (wgmma would truncate it); the
    scores then need no scale (None). 16-bit: q as it is, the scores scaled after the dot."""
    if q_smem.dtype != jnp.float32:
        return scale
    gpu = ms.plgpu()
    q = load_wgmma(q_smem, interpreting)
    q_smem[...] = round_tf32(q * scale)
    gpu.commit_smem()
    return None


def split16(x, dtype=jnp.bfloat16):
    """A float32 array as hi + lo, two arrays of the 16-bit `dtype` (~16 significant bits
    together at bfloat16, ~22 at float16)."""
    hi = x.astype(dtype)
    return hi, (x - hi.astype(jnp.float32)).astype(dtype)


def default_col_splits(n: int, block_kv: int) -> int:
    """Column splits that bring the grid to about half the SMs' count of CTAs (each split repeats
    the first pass over all n keys, so no more than that), at most one a key tile."""
    want = max(1, (mosaic_matmul.NUM_SMS // 2) // max(1, n // BLOCK_Q))
    splits = 1
    while splits * 2 <= min(want, n // block_kv):
        splits *= 2
    return splits


# ---- FlashAttention forward ---------------------------------------------------------------------

def attention(q, k, v, *, causal: bool, name: str, config: Config | None = None, interpret=ms.AUTO):
    """softmax(q k^T / sqrt(D) [causal mask]) v for (G, S, D) q, k, v of one float dtype."""
    g, seq, d = q.shape
    if k.shape != q.shape or v.shape != q.shape or len({q.dtype, k.dtype, v.dtype}) != 1:
        ms.refuse(name, f"q, k, v {q.shape}/{q.dtype}, {k.shape}/{k.dtype}, {v.shape}/{v.dtype}: one shape and dtype")
    itemsize = q.dtype.itemsize
    cfg = config or config_for(name, seq, d, itemsize, causal, heads=g)
    if cfg.compute_wgs == 2:
        return mosaic_attention_ws.attention(q, k, v, causal=causal, name=name, cfg=cfg)
    if cfg.compute_wgs != 1:
        ms.refuse(name, f"compute_wgs {cfg.compute_wgs}: 1 or 2")
    if causal and cfg.block_kv != BLOCK_Q:
        ms.refuse(name, f"causal attention takes {BLOCK_Q}-key tiles (the diagonal one tile), not {cfg.block_kv}")
    splits = cfg.kv_splits
    if splits < 1 or (seq // cfg.block_kv) % splits or (causal and splits > 1):
        ms.refuse(name, f"{splits} key splits of {seq // cfg.block_kv} key tiles: a divisor is needed (1 if causal)")
    # key splits: the row statistics' tiles and, 16-bit, a float32 accumulator tile (see below)
    parts_smem = (2 * STAT_COLS + (0 if itemsize == 4 else d)) * BLOCK_Q * 4 if splits > 1 else 0
    ring = 2 * min(cfg.stages, seq // cfg.block_kv // splits) * cfg.block_kv * d * itemsize
    check(name, cfg, seq, d, ring + fixed_smem(d, cfg.block_kv, itemsize) + parts_smem)
    gpu = ms.plgpu()
    bk, stages = cfg.block_kv, min(cfg.stages, seq // cfg.block_kv // splits)
    tile = lambda rows, dtype: gpu.SMEM((rows, d), dtype, transforms=transforms(d, dtype))  # noqa: E731
    ring = lambda: gpu.SMEM((stages, bk, d), q.dtype, transforms=transforms(d, q.dtype))  # noqa: E731
    scratch = [tile(BLOCK_Q, q.dtype), ring(), ring(), gpu.Barrier(num_barriers=1),
               gpu.Barrier(num_barriers=stages), gpu.Barrier(num_barriers=stages)]
    if q.dtype == jnp.float32:  # v's bfloat16 halves
        scratch.append(gpu.SMEM((2, bk, d), jnp.bfloat16, transforms=transforms(d, jnp.bfloat16)))
    interpreting = ms.interpret_for(interpret) is not None
    body = functools.partial(_attention_kernel, bk=bk, stages=stages, causal=causal, splits=splits,
                             scale=LOG2E / math.sqrt(d), interpreting=interpreting)
    if splits == 1:
        return launch(body, (q, k, v), ms.struct(q.shape, q.dtype), (g, seq // BLOCK_Q), ("head", "qblock"),
                      scratch, name, interpret)
    # Each split's unnormalised accumulator and its rows' max and exp-sum (each spread over
    # STAT_COLS columns: a (64, 16) tile goes through SMEM and TMA like the accumulator).
    f32 = jnp.float32
    if q.dtype != f32:  # (float32 parts leave through q's tile)
        scratch.append(tile(BLOCK_Q, f32))
    scratch.append(gpu.SMEM((2, BLOCK_Q, STAT_COLS), f32, transforms=transforms(STAT_COLS, f32)))
    out_types = [ms.struct((g, splits, seq, d), f32)] + [ms.struct((g, splits, seq, STAT_COLS), f32)] * 2
    parts = launch(body, (q, k, v), out_types, (g, seq // BLOCK_Q, splits), ("head", "qblock", "split"),
                   scratch, f"{name}_splits", interpret)
    return mosaic_attention_merge.merge_splits(*parts, q.dtype, name=name, interpret=interpret)


def _attention_kernel(q_gmem, k_gmem, v_gmem, *refs, bk, stages, causal, splits, scale, interpreting):
    gpu = ms.plgpu()
    outs, refs = (refs[:3], refs[3:]) if splits > 1 else (refs[:1], refs[1:])
    q_smem, k_smem, v_smem, q_bar, k_bar, v_bar = refs[:6]
    v16_smem = refs[6:7] if q_smem.dtype == jnp.float32 else ()
    head, qblock = lax.axis_index("head"), lax.axis_index("qblock")
    seq, d = q_gmem.shape[1], q_gmem.shape[2]
    first = 0
    if causal:  # longest rows first; key tiles up to the diagonal one
        qblock = seq // BLOCK_Q - 1 - qblock
        steps = qblock + 1
    else:
        steps = jnp.int32(seq // bk // splits)
        if splits > 1:
            first = lax.axis_index("split") * (seq // bk // splits)
    rows = pl.ds(qblock * BLOCK_Q, BLOCK_Q)
    gpu.copy_gmem_to_smem(q_gmem.at[head, rows], q_smem, q_bar.at[0])
    ring = Ring((k_gmem, v_gmem), (k_smem, v_smem), (k_bar, v_bar), head, bk, stages, tile_of=lambda t: first + t)
    ring.prologue(steps)
    gpu.barrier_wait(q_bar.at[0])
    score_scale = prepare_queries(q_smem, scale, interpreting)
    lay = wgmma_layout()

    def step(j, carry, masked=False):
        acc, m, l = carry
        slot = ring.slot(j)
        s = scores(q_smem, ring.wait(0, slot), bk)
        ring.refill(0, j, slot, steps)
        if score_scale is not None:
            s = s * score_scale
        if masked:  # the diagonal tile: key j * bk + c visible to query qblock * BLOCK_Q + r iff c <= r
            r = cast(lax.broadcasted_iota(jnp.int32, s.shape, 0), lay, interpreting)
            c = cast(lax.broadcasted_iota(jnp.int32, s.shape, 1), lay, interpreting)
            s = jnp.where(c <= r, s, -jnp.inf)
        m_new = jnp.maximum(m, jnp.max(s, axis=1))
        alpha = jnp.exp2(m - m_new)
        p = jnp.exp2(s - spread(m_new, s.shape))
        l = l * alpha + jnp.sum(p, axis=1)
        p_hi, p_lo = split16(p, jnp.bfloat16 if v16_smem else q_smem.dtype)
        v_tile = ring.wait(1, slot)
        if v16_smem:  # float32 v: its bfloat16 halves, written by this warpgroup
            (v16,) = v16_smem
            v32 = load_wgmma(v_tile, interpreting)
            v16[0], v16[1] = split16(v32)
            gpu.commit_smem()
            terms = ((p_hi, v16.at[0]), (p_hi, v16.at[1]), (p_lo, v16.at[0]))
        else:
            terms = ((p_hi, v_tile), (p_lo, v_tile))

        acc = accumulate(acc * spread(alpha, acc.shape), terms)
        ring.refill(1, j, slot, steps)
        return acc, m_new, l

    carry = (cast(jnp.zeros((BLOCK_Q, d), jnp.float32), lay, interpreting),
             cast(jnp.full((BLOCK_Q,), -jnp.inf, jnp.float32), lay.reduce(1), interpreting),
             cast(jnp.zeros((BLOCK_Q,), jnp.float32), lay.reduce(1), interpreting))
    if causal:
        carry = lax.fori_loop(0, qblock, step, carry)
        acc, _, l = step(qblock, carry, masked=True)
    else:
        acc, m, l = lax.fori_loop(0, steps, step, carry)
    if splits == 1:
        q_smem[...] = (acc * spread(1.0 / l, acc.shape)).astype(q_smem.dtype)
        gpu.commit_smem()
        gpu.copy_smem_to_gmem(q_smem, outs[0].at[head, rows])
    else:  # this split's part: the accumulator and row stats, merged by merge_splits
        acc_smem, stat_smem = (q_smem if v16_smem else refs[-2]), refs[-1]
        split = lax.axis_index("split")
        acc_smem[...] = acc
        stat_smem[0] = spread(m, (BLOCK_Q, STAT_COLS))
        stat_smem[1] = spread(l, (BLOCK_Q, STAT_COLS))
        gpu.commit_smem()
        gpu.copy_smem_to_gmem(acc_smem, outs[0].at[head, split, rows])
        gpu.copy_smem_to_gmem(stat_smem.at[0], outs[1].at[head, split, rows])
        gpu.copy_smem_to_gmem(stat_smem.at[1], outs[2].at[head, split, rows])
    gpu.wait_smem_to_gmem(0)


# The two-warpgroup kernel and the key splits' merge build on this module's pieces and import it:
# imported last, so that importing this module loads every kernel it may launch (a record bundles
# what importing loads: tests/python/test_bundling.py).
from pallasbench.kernels import mosaic_attention_merge, mosaic_attention_ws  # noqa: E402
