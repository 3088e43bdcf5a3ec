"""The CPU's interpreter for Mosaic GPU kernels (worker/mosaic_interpret.py): plgpu.kernel run
through Pallas's interpret mode with rules for TMA copies, barriers, shared-memory transforms,
layout casts and wgmma, exported without host callbacks (what the executor can run), and a clear
refusal of what it cannot run."""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

from pallasbench.task import registry
from pallasbench.worker import interpret, mosaic_interpret

BACKENDS = Path(__file__).resolve().parents[1] / "candidates" / "backends"
RNG = np.random.default_rng(7)


def run_interpreted(fn, *xs):
    """fn(*xs) as the tracer's CPU module runs it: forced interpret mode, exported and run."""
    jax.clear_caches()
    with interpret.forced(True):
        exported = jax.export.export(jax.jit(fn), platforms=["cpu"])(*[jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs])
    exported = jax.export.deserialize(exported.serialize())  # no host callback: it serializes
    return np.asarray(exported.call(*xs))


def pipelined(body_fn, x, block, grid):
    def body(x_gmem, o_gmem):
        spec = plgpu.BlockSpec(block, lambda i, j: (i, j))
        plgpu.emit_pipeline(lambda _, x_smem, o_smem: body_fn(x_smem, o_smem), grid=grid, in_specs=[spec],
                            out_specs=[spec])(x_gmem, o_gmem)

    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def test_a_pipeline_over_a_ragged_array_reads_zeros_and_drops_writes_past_its_edges():
    """(100, 300) in (32, 128) tiles: the edge tiles overhang, as TMA allows. Each output adds its
    tile row's sum: past the edges TMA reads zeros, so only the array's own elements count; what
    lands past the edges is dropped."""
    x = jnp.asarray(RNG.standard_normal((100, 300)), jnp.float32)

    def step(x_smem, o_smem):
        v = x_smem[...]
        o_smem[...] = v + jnp.sum(v, axis=1, keepdims=True)

    got = run_interpreted(lambda t: pipelined(step, t, (32, 128), (pl.cdiv(100, 32), pl.cdiv(300, 128))), x)
    padded = np.pad(np.asarray(x), ((0, 28), (0, 84)))
    tile_sums = padded.reshape(128, 3, 128).sum(axis=2, keepdims=True)
    want = (padded.reshape(128, 3, 128) + tile_sums).reshape(128, 384)[:100, :300]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_manual_copies_barriers_and_the_grids_axis_names():
    x = jnp.asarray(RNG.standard_normal((64, 256)), jnp.float32)
    bm, bn = 32, 128

    def body(x_gmem, o_gmem, x_smem, o_smem, barrier):
        tile = (pl.ds(lax.axis_index("m") * bm, bm), pl.ds(lax.axis_index("n") * bn, bn))
        plgpu.copy_gmem_to_smem(x_gmem.at[tile], x_smem, barrier)
        plgpu.barrier_wait(barrier)
        o_smem[...] = x_smem[...] * 2.0 + lax.axis_index("n").astype(jnp.float32)
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(o_smem, o_gmem.at[tile])
        plgpu.wait_smem_to_gmem(0)

    def fn(t):
        return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(t.shape, t.dtype), grid=(2, 2), grid_names=("m", "n"),
                            scratch_types=[plgpu.SMEM((bm, bn), jnp.float32), plgpu.SMEM((bm, bn), jnp.float32),
                                           plgpu.Barrier(num_barriers=1)])(t)

    want = (np.asarray(x) * 2 + np.repeat(np.float32([0, 1]), bn)[None, :]).astype(np.float32)
    np.testing.assert_array_equal(run_interpreted(fn, x), want)


