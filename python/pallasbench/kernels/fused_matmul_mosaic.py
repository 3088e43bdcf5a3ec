"""fused_matmul on the Mosaic GPU kernel (tiled_matmul.fused_matmul's backend "mosaic";
kernels/mosaic_matmul.py): the float32 weight packing and TF32 rounding, a prologue as a pass of
its own, and the kernel's configuration from the task's tuning values; and the projections of a
pipeline whose operand is row-normalised first (transformer_block's "proj_backend" "mosaic":
rms_normalized, side_by_side). Hopper GPUs only."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import elementwise, masked, mosaic_matmul
from pallasbench.kernels.weight_pack import pack_side_by_side, pack_weights, round_tf32
from pallasbench.task import tuning


def mosaic_config(m: int, n: int, n_w: int, itemsize: int, pick) -> mosaic_matmul.Config:
    """The Mosaic GPU kernel's plan for (m, n) with n_w weights, each field overridden by the
    task's tuning value `mosaic_<field>` (pick: tuning.choice bound to the task)."""
    base = mosaic_matmul.plan(m, n, n_w, itemsize)
    return mosaic_matmul.Config(**{field.name: pick("mosaic_" + field.name, getattr(base, field.name))
                                   for field in dataclasses.fields(base)})


def fused_matmul(x, weights, epilogue, *, bias, prologue, round_x, round_w, round_out,
                         out_dtype, name, task, dot_dtype, pick):
    """fused_matmul on the Mosaic GPU kernel (backend "mosaic"; kernels/mosaic_matmul.py).

    The packing pass stays for float32 (TF32 wgmma reads K-major operands only) and for n_w > 1
    (the kernel's one wgmma reads the interleaved tile); a 16-bit single weight is read as it is
    unless `pack` says otherwise. The pack rounds float32 weights to nearest TF32 by default here
    (`round_w`): wgmma truncates its float32 operands where Triton rounds them. `round_x` and
    `round_out` are XLA passes before / after the kernel. A prologue is a Pallas pass of its own
    over x (`_prologue_pass`, which also rounds float32 x to nearest TF32 where wgmma would
    truncate): the kernel reads its operands by TMA straight into shared memory, where no
    elementwise step runs. Hopper GPUs only: in the CPU worker's interpret mode it refuses,
    naming the task.
    """
    mosaic_matmul.refuse_interpret_mode(task)
    m, n = x.shape[0], weights[0].shape[1]
    n_w = len(weights)
    f32 = dot_dtype.itemsize == 4
    cfg = mosaic_config(m, n, n_w, dot_dtype.itemsize, pick)
    bn = cfg.width // n_w
    packed = f32 or n_w > 1 or pick("mosaic_pack", False)
    round_w = f32 and pick("round_w", True)
    round_x, round_out = f32 and pick("round_x", round_x), f32 and pick("round_out", round_out)

    xp = masked.pad_to_multiple(masked.pad_to_multiple(x.astype(dot_dtype), 0, cfg.bm), 1, cfg.bk)
    if prologue is not None:
        xp = _prologue_pass(xp, prologue, rounded=f32, name=name + "_prologue")
    elif round_x:
        xp = round_tf32(xp)
    wps = [masked.pad_to_multiple(masked.pad_to_multiple(w.astype(dot_dtype), 0, cfg.bk), 1, bn)
           for w in weights]
    np_ = wps[0].shape[1]
    w_operand = pack_weights(wps, bn, rounded=round_w, name=name + "_pack") if packed else wps[0]
    bias_p = None if bias is None else masked.pad_to_multiple(bias.reshape(1, n), 1, bn).reshape(np_)
    out = mosaic_matmul.matmul(xp, w_operand, epilogue, bias=bias_p, n_w=n_w, packed=packed,
                               config=cfg, out_dtype=out_dtype or x.dtype, name=name)
    if round_out:
        out = round_tf32(out)
    return out if out.shape == (m, n) else out[:m, :n]


def _prologue_body(x_ref, o_ref, *, prologue, rounded):
    t = prologue(x_ref[...].astype(jnp.float32))
    o_ref[...] = (round_tf32(t) if rounded else t).astype(o_ref.dtype)


def _prologue_pass(x, prologue, *, rounded: bool, name: str):
    """prologue(x) (rounded to nearest TF32 when `rounded`) in x's dtype, one Pallas pass: the
    Mosaic GPU matmul's prologue. It costs one read and one write of x."""
    body = functools.partial(_prologue_body, prologue=prologue, rounded=rounded)
    return elementwise.map_blocks(body, x, pad_edges=True, name=name)


def _rms_normalized_body(x_ref, o_ref, *, eps):
    x = x_ref[...]
    inv = 1.0 / jnp.sqrt(jnp.mean(x * x, axis=1, keepdims=True) + eps)
    o_ref[...] = round_tf32(x * inv)


def rms_normalized(x, *, eps: float, name: str, task: str):
    """rmsnorm(x) = x / sqrt(mean(x^2) + eps) per row of a float32 x, rounded to nearest TF32
    (wgmma would truncate it), whole rows a program: the Mosaic matmul reads its operand by TMA
    straight into shared memory, where no row statistic can be taken, so the norm is a pass of
    its own (one read and one write of x)."""
    seq, width = x.shape
    br = tl.dividing_tile(seq, max(16, 8192 // width))  # ~32 KB blocks
    if seq % br:
        raise ValueError(f"{task}: {seq} rows do not split into {br}-row blocks for the rmsnorm pass")
    rows = pl.BlockSpec((br, width), lambda i: (i, 0))
    return pl.pallas_call(functools.partial(_rms_normalized_body, eps=eps),
                          out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
                          grid=(seq // br,), in_specs=[rows], out_specs=rows,
                          compiler_params=tl.triton_params(num_warps=4, num_stages=1), name=name)(x)


def side_by_side(xn, weights, epilogue, *, bias=None, name: str, task: str):
    """epilogue(xn @ [w_1 | ... | w_n][, bias]) on the Mosaic GPU matmul: the weights packed
    side by side into one K-major (n * N, K) operand (one packing pass; no concatenation), one
    persistent TMA + wgmma kernel over all their columns, tiled by `task`'s mosaic_* tuning
    values. float32 only (TF32 wgmma)."""
    mosaic_matmul.refuse_interpret_mode(task)
    (m, k), n = xn.shape, sum(w.shape[1] for w in weights)
    cfg = mosaic_config(m, n, 1, 4, functools.partial(tuning.choice, task))
    if m % cfg.bm or n % cfg.width or k % cfg.bk:
        raise ValueError(f"{task}: the Mosaic projection {name} needs ({m}, {n}, {k}) in whole "
                         f"({cfg.bm}, {cfg.width}, {cfg.bk}) tiles")
    packed = pack_side_by_side(weights, rounded=True, name=name + "_pack")
    return mosaic_matmul.matmul(xn, packed, epilogue, bias=bias, n_w=1, packed=True, config=cfg,
                                out_dtype=jnp.float32, name=name)
