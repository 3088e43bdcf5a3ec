"""XLA's own output at a task's precision class, for judging a candidate against the platform
(docs/measurement.md, "Accuracy against the platform").

The class is float32 for a float32 run, TF32 where the task declares USES_TF32, and the run's
dtype for a bfloat16 or float16 run. The implementation is the task's own reference function,
compiled by XLA. TF32 is emulated, the same way on every device: each float32 operand of a
contraction is rounded to TF32's 10 mantissa bits (round to nearest even, float32's exponent),
and the contraction then runs at full float32 precision. That is what a TF32 tensor core
computes (rounded operands, exact products, float32 accumulation), and it keeps the CPU's
judgement the GPU's: XLA on the CPU ignores a TF32 matmul precision and computes in float32.
"""

from __future__ import annotations

TF32_MANTISSA_BITS = 10
FLOAT32_EXPONENT_BITS = 8
# Primitives whose operands a TF32 dot rounds.
CONTRACTIONS = frozenset({"dot_general", "conv_general_dilated"})
# Call-like primitives whose body is evaluated in place (their jaxpr's params, newest first).
_INLINED = frozenset({"pjit", "jit", "closed_call", "core_call", "remat", "checkpoint", "custom_jvp_call",
                      "custom_vjp_call", "custom_vjp_call_jaxpr"})
_BODY_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")


def _round_tf32(x):
    import jax.numpy as jnp
    from jax import lax

    if x.dtype != jnp.float32:
        return x
    return lax.reduce_precision(x, exponent_bits=FLOAT32_EXPONENT_BITS, mantissa_bits=TF32_MANTISSA_BITS)


def _body(eqn):
    """The closed jaxpr a call-like equation evaluates, or None."""
    from jax.extend import core

    if eqn.primitive.name not in _INLINED:
        return None
    for name in _BODY_PARAMS:
        body = eqn.params.get(name)
        if isinstance(body, core.ClosedJaxpr):
            return body
    return None


def _rewritten(closed):
    """`closed` with every contraction's float32 operands rounded to TF32 (same signature)."""
    import jax

    avals = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in closed.jaxpr.invars]
    return jax.make_jaxpr(lambda *args: _evaluate(closed.jaxpr, closed.consts, args))(*avals)


def _params(eqn) -> dict:
    """The equation's params, their nested jaxprs rewritten (cond's branches, scan's and while's
    bodies), and a contraction's precision made exact: its operands are rounded already."""
    from jax import lax
    from jax.extend import core

    params = {}
    for name, value in eqn.params.items():
        if isinstance(value, core.ClosedJaxpr):
            value = _rewritten(value)
        elif isinstance(value, tuple) and value and all(isinstance(v, core.ClosedJaxpr) for v in value):
            value = tuple(_rewritten(v) for v in value)
        params[name] = value
    if eqn.primitive.name == "dot_general":
        params["precision"] = (lax.Precision.HIGHEST, lax.Precision.HIGHEST)
    elif eqn.primitive.name == "conv_general_dilated":
        params["precision"] = (lax.Precision.HIGHEST, lax.Precision.HIGHEST)
    return params


def _evaluate(jaxpr, consts, args):
    from jax.extend import core

    env = {}

    def read(var):
        return var.val if isinstance(var, core.Literal) else env[var]

    for var, value in zip(jaxpr.constvars, consts):
        env[var] = value
    for var, value in zip(jaxpr.invars, args):
        env[var] = value
    for eqn in jaxpr.eqns:
        values = [read(v) for v in eqn.invars]
        body = _body(eqn)
        if body is not None:
            # custom_jvp/vjp calls pass their consts first; the body takes them as inputs too.
            outs = _evaluate(body.jaxpr, body.consts, values[len(values) - len(body.jaxpr.invars):])
        else:
            if eqn.primitive.name in CONTRACTIONS:
                values = [_round_tf32(v) for v in values]
            outs = eqn.primitive.bind(*values, **_params(eqn))
            if not eqn.primitive.multiple_results:
                outs = [outs]
        for var, value in zip(eqn.outvars, outs):
            env[var] = value
    return [read(v) for v in jaxpr.outvars]


def with_tf32_contractions(fn):
    """fn, traced, with each contraction's float32 operands rounded to TF32 (a function of the
    same arguments returning the same pytree)."""
    import jax

    def run(*args):
        closed, shape = jax.make_jaxpr(fn, return_shape=True)(*args)
        outs = _evaluate(closed.jaxpr, closed.consts, args)
        return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shape), outs)

    return run


def implementation(module, dtype: str):
    """The task's reference as XLA runs it at the task's precision class for a run at `dtype`
    (a function of the inputs at that dtype; jit it to compile)."""
    import jax

    tf32 = bool(getattr(module, "USES_TF32", False)) and dtype == "float32"
    fn = with_tf32_contractions(module.reference) if tf32 else module.reference

    def run(*xs):
        # Exact float32 contractions where the class is float32 (XLA's GPU default would be TF32);
        # the TF32 class rounded its operands above.
        with jax.default_matmul_precision("highest"):
            return fn(*xs)

    return run
