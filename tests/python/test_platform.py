"""worker/platform.py: XLA's own implementation at a task's precision class, TF32 emulated by
rounding each float32 contraction operand to 10 mantissa bits, through every call-like wrapper."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from pallasbench.task import registry
from pallasbench.worker import platform


def tf32(x):
    """Round to nearest even at 10 mantissa bits, in numpy (independent of the module)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    drop = 23 - platform.TF32_MANTISSA_BITS
    half = 1 << (drop - 1)
    odd = (bits >> drop) & 1
    rounded = ((bits + half - 1 + odd) >> drop) << drop
    return rounded.astype(np.uint32).view(np.float32)


def test_contraction_operands_are_rounded_through_jit_and_custom_jvp():
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((32, 48)).astype(np.float32), rng.standard_normal((48, 16)).astype(np.float32))

    def fn(a, b):  # a dot inside a nested jit, then a custom_jvp (relu) and a second plain dot
        inner = jax.jit(lambda x, y: x @ y)(a, b)
        return jax.nn.relu(inner) @ jnp.ones((16, 4), jnp.float32)

    out = np.asarray(jax.jit(platform.with_tf32_contractions(fn))(a, b))
    inner = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
    expected = tf32(np.maximum(inner.astype(np.float32), 0)).astype(np.float64) @ np.ones((16, 4))
    np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-5)
    exact = np.maximum(a.astype(np.float64) @ b, 0) @ np.ones((16, 4))
    assert np.max(np.abs(out - exact)) > 1e-3  # really rounded: TF32's error, not float32's


def test_non_contractions_and_other_dtypes_are_untouched():
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(8, 8) + np.float32(1e-4)
    fn = platform.with_tf32_contractions(lambda x: jnp.exp(x) + lax.cumsum(x, axis=1))
    np.testing.assert_array_equal(np.asarray(jax.jit(fn)(x)), np.asarray(jax.jit(lambda x: jnp.exp(x) + lax.cumsum(x, axis=1))(x)))
    h = x.astype(jnp.bfloat16)
    bf = platform.with_tf32_contractions(lambda x: x @ x)
    np.testing.assert_array_equal(np.asarray(jax.jit(bf)(h), np.float32), np.asarray(jax.jit(lambda x: x @ x)(h), np.float32))


def test_the_class_follows_the_task_and_the_dtype():
    matmul, relu = registry.load("matmul"), registry.load("relu")
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((64, 64)).astype(np.float32) for _ in range(2))
    tf32_out = np.asarray(jax.jit(platform.implementation(matmul, "float32"))(a, b))
    np.testing.assert_allclose(tf32_out, tf32(a).astype(np.float64) @ tf32(b), rtol=1e-5, atol=1e-5)
    # At bfloat16 the class is the dtype: the inputs' own rounding, no TF32 step.
    a16, b16 = a.astype(jnp.bfloat16), b.astype(jnp.bfloat16)
    bf_out = np.asarray(jax.jit(platform.implementation(matmul, "bfloat16"))(a16, b16), np.float32)
    assert bf_out.dtype == np.float32 and bf_out.shape == (64, 64)
    x = rng.standard_normal((8, 8)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(jax.jit(platform.implementation(relu, "float32"))(x)), np.maximum(x, 0))
