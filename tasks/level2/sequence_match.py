"""sequence_match: int32 (N, L-P+1) number of pattern positions matching at each offset.

Each program owns an output tile (rows, offsets). For every pattern position p (unrolled) it
loads the tile's bases shifted by p straight from the raw uint8 buffer (the window past the
tile's right edge is read from memory, L1-resident; reads past the row end are masked), compares
them with pattern[p] as uint8 and accumulates matches in int32 registers.

The tunable "packed" form reads the bases four at a time: seqs is viewed as uint32 words outside
the kernel (a bitcast; rows padded to whole words only when L % 4 != 0). A program loads its word
tile at the P/4 + 2 word shifts the pattern spans, once each; for pattern position p the 4 bases
at offsets 4w..4w+3 shifted by p are one funnel shift of words w + p//4 and w + p//4 + 1. XOR with
pattern[p] repeated in every byte leaves a zero byte exactly where a base matches; a carry-free
zero-byte test sets one bit per mismatching byte, and one uint32 add counts mismatches for four
offsets (a byte counter holds P <= 255). The four byte counters are spread back to the offsets
4w + b with two rounds of interleaving joins before the int32 store.
Tiles, warps and stages are tunable (tuning.choice).

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics.py `sequence_match`): a CTA
a (16, 224) output tile; its bases and the pattern's halo come in as one (16, 256) uint8 TMA
box; per pattern position the shifted tile is read from SMEM a byte a lane, widened and compared,
matches adding into int32 registers. The counts go to global memory by plain stores from
registers: an (N, L - P + 1) int32 row is 4 (L - P + 1) bytes, not a multiple of 16, which TMA
needs of every stride but the last; the last tile is shifted back to end at the last offset.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics
from pallasbench.task import tuning
from pallasbench.task.families.genomics import INTEGER_OPS, ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "sequence_match"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("seqs", tl.DISCRETE), tl.Input("pattern", tl.DISCRETE))
SHAPES = tl.sizes(medium={"seqs": (256, 4096), "pattern": (16,)},
                  small={"seqs": (16, 256), "pattern": (8,)},
                  large={"seqs": (1024, 16384), "pattern": (32,)})
TOLERANCE = tl.EXACT

# Offsets per program: 4 warps x 32 lanes x 32 int32 accumulators.
_TILE = 4096
_MAX_COLS = 1024


def make_inputs(rng, shapes):
    return tl.dna(rng, shapes["seqs"]), tl.dna(rng, shapes["pattern"])


def reference(seqs, pattern):
    (p_len,) = pattern.shape
    n_off = seqs.shape[1] - p_len + 1
    hits = [(seqs[:, p:p + n_off] == pattern[p]).astype(jnp.int32) for p in range(p_len)]
    return sum(hits)


def _body(x_ref, pat_ref, o_ref, *, rows, length, p_len, br, bc):
    r0 = pl.multiple_of(pl.program_id(0) * br, br)
    c0 = pl.multiple_of(pl.program_id(1) * bc, bc)  # lets aligned shifts load 16 bytes at once
    r = r0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 0)
    c = c0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 1)
    room = length - c  # bases left in the row from each offset
    if rows % br:
        room = jnp.where(r < rows, room, 0)
    acc = jnp.zeros((br, bc), jnp.int32)
    for p in range(p_len):
        x = pltriton.load(x_ref.at[pl.ds(r0, br), pl.ds(c0 + p, bc)], mask=p < room, other=0)
        acc += (x == pat_ref[p]).astype(jnp.int32)
    # Only offsets where the whole pattern fits exist in the (rows, L-P+1) output.
    pltriton.store(o_ref.at[pl.ds(r0, br), pl.ds(c0, bc)], acc, mask=p_len <= room)


_LOW_BITS = np.uint32(0x7F7F7F7F)  # numpy scalars: a Python int over 2^31 cannot enter jit
_HIGH_BITS = np.uint32(0x80808080)


def _interleave(a, b):
    """(br, w) and (br, w) -> (br, 2w) holding a[:, k] at 2k and b[:, k] at 2k + 1 (tt.join)."""
    joined = jnp.concatenate([a[:, :, None], b[:, :, None]], axis=2)
    return joined.reshape(a.shape[0], 2 * a.shape[1])


def _packed_body(w_ref, pat_ref, o_ref, *, rows, length, p_len, br, bw):
    bc = 4 * bw
    n_words = w_ref.shape[1]
    r0 = pl.multiple_of(pl.program_id(0) * br, br)
    w0 = pl.multiple_of(pl.program_id(1) * bw, bw)
    r = r0 + jax.lax.broadcasted_iota(jnp.int32, (br, bw), 0)
    w = w0 + jax.lax.broadcasted_iota(jnp.int32, (br, bw), 1)
    live = r < rows if rows % br else True
    # Word tiles at every shift the pattern spans, each loaded once (past the row end: zeros,
    # read only by offsets the store masks off).
    shifts = [pltriton.load(w_ref.at[pl.ds(r0, br), pl.ds(w0 + s, bw)],
                            mask=(w + s < n_words) & live, other=0)
              for s in range((p_len - 1) // 4 + 2)]
    mismatches = jnp.zeros((br, bw), jnp.uint32)
    for p in range(p_len):
        s, q = divmod(p, 4)
        bases = shifts[s] if q == 0 else (shifts[s] >> (8 * q)) | (shifts[s + 1] << (32 - 8 * q))
        x = bases ^ (pat_ref[p].astype(jnp.uint32) * jnp.uint32(0x01010101))
        # High bit of each byte set iff the byte is nonzero (no carry crosses bytes).
        nonzero = (((x & _LOW_BITS) + _LOW_BITS) | x) & _HIGH_BITS
        mismatches += nonzero >> 7
    lanes = [p_len - ((mismatches >> (8 * b)) & np.uint32(0xFF)).astype(jnp.int32) for b in range(4)]
    acc = _interleave(_interleave(lanes[0], lanes[2]), _interleave(lanes[1], lanes[3]))
    rr = r0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 0)
    c = 4 * w0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 1)
    ok = (p_len <= length - c) & (rr < rows)
    pltriton.store(o_ref.at[pl.ds(r0, br), pl.ds(4 * w0, bc)], acc, mask=ok)


def _packed(seqs, pattern, n_off, tile, max_cols, num_warps, num_stages):
    rows, length = seqs.shape
    (p_len,) = pattern.shape
    words = tl.cdiv(length, 4)
    if words * 4 != length:  # layout only: whole words; the pad bases are read by no valid offset
        seqs = jnp.pad(seqs, ((0, 0), (0, words * 4 - length)))
    packed = jax.lax.bitcast_convert_type(seqs.reshape(rows, words, 4), jnp.uint32)
    bc = max(4, min(tl.next_pow2(n_off), max_cols))
    br = max(1, min(tl.next_pow2(rows), tile // bc))
    body = functools.partial(_packed_body, rows=rows, length=length, p_len=p_len, br=br, bw=bc // 4)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows, n_off), jnp.int32),
        grid=(tl.cdiv(rows, br), tl.cdiv(n_off, bc)),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        compiler_params=tl.triton_params(num_warps=num_warps, num_stages=num_stages),
    )(packed, pattern)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"*": {"packed": True, "tile": 2048}},
    "large": {"*": {"packed": True}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(seqs, pattern):
    rows, length = seqs.shape
    (p_len,) = pattern.shape
    n_off = length - p_len + 1
    tile = tuning.choice(NAME, "tile", _TILE)
    max_cols = tuning.choice(NAME, "max_cols", _MAX_COLS)
    num_warps = tuning.choice(NAME, "num_warps", 4)
    num_stages = tuning.choice(NAME, "num_stages", 1)
    if tuning.choice(NAME, "packed", False) and p_len <= 255:  # byte counters hold P
        return _packed(seqs, pattern, n_off, tile, max_cols, num_warps, num_stages)
    bc = min(tl.next_pow2(n_off), max_cols)
    br = min(tl.next_pow2(rows), max(1, tile // bc))
    body = functools.partial(_body, rows=rows, length=length, p_len=p_len, br=br, bc=bc)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows, n_off), jnp.int32),
        grid=(tl.cdiv(rows, br), tl.cdiv(n_off, bc)),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),  # L-P+1 is ragged: masked stores
        compiler_params=tl.triton_params(num_warps=num_warps, num_stages=num_stages),
    )(seqs, pattern)


BACKENDS = {"mosaic_gpu": mosaic_genomics.sequence_match, "triton": kernel}


def flops(shapes):
    rows, length = shapes["seqs"]
    (p_len,) = shapes["pattern"]
    return 2 * rows * (length - p_len + 1) * p_len  # compare + count per base


def bytes_moved(shapes, itemsize=4):
    # uint8 seqs and pattern read (1 byte), one int32 count a window written (4 bytes): no float
    # element, so `itemsize` does not enter.
    rows, length = shapes["seqs"]
    (p_len,) = shapes["pattern"]
    base_bytes, count_bytes = 1, 4  # uint8 in, int32 out
    return base_bytes * (rows * length + p_len) + count_bytes * rows * (length - p_len + 1)
