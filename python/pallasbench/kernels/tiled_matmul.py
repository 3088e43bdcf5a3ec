"""Tiled Pallas matmul with a fused prologue and epilogue, shared by the matmul-class tasks.

Not a task (the leading underscore keeps the registry away). Two pallas_calls for float32 dots,
one for 16-bit ones:

1. `pack_weights` (float32 dots only, see `packs_weights`): one streaming pass that writes every weight transposed, K-major (N, K),
   interleaved per output column tile: for a tile of bn columns the packed matrix holds bn rows
   of w_1^T, then bn rows of w_2^T, ... Cost: one read and one write of the weights (a
   streaming pass; its time is inside the "new" rows below).
2. The matmul: one program per (bm, bn) output tile walks K in bk steps with lax.fori_loop,
   loading a (bm, bk) tile of x and one (n_w * bn, bk) tile of the packed weights straight from
   global memory (raw pl.ANY refs) into a single dot and a single float32 accumulator. The
   epilogue splits the accumulator into its n_w column blocks and maps them and the bias tile to
   the output tile (bias, activation, gate), so nothing is written to memory but the result.

Why K-major weights: f32 dots at precision DEFAULT run on TF32 wgmma, which reads a 32-bit
operand from shared memory K-major only. A (bk, bn) tile of a row-major (K, N) weight is
N-major and Triton re-lays it out every K step. On the H200 at 4096^3 (matmul_relu LARGE,
bench/results/2026-11-30-h200/tune_matmul_run1.txt) the previous design, N-major weight tiles,
took 2082 us (66 TFLOP/s) and this one 678 us with the pack (203 TFLOP/s); XLA 396 us. One dot
on interleaved weights rather than one per weight: swiglu 4692 -> 1520 us (the per-step dots
were separated in probes whose output was not kept). Tiles: 128x128 per program in all, bk 32,
4 warps, 3 stages was the fastest plan at LARGE of those in that file.

Accuracy: Triton rounds f32 dot operands to nearest TF32 itself (cvt.rna.tf32.f32 on both
tiles every K step, in the PTX of these kernels), so products are unbiased: errors on the H200
were identical with and without explicit rounding in the kernels (e.g. gated_mlp 5.15e-4 relative
in both rows of tune_matmul_run1.txt, as a round-to-nearest simulation predicts; a simulated
truncation gives 2.3e-3, over the 2e-3 tolerance). The `round_*` options add explicit rounding (`round_tf32`) for a lowering that
truncates; off by default.

Low precision: bfloat16/float16 operands go to the dot as they are (the tensor cores' 16-bit
path) with a float32 accumulator, the weights read in their own (K, N) layout: 16-bit wgmma
reads either major order, and on the H200 the packing pass cost more than it saved (bf16
matmul at MEDIUM: 8.9 us unpacked, 9.8 us packed of which 2.1 us the pass;
bench/results/2026-12-03-h200-kernels/); prologue results are cast back to the dot's dtype, bias and
epilogue are float32, and the tile is rounded once on store. K steps are 128 bytes of a row
(32 float32 columns, 64 at 2 bytes). A pipeline of two matmuls keeps its hidden layer at
`hidden_dtype`: float16 overflows where the float32 one of the reference does not.

Mosaic GPU (issue 19): the tunable `backend="mosaic"` (default "triton"; the shipped tables
below choose "mosaic" where the H200 probe measured it faster) swaps step 2 for
kernels/mosaic_matmul.py's persistent, warp-specialised TMA + wgmma kernel, tuned by its own
`mosaic_*` keys (kernels/fused_matmul_mosaic.py); the packing pass (kernels/weight_pack.py)
stays for float32 (and for n_w > 1) and rounds the weights to nearest TF32 there; a prologue is
a pass of its own. Hopper only (refused, naming the task, in the CPU worker's interpret mode).
bench/variants/matmul.py holds its variants.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.task import tuning

from pallasbench.kernels import fused_matmul_mosaic, masked
from pallasbench.kernels.weight_pack import PACK_BLOCK, pack_weights, round_tf32  # noqa: F401 (this module's API too)

# Streaming multiprocessors of an H200: a grid smaller than this leaves SMs idle.
NUM_SMS = 132
# Row tiles launched together (Triton's grouped ordering) so they share w's column tiles in L2.
GROUP_M = 8
# Smallest row tile: one warpgroup's wgmma covers 64 rows.
MIN_BM = 64
# Smallest column tile of one dot (all weights together).
MIN_BN = 32
# K step: 128-byte rows of both tiles: 32 f32 columns (four k8 TF32 wgmma steps per load), 64
# bf16/f16 columns (four k16 wgmma steps).
BK_BYTES = 128

# Per-element FLOPs of the epilogue activations, for the tasks' flops() models.
RELU_FLOPS = 1  # max
SILU_FLOPS = 5  # y * 1/(1+exp(-y)): neg, exp, add, divide, multiply (exp counted as 1)
GELU_FLOPS = 9  # y^3 (2), *0.044715, +y, *sqrt(2/pi), tanh, +1, *y, *0.5 (tanh as 1)

# Shipped configurations of the matmul-class tasks, one per shape family and backend ({"triton":
# tuning.Tuned, "mosaic": tuning.Tuned}; `backend_kernels` makes a task's two implementations of
# them), chosen on the H200 by bench/probe.py on the family's probed task and shared by the tasks
# of the same shapes (the epilogue does not change the tiling). The Triton tiles come from
# bench/results/2026-12-03-h200-kernels (call 2), the Mosaic GPU entries from
# bench/results/2026-12-03-h200-tuning2 (call 1); a shape or dtype not listed takes the kernel's
# defaults (float32 Triton: `_plan`; Mosaic: mosaic_matmul.plan), and float16 takes bfloat16's
# entry (the same 16-bit paths; the Mosaic kernel was not probed at float16).
_PROBED = dict(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2")


def mosaic(bm: int, width: int, stages: int, **extra) -> dict:
    """Tuning values for the Mosaic GPU kernel (a shipped entry, or a bench/variants one): tile
    rows, columns (all weights together), SMEM stages, and any other mosaic_matmul.Config field
    (`extra`, prefixed "mosaic_"). K steps stay the kernel's default, 128 bytes of the dot's dtype."""
    return {"backend": "mosaic", "mosaic_bm": bm, "mosaic_width": width, "mosaic_stages": stages,
            **{"mosaic_" + key: value for key, value in extra.items()}}


def _tables(triton: dict, mosaic_configs: dict) -> dict:
    return {"triton": tuning.Tuned(**_PROBED, configs=triton), "mosaic": tuning.Tuned(**_PROBED, configs=mosaic_configs)}


_TRITON_LARGE_16 = {"bm": 128, "width": 256, "bk": 64, "num_warps": 8, "num_stages": 3}
_TRITON_WIDE_16 = {"bm": 128, "width": 128, "bk": 64, "num_warps": 4, "num_stages": 4}
# (M, K) @ (K, N) = 1024^3 at MEDIUM, 4096^3 at LARGE: probed on matmul; matmul_relu, matmul_gelu
# and matmul_silu have the same shapes, and fused_relu_matmul (TUNED_SQUARE_PROLOGUE): on Mosaic
# its relu prologue is a pass of its own (chosen over the Triton kernel's in-loop relu, 0.64x /
# 0.57x of XLA at MEDIUM / LARGE float32 on 2026-12-04; LARGE bfloat16 188.1 vs the Triton
# kernel's 272.6 us, XLA 195.3: bench/results/2026-12-04-h200-2/call_1).
TUNED_SQUARE = _tables(
    triton={"medium": {"bfloat16": {"bm": 64, "width": 128, "bk": 64, "num_warps": 4, "num_stages": 4}},
            "large": {"bfloat16": _TRITON_LARGE_16}},
    mosaic_configs={"medium": {"float32": mosaic(128, 64, 4)},
                    "large": {"float32": mosaic(128, 256, 3), "bfloat16": mosaic(128, 256, 3)}})
TUNED_SQUARE_PROLOGUE = TUNED_SQUARE
# (1024, 1024) @ (1024, 2048) plus a bias: probed on linear_bias_relu; fused_matmul_bias too.
# LARGE bfloat16 on Mosaic: the tile that won on matmul and mlp_block (linear_bias_relu's own
# probe ran out of time).
TUNED_WIDE = _tables(
    triton={"medium": {"bfloat16": _TRITON_WIDE_16}, "large": {"bfloat16": _TRITON_LARGE_16}},
    mosaic_configs={"medium": {"float32": mosaic(128, 128, 4)},
                    "large": {"float32": mosaic(128, 256, 3), "bfloat16": mosaic(128, 256, 3)}})
# Two gated weights, (512, 1024) @ 2 x (1024, 2048): probed on swiglu; geglu too.
TUNED_GATED = _tables(
    triton={"medium": {"bfloat16": _TRITON_WIDE_16}},
    mosaic_configs={"medium": {"float32": mosaic(128, 128, 4)}, "large": {"float32": mosaic(128, 256, 3)}})


def backend_kernels(task: str, shapes: dict, inputs, tables: dict, fn):
    """A matmul-class task's two implementations of `fn` (which calls fused_matmul under `task`):
    the Triton kernel (the task's `kernel`) and the Mosaic GPU kernel, each traced with its own
    shipped table and its backend pinned at every shape. The Mosaic one is GPU-only: three
    warpgroups, beyond the CPU interpreter (mosaic_matmul.refuse_interpret_mode)."""
    triton = tuning.tuned_kernel(task, shapes, inputs, tables["triton"], pinned={"backend": "triton"})(fn)
    on_mosaic = tuning.tuned_kernel(task, shapes, inputs, tables["mosaic"], pinned={"backend": "mosaic"})(fn)
    return triton, tl.gpu_only(on_mosaic)


# Contract x's last dim with the packed weight's last dim: x @ w_packed^T, no explicit transpose.
_NT_DIMS = (((1,), (1,)), ((), ()))
# Contract a (bk, bn) weight tile's first dim with x's last: (x @ w)^T = w^T @ x^T, (bn, bm).
_TN_DIMS = (((0,), (1,)), ((), ()))

# Tunable choices (pallasbench.task.tuning, read under the task's name; bench/probe.py):
# bm, bn (per weight) or width (all weights together), bk, num_warps, num_stages, group_m, pack,
# round_x, round_w, round_out; backend ("triton", the default, or "mosaic": the Mosaic GPU kernel
# of kernels/mosaic_matmul.py, Hopper only) and the Mosaic kernel's own keys (MOSAIC_TUNABLE:
# "mosaic_" + a mosaic_matmul.Config field, and mosaic_pack), apart from the Triton kernel's so
# that a task's shipped Triton tiles never reach the Mosaic kernel.
MOSAIC_TUNABLE = ("mosaic_bm", "mosaic_width", "mosaic_bk", "mosaic_stages", "mosaic_wg_split",
                  "mosaic_grid_minor", "mosaic_grid_width", "mosaic_epi_m", "mosaic_epi_n",
                  "mosaic_delay_release", "mosaic_pack")
TUNABLE = ("bm", "bn", "width", "bk", "num_warps", "num_stages", "group_m", "pack", "swap",
           "round_x", "round_w", "round_out", "backend", *MOSAIC_TUNABLE)


def relu(y):
    return jnp.maximum(y, 0.0)


def silu(y):
    return y * lax.logistic(y)


def gelu(y):
    """jax.nn.gelu's tanh approximation, written out so the kernel holds only tanh and mul/add."""
    c = 0.7978845608028654  # sqrt(2/pi)
    return 0.5 * y * (1.0 + jnp.tanh(c * (y + 0.044715 * (y * y * y))))


def identity(acc):
    """The plain matmul's epilogue."""
    return acc


def bias_add(acc, b):
    """The epilogue of x @ w + b (b the program's (1, bn) bias tile)."""
    return acc + b


def bias_relu(acc, b):
    """The epilogue of relu(x @ w + b)."""
    return relu(acc + b)


def gated(activation):
    """The GLU epilogue over the (gate, up) tiles of two weights: activation(gate) * up."""
    return lambda gate, up: activation(gate) * up


def hidden_dtype(dtype):
    """The dtype a pipeline of matmuls stores its hidden layer in (mlp_block, gated_mlp): the
    input's when it has float32's exponent range (float32, bfloat16), else float32. A float16
    hidden layer overflows at 65504 (a gate product of two activations near 256) where the
    reference's float32 one does not; the next matmul then reads float32."""
    wide_enough = jnp.finfo(dtype).maxexp >= jnp.finfo(jnp.float32).maxexp
    return jnp.dtype(dtype) if wide_enough else jnp.dtype(jnp.float32)


def _plan(m: int, n: int, k: int, n_w: int, itemsize: int = 4):
    """Tiles (bm, bn per weight, bk), warps and stages for (m, k) @ (k, n) with n_w weights and
    dot operands of `itemsize` bytes.

    One dot of (bm, bk) x (bk, n_w * bn) per K step. 128 x 128 per program in all (four warps:
    one warpgroup, 128 accumulator registers a thread, three stages) was the fastest tile on the
    H200: 256x128 / 128x256 at eight warps, four stages and bk = 64 were 2-140% slower, 128x64
    and 64x128 25-35%. Small problems shrink the tile until every SM has a program.
    """
    bk = tl.dividing_tile(k, BK_BYTES // itemsize)
    bm = tl.dividing_tile(m, 128)
    bn = tl.dividing_tile(n, max(16, 128 // n_w))
    while tl.cdiv(m, bm) * tl.cdiv(n, bn) < NUM_SMS:
        if bn * n_w >= bm and bn * n_w > MIN_BN and bn > 16:
            bn //= 2
        elif bm > MIN_BM:
            bm //= 2
        else:
            break
    return bm, bn, bk, 4, 3


def tile_ids(pid, grid_m: int, grid_n: int, group_m: int = GROUP_M):
    """Program id -> (row tile, column tile), grouped: group_m row tiles per sweep of columns."""
    # lax.div/rem: C semantics, which is all a non-negative id needs (// adds sign fix-ups).
    width = group_m * grid_n
    first_m = lax.div(pid, width) * group_m
    rows = jnp.minimum(grid_m - first_m, group_m)
    in_group = lax.rem(pid, width)
    return first_m + lax.rem(in_group, rows), lax.div(in_group, rows)


def packs_weights(dot_dtype) -> bool:
    """Whether the weights are packed K-major first (the shipped default): for float32 dots,
    whose TF32 wgmma reads a 32-bit operand from shared memory K-major only. 16-bit wgmma reads
    either major order, so bfloat16/float16 weights are read as they are (no packing pass)."""
    return jnp.dtype(dot_dtype).itemsize == 4


def _body(x_ref, *refs, n_w, packed, swapped, has_bias, prologue, epilogue, round_x, round_out,
          bm, bn, bk, k_steps, grid, group_m, dot_dtype):
    w_refs = refs[:1] if packed else refs[:n_w]
    bias_ref, o_ref = (refs[len(w_refs)] if has_bias else None), refs[-1]
    pid_m, pid_n = tile_ids(pl.program_id(0), *grid, group_m)
    rows = pl.ds(pl.multiple_of(pid_m * bm, bm), bm)
    width = n_w * bn if packed else bn  # columns of one weight tile
    cols = pl.ds(pl.multiple_of(pid_n * width, width), width)

    def step(k, accs):
        ks = pl.ds(pl.multiple_of(k * bk, bk), bk)
        xt = prologue(x_ref[rows, ks]).astype(dot_dtype)  # no-ops when all is one dtype
        if round_x:
            xt = round_tf32(xt)
        if packed:  # (n_w * bn, bk) K-major tile of all weights: x @ w_packed^T, one dot
            wt = w_refs[0][cols, ks].astype(dot_dtype)
            return (accs[0] + lax.dot_general(xt, wt, _NT_DIMS, precision=lax.Precision.DEFAULT,
                                              preferred_element_type=jnp.float32),)
        # (bk, bn) row-major tiles of each weight, one dot each; swapped: (x @ w)^T = w^T @ x^T,
        # the weight tile the dot's first operand (which wgmma may take from registers, in any
        # order) and x's K-major tile the second
        return tuple(acc + (lax.dot_general(w_ref[ks, cols].astype(dot_dtype), xt, _TN_DIMS,
                                            precision=lax.Precision.DEFAULT,
                                            preferred_element_type=jnp.float32) if swapped else
                            jnp.dot(xt, w_ref[ks, cols].astype(dot_dtype),
                                    precision=lax.Precision.DEFAULT,
                                    preferred_element_type=jnp.float32))
                     for acc, w_ref in zip(accs, w_refs))

    n_acc, acc_shape = (1, (bm, n_w * bn)) if packed else (n_w, (bn, bm) if swapped else (bm, bn))
    accs = lax.fori_loop(0, k_steps, step,
                         tuple(jnp.zeros(acc_shape, jnp.float32) for _ in range(n_acc)))
    if swapped:
        accs = tuple(acc.T for acc in accs)
    parts = jnp.split(accs[0], n_w, axis=1) if packed and n_w > 1 else accs
    extra = (bias_ref[...].astype(jnp.float32),) if has_bias else ()
    out = epilogue(*parts, *extra)
    if round_out:
        out = round_tf32(out)
    o_ref[...] = out.astype(o_ref.dtype)


def fused_matmul(x, weights, epilogue, *, bias=None, prologue=None, round_x=False,
                 round_w=False, round_out=False, out_dtype=None, name="fused_matmul", task=None):
    """epilogue(x' @ w_1, ..., x' @ w_n[, bias]) with x' = prologue(x): a weight-packing pass
    (float32 dots; see `packs_weights`), then one matmul pallas_call.

    x is (M, K), every weight (K, N), n = len(weights) a power of two, bias (N,) or None.
    epilogue maps float32 (bm, bn) tiles (and a (1, bn) bias tile) to the output tile; prologue
    maps float32 (bm, bk) tiles of x and must send 0 to 0 (padding). round_x / round_w /
    round_out round x's tiles in the kernel / the packed weights / the result to nearest TF32
    (not needed where Triton rounds dot operands itself, as on the H200). Ragged M, N, K are
    zero-padded outside the kernel. Every choice is tunable under `task` (default: `name`;
    pallasbench.task.tuning, the keys are TUNABLE): a task of two matmuls tunes both at once.

    The dot takes x's and the weights' common dtype (a float32 hidden layer meets float16
    weights as float32, exactly); the output is out_dtype, x's dtype by default.
    """
    (m, k), n = x.shape, weights[0].shape[1]
    n_w = len(weights)
    if n_w != tl.next_pow2(n_w):
        raise ValueError(f"{name}: {n_w} weights; the epilogue split needs a power of two")
    dot_dtype = jnp.promote_types(x.dtype, weights[0].dtype)
    pick = functools.partial(tuning.choice, task or name)
    backend = pick("backend", "triton")
    if backend == "mosaic":
        return fused_matmul_mosaic.fused_matmul(x, weights, epilogue, bias=bias, prologue=prologue,
                                    round_x=round_x, round_w=round_w, round_out=round_out,
                                    out_dtype=out_dtype, name=name, task=task or name,
                                    dot_dtype=dot_dtype, pick=pick)
    if backend != "triton":
        raise ValueError(f"{task or name}: backend {backend!r} is not 'triton' or 'mosaic'")
    bm, bn, bk, num_warps, num_stages = _plan(m, n, k, n_w, dot_dtype.itemsize)
    bm, bk = pick("bm", bm), pick("bk", bk)
    bn = pick("width", None) // n_w if pick("width", None) else pick("bn", bn)
    num_warps, num_stages = pick("num_warps", num_warps), pick("num_stages", num_stages)
    round_x, round_w = pick("round_x", round_x), pick("round_w", round_w)
    round_out, group_m = pick("round_out", round_out), pick("group_m", GROUP_M)
    packed = pick("pack", packs_weights(dot_dtype)) or round_w
    swapped = not packed and pick("swap", False)

    xp = masked.pad_to_multiple(masked.pad_to_multiple(x, 0, bm), 1, bk)
    mp, kp = xp.shape
    wps = [masked.pad_to_multiple(masked.pad_to_multiple(w, 0, bk), 1, bn) for w in weights]
    np_ = wps[0].shape[1]
    grid = (mp // bm, np_ // bn)

    any_spec = pl.BlockSpec(memory_space=pl.ANY)  # tiles are loaded by the K loop itself
    w_operands = [pack_weights(wps, bn, rounded=round_w, name=name + "_pack")] if packed else wps
    in_specs = [any_spec] * (1 + len(w_operands))
    operands = [xp, *w_operands]
    if bias is not None:
        in_specs.append(pl.BlockSpec((1, bn), lambda p: (0, tile_ids(p, *grid, group_m)[1])))
        operands.append(masked.pad_to_multiple(bias.reshape(1, n), 1, bn))

    body = functools.partial(
        _body, n_w=n_w, packed=packed, swapped=swapped, has_bias=bias is not None,
        prologue=prologue or (lambda t: t), epilogue=epilogue, round_x=round_x,
        round_out=round_out, bm=bm, bn=bn, bk=bk, k_steps=kp // bk, grid=grid, group_m=group_m,
        dot_dtype=dot_dtype)
    out = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((mp, np_), out_dtype or x.dtype),
        grid=(grid[0] * grid[1],),
        in_specs=in_specs,
        out_specs=pl.BlockSpec((bm, bn), lambda p: tile_ids(p, *grid, group_m)),
        compiler_params=tl.triton_params(num_warps=num_warps, num_stages=num_stages),
        name=name,
    )(*operands)
    return out if (mp, np_) == (m, n) else out[:m, :n]
