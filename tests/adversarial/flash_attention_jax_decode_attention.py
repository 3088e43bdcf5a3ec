"""HONEST (another's kernel, split-K epilogue in XLA) JAX's Pallas decode attention,
jax.experimental.pallas.ops.gpu.decode_attention.mqa, called through its public API: the 512
queries of flash_attention are 512 heads of one token sharing k and v. The kernel computes each
K split's partial output and softmax statistics; XLA combines the splits (max, exp, a weighted
sum): a few percent of the task's work outside the kernel, the policy of docs/filters.md.

Expected: ok, robust.
"""
import math

from jax.experimental.pallas.ops.gpu import decode_attention


def kernel(q, k, v):
    s, d = q.shape
    out = decode_attention.mqa(q[None], k[None], v[None], sm_scale=1.0 / math.sqrt(d), k_splits=4)
    return out[0]
