"""Genomics Mosaic GPU kernels on CUDA cores: one `plgpu.kernel` each (custom call
`mosaic_gpu_v2`; plumbing in mosaic_stream) for gc_content, nucleotide_onehot (and `one_hot`,
hamming_distance's first pass), sequence_match and pwm_scan. The tensor-core ones
(reverse_complement, hamming_distance, conv1d_genomic, kmer_count) are in mosaic_genomics_mma,
triangle_update in mosaic_triangle.

Bases (uint8, A=0, C=1, G=2, T=3) come in as bytes: TMA copies move them into SMEM as they are
(no packing pass, no XLA cast), and the kernels widen them to int32 in registers. Lowering
semantics: Lane, with mosaic_stream's explicit layouts (its docstring says why). Every kernel
runs in one warpgroup a CTA, so the CPU interpreter runs them all.

Tunable under the task's name (pallasbench.task.tuning), each kernel's knobs named below.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.kernels.mosaic_elementwise import _dividing as largest_dividing
from pallasbench.task import tuning


def is_gc(bases):
    """1 where a base is C (1) or G (2), else 0, as int32: the low bit of b ^ (b >> 1)."""
    b = bases.astype(jnp.int32)
    return (b ^ lax.shift_right_logical(b, 1)) & 1


# ---- gc_content: per-row counts ---------------------------------------------------------------

def gc_content(seqs, *, name="gc_content", interpret=ms.AUTO):
    """float32 (rows,): the fraction of G or C bases of each row.

    CTA c owns `br` rows (4: rows_layout's tile; 256 CTAs at MEDIUM) and streams them as
    (br, k, 256) boxes of the (rows, L / 256, 256) view (`box_bytes` a box) through a
    `stages`-slot TMA ring; hits add into an int32 (br, 256) register tile (the pipeline's
    carry), reduced over its columns once at the end. Knobs: "mosaic_rows", "mosaic_box_bytes",
    "mosaic_stages"."""
    rows, length = seqs.shape
    bc = largest_dividing(length, ms.MAX_BOX, 128)
    br = tuning.choice(name, "mosaic_rows", 4)
    if bc is None or rows % br or br % 4:
        ms.refuse(name, f"seqs {seqs.shape}: rows a multiple of {br} (itself of 4) and a length with "
                        f"a multiple of 128 up to {ms.MAX_BOX} dividing it are needed")
    nc = length // bc
    box_bytes = tuning.choice(name, "mosaic_box_bytes", 16384)
    k = largest_dividing(nc, min(ms.MAX_BOX, max(1, box_bytes // (br * bc))), 1)
    stages = tuning.choice(name, "mosaic_stages", 4)
    ms.check_smem(name, stages * br * k * bc, f"{stages} stages of ({br}, {k}, {bc}) bases")
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_gc_kernel, br=br, k=k, bc=bc, length=length, stages=stages,
                             interpreting=interpret is not None)
    return ms.launch(body, [seqs.reshape(rows, nc, bc)], ms.struct((rows,), jnp.float32),
                     ctas=rows // br, scratch=[ms.plgpu().SMEM((br,), jnp.float32)], name=name,
                     interpret=interpret)


def _gc_kernel(x_gmem, out_gmem, out_smem, *, br, k, bc, length, stages, interpreting):
    gpu = ms.plgpu()
    lay = ms.Layouts(ms.rows_layout(), interpreting)
    cta = lax.axis_index("cta")

    def body(indices, box, acc):
        for j in range(k):
            acc = acc + is_gc(lay.load(box.at[:, j, :]))
        return acc

    steps = length // (k * bc)
    spec = gpu.BlockSpec((br, k, bc), lambda s: (cta, s, 0))
    acc = gpu.emit_pipeline(body, grid=(steps,), in_specs=[spec], max_concurrent_steps=min(stages, steps),
                            init_carry=lay.cast(jnp.zeros((br, bc), jnp.int32)))(x_gmem)
    out_smem[...] = jnp.sum(acc, axis=1).astype(jnp.float32) * (1.0 / length)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[pl.ds(cta * br, br)])
    gpu.wait_smem_to_gmem(0)


# ---- nucleotide_onehot: a write-bound map ---------------------------------------------------

CHANNELS = 4  # bases A, C, G, T
LANE_BASES = 32  # bases of one row of onehot_layout: a warp's 32 lanes, one base each


def onehot_layout():
    """(rows, 32, 4) tiles of (4, 32, 4): warp w holds row w, lane l base l, its 4 channels one
    16-byte vector; reduced over the channels, each lane holds one base."""
    gpu = ms.plgpu()
    return gpu.Layout.TILED(gpu.Tiling(((4, LANE_BASES, CHANNELS),)), warp_dims=(-3,),
                            lane_dims=(-2,), vector_dim=-1)


def nucleotide_onehot(seq, *, name="nucleotide_onehot", interpret=ms.AUTO):
    """float32 (N, 4): one_hot(seq, 4). CTA c owns `bases` bases ("mosaic_bases", 128 by
    default: 128 CTAs at LARGE, the problem being a few microseconds of stores): their bytes
    come in by TMA as a (bases / 32, 32) box, each lane widens one base and compares it with the
    channel iota, and the (bases / 32, 32, 4) float32 block leaves by one TMA store."""
    return one_hot(seq, jnp.float32, tuning.choice(name, "mosaic_bases", 128), name=name, interpret=interpret)


def one_hot(seq, dtype, bases: int, *, name, interpret=ms.AUTO):
    """(N, 4) one_hot(seq, 4) at `dtype`, `bases` bases a CTA (see nucleotide_onehot)."""
    (n,) = seq.shape
    if bases % (4 * LANE_BASES) or bases > ms.MAX_BOX * LANE_BASES or n % bases:
        ms.refuse(name, f"seq ({n},): a multiple of the CTA's {bases} bases (itself of "
                        f"{4 * LANE_BASES}, at most {ms.MAX_BOX * LANE_BASES}) is needed")
    rows = bases // LANE_BASES
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    interpreting = interpret is not None
    body = functools.partial(_onehot_kernel, rows=rows, interpreting=interpreting)
    # The output as (N / 32, 128): TMA needs 16-byte strides, which a (.., 32, 4) view of 16-bit
    # values lacks. The SMEM block is written as (rows, 32, 4), the layout's shape, and copied
    # through its (rows, 128) view (the interpreters cannot reshape an SMEM ref: values there).
    block = (rows, LANE_BASES * CHANNELS) if interpreting else (rows, LANE_BASES, CHANNELS)
    scratch = [gpu.SMEM((rows, LANE_BASES), seq.dtype), gpu.SMEM(block, dtype),
               gpu.Barrier(num_arrivals=1, num_barriers=1)]
    out = ms.launch(body, [seq.reshape(n // LANE_BASES, LANE_BASES)],
                    ms.struct((n // LANE_BASES, LANE_BASES * CHANNELS), dtype), ctas=n // bases,
                    scratch=scratch, name=name, interpret=interpret)
    return out.reshape(n, CHANNELS)


def _onehot_kernel(seq_gmem, out_gmem, seq_smem, out_smem, barrier, *, rows, interpreting):
    gpu = ms.plgpu()
    lay = ms.Layouts(onehot_layout(), interpreting)
    block = pl.ds(lax.axis_index("cta") * rows, rows)
    gpu.copy_gmem_to_smem(seq_gmem.at[block], seq_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    shape = (rows, LANE_BASES, CHANNELS)
    base = lay.cast(seq_smem[...], lay.layout.reduce(2)).astype(jnp.int32)
    hot = lay.cast(lax.broadcast_in_dim(base, shape, (0, 1))) == lay.iota(shape, 2)
    one = 1.0 if jnp.issubdtype(out_smem.dtype, jnp.floating) else 1
    hot = jnp.where(hot, one, 0 * one).astype(out_smem.dtype)
    if interpreting:
        out_smem[...] = hot.reshape(out_smem.shape)
    else:
        out_smem[...] = hot
        out_smem = out_smem.reshape(rows, LANE_BASES * CHANNELS)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[block])
    gpu.wait_smem_to_gmem(0)


# ---- sequence_match: a sliding compare -------------------------------------------------------

def halo_tile(extra: int, name) -> int:
    """Columns of an output tile whose bases and the `extra` past them fill one TMA box (256
    bytes; async copies take contiguous SMEM only, so a tile and its halo are one box): the
    halo rounded up to the 32 columns of rows_layout(1)."""
    bc = ms.MAX_BOX - max(32, -(-extra // 32) * 32)
    if bc < 32:
        ms.refuse(name, f"a window of {extra + 1} bases: at most {ms.MAX_BOX - 32 + 1} fit a TMA box")
    return bc


def sequence_match(seqs, pattern, *, name="sequence_match", interpret=ms.AUTO):
    """int32 (N, L - P + 1): matching pattern positions at each offset.

    CTA (i, j) owns the (br, bc) output tile at rows i * br, offsets j * bc: its bases and the
    P - 1 past it come in as one (br, 256) TMA box (bc = 256 less the halo, see halo_tile); for
    each pattern position p the tile shifted by p is read from SMEM, a byte a lane, widened and
    compared with pattern[p] (a scalar read), matches adding into int32 registers. The counts
    go to global memory by plain stores from registers: TMA needs 16-byte strides, and a row of
    L - P + 1 int32 counts is rarely that; the last tile is shifted back to end at offset L - P.
    Bytes stay bytes: a SMEM ref cannot be reinterpreted as uint32 words for a 4-bases-a-word
    compare ("Bitcast 1D ref with bitwidth change is not supported"; Mosaic bitcasts 1D refs
    only). Knob: "mosaic_rows" (br, 16)."""
    rows, length = seqs.shape
    (p_len,) = pattern.shape
    n_off = length - p_len + 1
    br = tuning.choice(name, "mosaic_rows", 16)
    bc = halo_tile(p_len - 1, name)
    if rows % br or br % 4 or length % 16 or n_off < bc:
        ms.refuse(name, f"seqs {seqs.shape}, pattern {pattern.shape}: rows a multiple of {br} "
                        f"(itself of 4), a length of whole 16-byte rows and {bc} offsets at least are needed")
    tiles = -(-n_off // bc)
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_match_kernel, br=br, bc=bc, p_len=p_len, n_off=n_off, tiles=tiles,
                             interpreting=interpret is not None)
    scratch = [gpu.SMEM((br, ms.MAX_BOX), seqs.dtype), gpu.Barrier(num_arrivals=1, num_barriers=1)]
    return ms.launch(body, [seqs, pattern], ms.struct((rows, n_off), jnp.int32), ctas=rows // br * tiles,
                     scratch=scratch, name=name, interpret=interpret)


def _match_kernel(seq_gmem, pat_gmem, out_gmem, seq_smem, barrier, *, br, bc, p_len, n_off, tiles,
                  interpreting):
    gpu = ms.plgpu()
    lay = ms.Layouts(ms.rows_layout(1), interpreting)
    cta = lax.axis_index("cta")
    rows = pl.ds(lax.div(cta, jnp.int32(tiles)) * br, br)
    # The last tile ends at the last offset, overlapping its neighbour (same values written).
    c0 = jnp.minimum(lax.rem(cta, jnp.int32(tiles)) * bc, n_off - bc)
    gpu.copy_gmem_to_smem(seq_gmem.at[rows, pl.ds(c0, ms.MAX_BOX)], seq_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    acc = lay.cast(jnp.zeros((br, bc), jnp.int32))
    for p in range(p_len):
        x = lay.load(seq_smem.at[:, pl.ds(p, bc)]).astype(jnp.int32)
        acc = acc + (x == pat_gmem[p].astype(jnp.int32)).astype(jnp.int32)
    out_gmem.at[rows, pl.ds(c0, bc)][...] = acc


# ---- pwm_scan: a sliding dot over one-hot rows -----------------------------------------------

def pwm_scan(seq, pwm, *, name="pwm_scan", interpret=ms.AUTO):
    """(N - M + 1,) at pwm's dtype: score[i] = sum_p sum_c seq[i + p, c] * pwm[c, p].

    CTA c owns `tile` positions ("mosaic_tile", 128: 4 warps x 32 lanes); its rows of seq and
    the M - 1 past them come in by 1D TMA copies of the flat (4N,) view (a (rows, 4) box of a
    16-bit seq would be 8 bytes wide, under TMA's 16). For tap p the window rows i + p are read
    as (tile / 32, 32, 4) from SMEM, each lane one position's 4 channels as a vector (a 16-byte
    load at float32), and fused into a float32 accumulator with pwm[:, p] (read as scalars and
    spread over the channel lanes once, before the loop); the 4 channels are summed in the lane
    at the end. The scores leave by a TMA store, which drops positions past N - M."""
    n, channels = seq.shape
    width = pwm.shape[1]
    n_out = n - width + 1
    tile = tuning.choice(name, "mosaic_tile", 128)
    halo = -(-(width - 1) // 64) * 64
    rows = tile + halo
    if channels != CHANNELS or pwm.shape[0] != CHANNELS or tile % (4 * LANE_BASES) or n_out < 1:
        ms.refuse(name, f"seq {seq.shape}, pwm {pwm.shape}: 4 channels, M <= N and a tile of a "
                        f"multiple of {4 * LANE_BASES} positions are needed")
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_pwm_kernel, tile=tile, rows=rows, width=width,
                             interpreting=interpret is not None)
    scratch = [gpu.SMEM((rows * CHANNELS,), seq.dtype), gpu.SMEM((tile,), pwm.dtype),
               gpu.Barrier(num_arrivals=ms.range_copies(rows * CHANNELS), num_barriers=1)]
    return ms.launch(body, [seq.reshape(n * CHANNELS), pwm], ms.struct((n_out,), pwm.dtype),
                     ctas=-(-n_out // tile), scratch=scratch, name=name, interpret=interpret)


def _pwm_kernel(seq_gmem, pwm_gmem, out_gmem, seq_smem, out_smem, barrier, *, tile, rows, width,
                interpreting):
    gpu = ms.plgpu()
    lay = ms.Layouts(onehot_layout(), interpreting)
    i0 = lax.axis_index("cta") * tile
    ms.load_range(seq_gmem, seq_smem, barrier.at[0], i0 * CHANNELS, rows * CHANNELS)
    shape = (tile // LANE_BASES, LANE_BASES, CHANNELS)
    channel = lay.iota(shape, 2)

    def weights(p):  # pwm[:, p] along the channel axis
        w = [pwm_gmem[c, p].astype(jnp.float32) for c in range(CHANNELS)]
        return jnp.where(channel == 0, w[0], jnp.where(channel == 1, w[1], jnp.where(channel == 2, w[2], w[3])))

    taps = [weights(p) for p in range(width)]
    gpu.barrier_wait(barrier.at[0])
    acc = lay.cast(jnp.zeros(shape, jnp.float32))
    for p in range(width):
        window = seq_smem.at[pl.ds(p * CHANNELS, tile * CHANNELS)]
        x = window[...].reshape(shape) if interpreting else lay.cast(window.reshape(*shape)[...])
        acc = acc + x.astype(jnp.float32) * taps[p]
    score = jnp.sum(acc, axis=2).astype(out_smem.dtype)
    if interpreting:
        out_smem[...] = score.reshape(tile)
    else:
        out_smem.reshape(*shape[:2])[...] = score
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[pl.ds(i0, tile)])
    gpu.wait_smem_to_gmem(0)
