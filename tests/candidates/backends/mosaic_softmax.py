"""softmax over rows on Mosaic GPU: plgpu.kernel, an emit_pipeline over blocks of 64 whole rows
(columns at most 256, a multiple of 32), tiled and swizzled in shared memory so the values load in
the WGMMA layout that row reductions need."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.pallas import mosaic_gpu as plgpu

BM = 64


def kernel(x):
    rows, cols = x.shape
    swizzle = 128  # bytes: 32 float32 columns per tile row
    layout = (plgpu.TilingTransform((8, swizzle // x.dtype.itemsize)), plgpu.SwizzleTransform(swizzle))

    def body(x_gmem, o_gmem):
        def step(_, x_smem, o_smem):
            v = plgpu.layout_cast(x_smem[...], plgpu.Layout.WGMMA).astype(jnp.float32)
            row_max = lax.broadcast_in_dim(jnp.max(v, axis=1), v.shape, [0])
            e = jnp.exp(v - plgpu.layout_cast(row_max, plgpu.Layout.WGMMA))
            row_sum = lax.broadcast_in_dim(jnp.sum(e, axis=1), v.shape, [0])
            o_smem[...] = (e / plgpu.layout_cast(row_sum, plgpu.Layout.WGMMA)).astype(o_smem.dtype)

        block = plgpu.BlockSpec((BM, cols), lambda i: (i, 0), transforms=layout)
        plgpu.emit_pipeline(step, grid=(rows // BM,), in_specs=[block], out_specs=[block])(x_gmem, o_gmem)

    return plgpu.kernel(
        body,
        out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup),
    )(x)
