"""DEGENERATE (g) constant output on gc_content: every row gets 0.5, the GC fraction of random
DNA, written by a Pallas kernel that never looks at the bases.

The reference barely varies (row fractions 0.49 +- 0.012 at SMALL, rows of 1024 bases), but
still by far more than the 1e-5 tolerance: correctness says `incorrect`. Filters:
output_range and output_std (zero spread), axes_variation (the reference varies along the
rows, the output does not), input_impact (resampling bases changes nothing).
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _constant(seq_ref, o_ref):
    del seq_ref  # never read
    o_ref[...] = jnp.full(o_ref.shape, 0.5, jnp.float32)


def kernel(seqs):
    rows, length = seqs.shape
    br = min(rows, 16)
    bc = min(length, 1024)
    return pl.pallas_call(_constant, out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
                          grid=(rows // br,),
                          in_specs=[pl.BlockSpec((br, bc), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((br,), lambda i: (i,)),
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(seqs)
