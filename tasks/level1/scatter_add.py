"""scatter_add: zeros(1024, D).at[idx].add(updates), updates float (N, D), idx int32 (N,).

Float atomics (order-dependent sums). The output is a zeros buffer aliased in and out of the
pallas_call as a raw pl.ANY ref. Each program takes 8 update rows and a column tile (up to 256
wide): it first loads the 8 target ids and 8 row segments (independent loads in flight together),
then issues one vector atomic add per row into out[id, cols]. One row per atomic keeps duplicate
ids correct in every execution mode (Triton's atomics handle them; so does interpret mode).
The sums are float32 at every dtype: bfloat16/float16 updates are widened before their atomic
add into a float32 buffer, which a second pallas_call rounds once to the updates' dtype (16-bit
atomics would round every partial sum: a degenerate id list, all rows into one, drifts by
percents).

Tunable (pallasbench.task.tuning): "rows" (update rows a program, ROWS: more atomics in flight
per program against fewer programs), "max_cols" (MAX_COLS), "num_warps".

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py,
bench/results/2026-12-03-h200-tuning2/) sets these choices at the task's MEDIUM and LARGE
shapes per dtype (float16 takes bfloat16's unless listed); any other shape takes the defaults
above. Each record's kernel_config says which values ran.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import elementwise, masked
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
ROWS = 8  # update rows a program: 1024 programs at MEDIUM
MAX_COLS = 256  # column tile: 4 floats a thread at 2 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["updates"]), tl.ids(rng, shapes["idx"], NUM_ROWS)


def reference(updates, idx):
    return jnp.zeros((NUM_ROWS, updates.shape[1]), updates.dtype).at[idx].add(updates)


def _body(idx_ref, upd_ref, zeros_ref, o_ref, *, bd, rows):
    del zeros_ref  # the same buffer as o_ref (aliased): the zeros the atomics add into
    cols = pl.ds(pl.multiple_of(pl.program_id(1) * bd, bd), bd)
    # Ids are in range by the task's domain; the clamp only keeps a bad id inside the output.
    targets = [jnp.clip(idx_ref[r], 0, NUM_ROWS - 1) for r in range(rows)]
    values = [upd_ref[r, :].astype(jnp.float32) for r in range(rows)]
    for target, value in zip(targets, values):
        pltriton.atomic_add(o_ref, (target, cols), value)


def _round_body(sums_ref, o_ref):
    o_ref[...] = sums_ref[...].astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(
    gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2",
    configs={
        "medium": {"float32": {"rows": 4}},
    })


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(updates, idx):
    n, d = updates.shape
    rows = tuning.choice(NAME, "rows", ROWS)
    bd = min(tuning.choice(NAME, "max_cols", MAX_COLS), tl.next_pow2(d))
    # Ragged edges are padded (zero updates to row 0), since interpret mode rejects atomic masks.
    upd = masked.pad_to_multiple(masked.pad_to_multiple(updates, 0, rows), 1, bd)
    ids = masked.pad_to_multiple(idx, 0, rows)
    (np_, dp) = upd.shape
    zeros = jnp.zeros((NUM_ROWS, dp), jnp.float32)  # the float32 sums, whatever the dtype
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    out = pl.pallas_call(
        functools.partial(_body, bd=bd, rows=rows),
        out_shape=jax.ShapeDtypeStruct((NUM_ROWS, dp), jnp.float32),
        grid=(np_ // rows, dp // bd),
        in_specs=[pl.BlockSpec((rows,), lambda i, j: (i,)),
                  pl.BlockSpec((rows, bd), lambda i, j: (i, j)),
                  any_spec],
        out_specs=any_spec,
        input_output_aliases={2: 0},
        compiler_params=tl.triton_params(
            num_warps=tuning.choice(NAME, "num_warps", max(1, min(4, bd // 128))), num_stages=1),
    )(ids, upd, zeros)
    if updates.dtype != jnp.float32:  # one rounding of the float32 sums, in a kernel
        out = elementwise.map_blocks(_round_body, out, out_dtype=updates.dtype, name=NAME + "_round")
    return out if dp == d else out[:, :d]


def flops(shapes):
    n, d = shapes["updates"]
    return n * d  # one add per update element


def bytes_moved(shapes, itemsize=4):
    # updates read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16); the int32 ids read at 4 bytes whatever the float size.
    n, d = shapes["updates"]
    id_bytes = 4  # int32
    return itemsize * (n * d + NUM_ROWS * d) + id_bytes * n
