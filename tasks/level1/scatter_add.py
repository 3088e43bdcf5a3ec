"""scatter_add: zeros(1024, D).at[idx].add(updates), updates float (N, D), idx int32 (N,).

Float atomics (order-dependent sums), with runs of equal ids summed in registers first. The
output is a zeros buffer aliased in and out of the pallas_call as a raw pl.ANY ref. Each program
takes ROWS update rows (in chunks of CHUNK: the chunk's ids and row segments are loaded together,
independent loads in flight) and a column tile (up to MAX_COLS wide), and walks its rows in order
with one open sum: a row whose id equals the open sum's joins it; any other row first sends the
open sum to out[id, cols] with one vector atomic add, then opens its own. The last open sum is
sent at the end. So ids in random order cost one atomic a row, as plain atomics do, while a run
of equal ids (sorted ids, or the degenerate all-one-id case) costs one atomic per run per
program: every id's float32 sum is a chain of at most N / ROWS atomics of partial sums instead of
N atomics of rows. The LARGE degenerate stress case (32768 rows into one) failed the
harness's bound on 2-3 of 1M elements in two LARGE runs of the one-atomic-a-row kernel (2026-12-03,
2026-12-04); a CPU model of float32 chains (bench/results/2026-12-04-cpu/scatter_add_sum_bound.md)
puts single-row chains outside 1e-4 + 1e-4 |ref| on a few of 1024 columns and chains of 32-row
partial sums inside it. On the H200, bench/scatter_add_degenerate.py (2026-12-04-h200-3, call 1)
found both within the harness's scaled bound over 6 fresh seeds each (worst 0.31 of it for the
chain, 0.27 for 32 rows a program), so those harness failures are not fully explained by the
chain's rounding alone. ROWS = 32 keeps the shorter chain at LARGE for 9% of its time (the H200:
rows=4 runs the random-id case in 94.9 us, 32 rows in 103.5; XLA 63.1). Duplicate ids are
correct in every execution mode (Triton's atomics handle them; so does interpret mode).
The sums are float32 at every dtype: bfloat16/float16 updates are widened before they are summed
into a float32 buffer, which a second pallas_call rounds once to the updates' dtype (16-bit
atomics would round every partial sum: a degenerate id list, all rows into one, drifts by
percents).

Tunable (pallasbench.task.tuning): "method" ("atomic", the kernel above, or "sorted": no float
atomics, a counting sort of the ids and one deterministic float32 sum per output row, in
pallasbench.kernels.sorted_scatter), "rows" (update rows a program: longer runs merged and fewer
programs, against less parallelism), "max_cols" (MAX_COLS), "num_warps", "num_stages" (the
pipelining of the chunk loop's loads); for "sorted": "sort_chunk" (ids a counting or placing
program takes), "segment_rows" (update rows a segment sum gathers at once), "max_cols",
"num_warps".

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py) sets these choices
at the task's MEDIUM and LARGE shapes per dtype (float16 takes bfloat16's unless listed); any
other shape takes the defaults above. Each record's kernel_config says which values ran.

Mosaic GPU (the preferred backend, kernels/mosaic_scatter.py; GPU only): no global atomics. A
plgpu.kernel's outputs start uninitialised and it takes no input_output_aliases (jax 0.10.2:
"TypeError: Mesh.__init__() got an unexpected keyword argument 'input_output_aliases'"; a
jax.new_ref operand updated in place fails in its custom_vmap wrapper), so nothing could zero
the output before other CTAs add into it. Instead CTA (column strip, row part) zeroes a
(1024, 32) float32 accumulator in its shared memory, streams its part's update tiles through a
TMA ring, adds each element into it with shared-memory float atomics (inline Mosaic GPU:
plgpu.atomic_add adds an array to a ref of its own shape, not rows to data-dependent rows), and
stores it as its part's partial sum; a second kernel sums the parts (16 at MEDIUM, 4 at LARGE) in
float32 and rounds once to the updates' dtype. A thread sums its rows of a tile that share an
id in registers first (8 rows 16 apart), so all rows into one id (degenerate) make atomic chains
of N / parts / 8 partial sums (1024 at LARGE), as the Triton kernel's 32-row partial sums do.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_scatter
from pallasbench.kernels import elementwise, masked, sorted_scatter
from pallasbench.task import tuning

NAME = "scatter_add"
LEVEL = 1
CATEGORY = "index"
INPUTS = (tl.Input("updates", tl.REAL), tl.Input("idx", tl.DISCRETE))
SHAPES = tl.sizes(medium={"updates": (8192, 256), "idx": (8192,)})
TOLERANCE = tl.ATOMIC_SUM
USES_TF32 = False
ORDER_DEPENDENT = True
STRESS = tl.stress_cases("tiny", "large", "degenerate", offset=tl.NO_ROW_STATISTIC, distinct=tl.NO_DISTINCT)

NUM_ROWS = 1024  # output rows, fixed at every size
ROWS = 32  # update rows a program: runs of equal ids reach the output as sums of up to 32 rows
CHUNK = 8  # rows loaded together, then merged in order
MAX_COLS = 256  # column tile: 4 floats a thread at 2 warps
SORT_CHUNK = 256  # "sorted": ids a counting or placing program takes
SEGMENT_ROWS = 32  # "sorted": update rows gathered at once (32 x 256 floats: 64 a thread at 4 warps)


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["updates"]), tl.ids(rng, shapes["idx"], NUM_ROWS)


def reference(updates, idx):
    return jnp.zeros((NUM_ROWS, updates.shape[1]), updates.dtype).at[idx].add(updates)


def _body(idx_ref, upd_ref, zeros_ref, o_ref, *, bd, rows, chunk):
    del zeros_ref  # the same buffer as o_ref (aliased): the zeros the atomics add into
    cols = pl.ds(pl.multiple_of(pl.program_id(1) * bd, bd), bd)

    def send(target, total, also):
        # An open sum goes out where `also` holds; target -1 is "no sum open yet".
        @pl.when(jnp.logical_and(also, target >= 0))
        def _():
            pltriton.atomic_add(o_ref, (target, cols), total)

    def merge_chunk(c, carry):
        target, total = carry
        first = c * chunk
        # Ids are in range by the task's domain; the clamp only keeps a bad id inside the output.
        targets = [jnp.clip(idx_ref[first + r], 0, NUM_ROWS - 1) for r in range(chunk)]
        values = [upd_ref[first + r, :].astype(jnp.float32) for r in range(chunk)]
        for row_target, value in zip(targets, values):
            same = row_target == target
            send(target, total, jnp.logical_not(same))
            total = jnp.where(same, total + value, value)
            target = row_target
        return target, total

    opened = (jnp.int32(-1), jnp.zeros((bd,), jnp.float32))
    target, total = jax.lax.fori_loop(0, rows // chunk, merge_chunk, opened)
    send(target, total, True)


def _round_body(sums_ref, o_ref):
    o_ref[...] = sums_ref[...].astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/; the open-sum kernel re-probed in 2026-12-04-h200-3,
# call 1: rows 4 still the fastest at MEDIUM, 8.4 us; 8, 16, 64 rows 9.7, 13.7, 41.9 us).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {"float32": {"rows": 4}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(updates, idx):
    method = tuning.choice(NAME, "method", "atomic")
    if method == "sorted":
        return sorted_scatter.scatter_add(
            updates, idx, NUM_ROWS, sort_chunk=tuning.choice(NAME, "sort_chunk", SORT_CHUNK),
            segment_rows=tuning.choice(NAME, "segment_rows", SEGMENT_ROWS),
            max_cols=tuning.choice(NAME, "max_cols", MAX_COLS), num_warps=tuning.choice(NAME, "num_warps", 4),
            name=NAME)
    if method != "atomic":
        raise ValueError(f"{NAME}: method={method!r} is neither 'atomic' nor 'sorted'")
    n, d = updates.shape
    rows = tuning.choice(NAME, "rows", ROWS)
    chunk = min(CHUNK, rows)
    if rows % chunk:
        raise ValueError(f"{NAME}: rows={rows} is not a multiple of the chunk ({chunk})")
    bd = min(tuning.choice(NAME, "max_cols", MAX_COLS), tl.next_pow2(d))
    # Ragged edges are padded (zero updates to row 0), since interpret mode rejects atomic masks.
    upd = masked.pad_to_multiple(masked.pad_to_multiple(updates, 0, rows), 1, bd)
    ids = masked.pad_to_multiple(idx, 0, rows)
    (np_, dp) = upd.shape
    zeros = jnp.zeros((NUM_ROWS, dp), jnp.float32)  # the float32 sums, whatever the dtype
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    out = pl.pallas_call(
        functools.partial(_body, bd=bd, rows=rows, chunk=chunk),
        out_shape=jax.ShapeDtypeStruct((NUM_ROWS, dp), jnp.float32),
        grid=(np_ // rows, dp // bd),
        in_specs=[pl.BlockSpec((rows,), lambda i, j: (i,)),
                  pl.BlockSpec((rows, bd), lambda i, j: (i, j)),
                  any_spec],
        out_specs=any_spec,
        input_output_aliases={2: 0},
        compiler_params=tl.triton_params(
            num_warps=tuning.choice(NAME, "num_warps", max(1, min(4, bd // 128))),
            num_stages=tuning.choice(NAME, "num_stages", 1)),
    )(ids, upd, zeros)
    if updates.dtype != jnp.float32:  # one rounding of the float32 sums, in a kernel
        out = elementwise.map_blocks(_round_body, out, out_dtype=updates.dtype, name=NAME + "_round")
    return out if dp == d else out[:, :d]


# The Mosaic GPU implementation (kernels/mosaic_scatter.py): the preferred backend on a GPU; its
# shared-memory atomics are inline Mosaic GPU, which neither CPU interpreter runs (tl.gpu_only).
BACKENDS = {"mosaic_gpu": tl.gpu_only(mosaic_scatter.KERNELS[NAME]), "triton": kernel}


def flops(shapes):
    n, d = shapes["updates"]
    return n * d  # one add per update element


def bytes_moved(shapes, itemsize=4):
    # updates read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16); the int32 ids read at 4 bytes whatever the float size.
    n, d = shapes["updates"]
    id_bytes = 4  # int32
    return itemsize * (n * d + NUM_ROWS * d) + id_bytes * n
