"""softmax over rows on Mosaic GPU whose blocks do not fit: (128, cols) float32 blocks, one in
and one out (2 x 128 KiB at 256 columns) against 227 KiB of shared memory a block. Fails to
lower, naming the rule and the fix (64-row blocks: mosaic_softmax.py)."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.pallas import mosaic_gpu as plgpu

BM = 128


def kernel(x):
    rows, cols = x.shape
    layout = (plgpu.TilingTransform((8, 32)), plgpu.SwizzleTransform(128))

    def body(x_gmem, o_gmem):
        def step(_, x_smem, o_smem):
            v = plgpu.layout_cast(x_smem[...], plgpu.Layout.WGMMA)
            e = jnp.exp(v - plgpu.layout_cast(lax.broadcast_in_dim(jnp.max(v, axis=1), v.shape, [0]),
                                              plgpu.Layout.WGMMA))
            s = plgpu.layout_cast(lax.broadcast_in_dim(jnp.sum(e, axis=1), v.shape, [0]), plgpu.Layout.WGMMA)
            o_smem[...] = e / s

        block = plgpu.BlockSpec((BM, cols), lambda i: (i, 0), transforms=layout)
        plgpu.emit_pipeline(step, grid=(rows // BM,), in_specs=[block], out_specs=[block])(x_gmem, o_gmem)

    return plgpu.kernel(
        body,
        out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup),
    )(x)
