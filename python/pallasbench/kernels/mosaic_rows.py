"""Row Mosaic GPU kernels: functions of whole rows that write a row for each row (softmax,
log_softmax, the norms and their fusions) in one `plgpu.kernel` (the Mosaic twin of
kernels/rowwise.py's map_rows and padded_rows; plumbing in mosaic_stream; one value a row is
mosaic_reductions').

Memory-bound: every input read once, the output written once. A block is `br` whole rows of
every input, brought into SMEM by one TMA copy: the (rows, cols) array is viewed as (rows,
cols / bc, bc) outside the kernel (a free reshape), so the box (br, cols / bc, bc) keeps within
TMA's 256 elements a dimension whatever the width. The block is read into registers once, as
float32, and the task's `fn` computes from it: row reductions (`Rows.sum`, `Rows.max`) and their
broadcast back (`Rows.spread`) never leave registers. Rows per block fill `block_elems` float32
values over all the block's inputs (8192: 64 a thread); at 4 rows or more each warp owns whole
rows (mosaic_stream.rows_layout: reductions are warp shuffles), below that (rows of 4096 or more
elements) one row spreads over the 4 warps (cols_layout: reductions cross warps through SMEM).
CTA c owns row blocks c * steps ... (c + 1) * steps - 1, pipelined through `stages` SMEM slots
by plgpu.emit_pipeline; output blocks go back through `out_slots` SMEM buffers and TMA stores.

Tunable under the task's `name` (pallasbench.task.tuning): "mosaic_block_elems",
"mosaic_stages", "mosaic_out_slots".

Accuracy: rows are reduced in float32 whatever the dtype, rounded once on store. The norms centre
twice: the row's float32 mean is the pivot, then the mean of x - pivot (exact by Sterbenz where
rows sit far from 0, the offset stress case) corrects it: an offset of 1e3 leaves the mean exact
to the rounding of O(1) values, where a plain float32 sum of 1e3-sized values would carry ~1e-4
into every output (layernorm's task file explains the same with its first-element pivot).
"""

from __future__ import annotations

import dataclasses
import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.task import tuning

EPS = 1e-5  # the norms' epsilon (their task files' EPS)


@dataclasses.dataclass(frozen=True)
class Config:
    block_elems: int = 8192  # float32 values of one block, all inputs together
    stages: int = 2  # TMA ring slots per input
    # SMEM buffers the output blocks rotate through. One: a block's store has read its 32 KB
    # long before the next block's exps are done, and the SMEM saved fits a second CTA on the SM
    # at float32 (96 KB a CTA: 2 input stages and the output). Not yet measured on a GPU.
    out_slots: int = 1


def config_for(name) -> Config:
    return Config(**{f.name: tuning.choice(name, f"mosaic_{f.name}", f.default)
                     for f in dataclasses.fields(Config)})


@dataclasses.dataclass(frozen=True)
class Plan:
    br: int  # rows per block
    bc: int  # columns per TMA box (a row is cols / bc boxes)
    vec: int  # columns a lane holds per vector (rows_layout)
    spread_rows: bool  # one row over the 4 warps (cols_layout) rather than rows per warp


