"""compare's GPU acceptance, the slowed side (bench/compare_gpu.sh): relu_rows.py's kernel, then a
loop over the first fifth of the rows again, in place (relu is idempotent, so the result is the
same): 20% more memory traffic on a memory-bound kernel, about 20% more device time."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

ROWS = 8
EXTRA = 0.2  # the share of the rows passed over twice


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def _rows(x, steps, aliases):
    cols = x.shape[1]
    spec = pl.BlockSpec((ROWS, cols), lambda i: (i, 0))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(steps,),
                          in_specs=[spec], out_specs=spec, input_output_aliases=aliases,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)


def kernel(x):
    steps = x.shape[0] // ROWS
    y = _rows(x, steps, {})
    # The extra loop: blocks 0 .. steps/5 once more, written over themselves (the rest untouched).
    return _rows(y, max(1, int(steps * EXTRA)), {0: 0})