def test_wgmma_from_tiled_swizzled_shared_memory_with_grid_indices_inside_the_pipeline():
    """bf16 (128, 128) @ (128, 128) in (64, 64) output tiles, K in two steps; the index maps read
    lax.axis_index and pl.program_id inside the pipeline's loop."""
    a = jnp.asarray(RNG.standard_normal((128, 128)), jnp.bfloat16)
    b = jnp.asarray(RNG.standard_normal((128, 128)), jnp.bfloat16)
    tiles = (plgpu.TilingTransform((8, 64)), plgpu.SwizzleTransform(128))

    def body(a_gmem, b_gmem, o_gmem, acc):
        def step(_, a_smem, b_smem):
            plgpu.wgmma(acc, a_smem, b_smem)
            plgpu.wgmma_wait(0)

        plgpu.emit_pipeline(step, grid=(2,), in_specs=[
            plgpu.BlockSpec((64, 64), lambda k: (lax.axis_index("m"), k), transforms=tiles),
            plgpu.BlockSpec((64, 64), lambda k: (k, pl.program_id(1)), transforms=tiles)])(a_gmem, b_gmem)
        o_gmem[pl.ds(lax.axis_index("m") * 64, 64), pl.ds(lax.axis_index("n") * 64, 64)] = acc[...]

    def fn(x, y):
        return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128, 128), jnp.float32), grid=(2, 2),
                            grid_names=("m", "n"), scratch_types=[plgpu.ACC((64, 64), jnp.float32)])(x, y)

    want = np.asarray(a, np.float32) @ np.asarray(b, np.float32)
    np.testing.assert_allclose(run_interpreted(fn, a, b), want, rtol=1e-5, atol=1e-4)


def test_the_backends_softmax_with_layouts_and_transforms():
    module = registry.import_file(BACKENDS / "mosaic_softmax.py", "backends_mosaic_softmax")
    x = jnp.asarray(RNG.standard_normal((128, 256)), jnp.float32)
    np.testing.assert_allclose(run_interpreted(module.kernel, x), np.asarray(jax.nn.softmax(x, axis=-1)),
                               rtol=1e-6, atol=1e-7)


def test_several_warpgroups_are_refused_by_name():
    x = jnp.zeros((64, 64), jnp.float32)

    def body(x_gmem, o_gmem):
        o_gmem[...] = x_gmem[...]

    def fn(t):
        return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(t.shape, t.dtype), num_threads=2,
                            thread_name="wg")(t)

    with pytest.raises(mosaic_interpret.Unsupported, match="num_threads=2.*one warpgroup"):
        run_interpreted(fn, x)


def test_a_primitive_without_a_rule_is_refused_by_name():
    x = jnp.zeros((64, 64), jnp.float32)

    def body(x_gmem, o_gmem, smem):
        plgpu.copy_smem_to_gmem(smem, o_gmem, reduction_op="inc")

    def fn(t):
        return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(t.shape, t.dtype),
                            scratch_types=[plgpu.SMEM((64, 64), jnp.float32)])(t)

    with pytest.raises(mosaic_interpret.Unsupported, match="TMA reduction 'inc'"):
        run_interpreted(fn, x)
    known = mosaic_interpret.mosaic_primitives()
    missing = {name for prim, name in known.items() if prim not in mosaic_interpret.supported_primitives()}
    assert {"tcgen05_mma", "semaphore_signal", "async_store_smem"} <= missing


def test_pallas_calls_interpret_as_before():
    """The rules act inside Mosaic GPU kernels only: a pallas_call's loop, jitted helper and
    program_id interpret through Pallas's own rules, after the rules are installed."""
    x = jnp.asarray(RNG.standard_normal((16, 128)), jnp.float32)
    twice = jax.jit(lambda v: v * 2.0)

    def body(x_ref, o_ref):
        base = pl.program_id(0).astype(jnp.float32)
        o_ref[...] = lax.fori_loop(0, 3, lambda _, acc: acc + twice(x_ref[...]), jnp.zeros_like(x_ref)) + base

    def fn(t):
        return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(t.shape, t.dtype), grid=(2,),
                              in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(t)

    mosaic_interpret.install()
    want = np.asarray(x) * 6 + np.repeat([0.0, 1.0], 8)[:, None]
    np.testing.assert_allclose(run_interpreted(fn, x), want, rtol=1e-6)