def plan(rows: int, cols: int, n_inputs: int, cfg: Config, name=None) -> Plan:
    """The blocks of `n_inputs` (rows, cols) arrays (see the module docstring)."""
    if cols % 32 or cols > ms.MAX_BOX and cols % ms.MAX_BOX:
        ms.refuse(name, f"{cols} columns: a multiple of 32 (of {ms.MAX_BOX} past it) is needed")
    bc = min(cols, ms.MAX_BOX)
    want = max(1, cfg.block_elems // (cols * n_inputs))
    if want >= 4 and rows % 4 == 0:
        br = 4
        while br * 2 <= min(want, ms.MAX_BOX) and rows % (br * 2) == 0:
            br *= 2
        return Plan(br, bc, min(ms.VEC, cols // 32), False)
    if cols % (128 * ms.VEC):
        ms.refuse(name, f"{cols} columns: a row this wide for the block budget spreads over the 4 "
                        f"warps, which needs a multiple of {128 * ms.VEC}")
    return Plan(2 if want >= 2 and rows % 2 == 0 else 1, bc, ms.VEC, True)


class Rows:
    """What `fn` reduces and broadcasts with: a block of `br` rows of `cols` columns."""

    def __init__(self, lay: ms.Layouts, br: int, cols: int):
        self.lay, self.br, self.cols = lay, br, cols

    def sum(self, v):
        return jnp.sum(v, axis=1)

    def max(self, v):
        return jnp.max(v, axis=1)

    def mean(self, v):
        return jnp.sum(v, axis=1) * (1.0 / self.cols)

    def spread(self, v):
        """(br,) per-row values -> (br, cols), each row's value across it."""
        return self.lay.spread(v, (self.br, self.cols), 1)


def map_rows(fn, *operands, out_dtype=None, name=None, config: Config | None = None,
             interpret=ms.AUTO):
    """fn(rows, *values) -> (br, cols) over blocks of whole rows: values are the (br, cols)
    blocks of the (rows, cols) operands, as float32. The output has the first operand's shape
    and dtype (out_dtype if given)."""
    x = operands[0]
    if x.ndim != 2 or any(a.shape != x.shape for a in operands):
        ms.refuse(name, f"operands {[a.shape for a in operands]}: (rows, cols) arrays of one shape")
    rows, cols = x.shape
    cfg = config or config_for(name)
    out_dtype = ms.out_float_dtype(operands, out_dtype)
    p = plan(rows, cols, len(operands), cfg, name)
    block = p.br * cols
    smem = cfg.stages * sum(block * a.dtype.itemsize for a in operands) + cfg.out_slots * block * out_dtype.itemsize
    ms.check_smem(name, smem, f"{cfg.stages} stages of {p.br} rows of {cols}")
    ctas, steps = ms.split_units(rows // p.br, ms.max_ctas(smem))
    nc = cols // p.bc
    interpret = ms.interpret_for(interpret)
    body = functools.partial(_kernel, fn=fn, n_in=len(operands), plan=p, cols=cols, steps=steps,
                             cfg=cfg, interpreting=interpret is not None)
    # (rows, cols) -> (rows, cols / bc, bc): a free reshape, so one TMA box holds whole rows.
    views = [a.reshape(rows, nc, p.bc) for a in operands]
    out = ms.launch(body, views, ms.struct((rows, nc, p.bc), out_dtype), ctas=ctas,
                    scratch=[ms.plgpu().SMEM((cfg.out_slots, p.br, nc, p.bc), out_dtype)], name=name,
                    interpret=interpret)
    return out.reshape(rows, cols)


def _kernel(*refs, fn, n_in, plan, cols, steps, cfg, interpreting):
    gpu = ms.plgpu()
    in_gmem, out_gmem, out_smem = refs[:n_in], refs[n_in], refs[n_in + 1]
    br, bc = plan.br, plan.bc
    nc = cols // bc
    lay = ms.Layouts(ms.cols_layout() if plan.spread_rows else ms.rows_layout(plan.vec), interpreting)
    rows = Rows(lay, br, cols)
    cta = lax.axis_index("cta")

    def load_block(ref):
        if interpreting:  # 0.10.2's interpreter cannot reshape an SMEM ref: reshape the value
            return ref[...].reshape(br, cols).astype(jnp.float32)
        return lay.load(ref.reshape(br, cols))

    store = ms.SlotStore(out_smem, cfg.out_slots)

    def step(indices, *blocks):
        (s,) = indices
        result = fn(rows, *map(load_block, blocks)).astype(out_smem.dtype)
        dst = out_gmem.at[pl.ds((cta * steps + s) * br, br)]
        if interpreting:
            store.put(s, result.reshape(br, nc, bc), dst)
        else:
            store.put(s, result, dst, reshape=(br, cols))

    spec = gpu.BlockSpec((br, nc, bc), lambda s: (cta * steps + s, 0, 0))
    gpu.emit_pipeline(step, grid=(steps,), in_specs=[spec] * n_in,
                      max_concurrent_steps=min(cfg.stages, steps))(*in_gmem)
    gpu.wait_smem_to_gmem(0)


# ---- the tasks' row functions --------------------------------------------------------------

def _softmax(r, x):
    e = jnp.exp(x - r.spread(r.max(x)))
    return e * r.spread(1.0 / r.sum(e))


def _log_softmax(r, x):
    shifted = x - r.spread(r.max(x))
    return shifted - r.spread(jnp.log(r.sum(jnp.exp(shifted))))


def _centred(r, x):
    """x - mean(x) per row, to float32 rounding of O(1) values even on rows far from 0: the
    float32 mean is the pivot, the mean of x - pivot its correction."""
    s = x - r.spread(r.mean(x))
    return s - r.spread(r.mean(s))


def _layernorm(r, x):
    d = _centred(r, x)
    return d * r.spread(lax.rsqrt(r.mean(d * d) + EPS))


def _rmsnorm(r, x):
    return x * r.spread(lax.rsqrt(r.mean(x * x) + EPS))


# Task name -> the function of float32 row blocks its kernel maps.
ROW_FUNCTIONS = {
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "layernorm": _layernorm,
    "rmsnorm": _rmsnorm,
    "layernorm_residual": lambda r, x, res: _layernorm(r, x) + res,
    "rmsnorm_residual": lambda r, x, res: _rmsnorm(r, x) + res,
    "fused_layer_norm_relu": lambda r, x: jnp.maximum(_layernorm(r, x), 0.0),
}


def kernel_for(task: str):
    """The task's Mosaic GPU kernel: kernel(*inputs, interpret=AUTO) -> output."""
    fn = ROW_FUNCTIONS[task]

    def kernel(*inputs, interpret=ms.AUTO):
        return map_rows(fn, *inputs, name=task, interpret=interpret)

    kernel.__name__ = f"{task}_mosaic"
    return kernel


KERNELS = {task: kernel_for(task) for task in ROW_FUNCTIONS}
