"""Mosaic GPU kernels (`plgpu.kernel`) on the CPU: the interpreter the tracer exports them with.

JAX's own Mosaic GPU interpreter (`interpret=plgpu.InterpretGPUParams()`) simulates shared
memory, barriers and warpgroups through host callbacks, and `jax.export` cannot serialize host
callbacks ("serialization of host_callbacks is not yet implemented", jax 0.10.2): the executor,
which runs only what the tracer exports, could never run its module. So the tracer runs a
`plgpu.kernel` as Pallas runs a `pallas_call` in interpret mode (`interpret=True`: a loop over
the grid with every ref discharged into a value, plain XLA that exports), and this module gives
that interpreter rules for the Mosaic GPU primitives of a kernel of one warpgroup per block:

- TMA copies (`copy_gmem_to_smem`, `copy_smem_to_gmem` with a predicate or a reduction) complete
  when issued; reading global memory out of bounds gives zeros and writing there is dropped, as
  TMA does. Barriers, `commit_smem`, `wait_smem_to_gmem`, `wgmma_wait` and register hints do
  nothing: the program runs in order, so races are not found (JAX's interpreter finds none either).
- Shared memory with tiling, swizzle and transpose transforms (swizzling is a physical layout:
  the values seen through the transforms are the same), `plgpu.load`, layout casts.
- `wgmma` into an accumulator (`plgpu.ACC`, zeros at the start) in full float32 (the GPU's TF32
  drops mantissa bits); `emit_pipeline`; `lax.axis_index` of the grid's names and `pl.program_id`
  at any depth (read once at the kernel's top level, loop bodies take them as operands: in
  Pallas's interpret mode a program_id inside a loop has no lowering on the CPU).
- Refs through their transforms and global memory as TMA reads and writes it: worker/mosaic_refs.py.

Anything else raises `Unsupported`, naming it: several warpgroups (`num_threads` > 1, which run
concurrently on the GPU and would need a scheduler), clusters, collective copies and
allocations, TMEM and tcgen05 (Blackwell), semaphores and the other Mosaic GPU primitives.
The rules act only inside a Mosaic GPU kernel's interpretation (`_mesh_names` set): every
`pallas_call` interprets as before.
"""

from __future__ import annotations

import contextvars

from pallasbench.worker import mosaic_refs as refs
from pallasbench.worker.mosaic_refs import Unsupported

_mesh_names = contextvars.ContextVar("pallasbench_mosaic_grid_names", default=None)
# The grid's indices, read once at the kernel's top level: loop bodies take them as operands
# (a program_id inside a loop has no lowering on the CPU).
_grid_ids = contextvars.ContextVar("pallasbench_mosaic_grid_ids", default=None)
_installed = False


def install() -> None:
    """Register the rules with Pallas's interpret mode (idempotent; imports Mosaic GPU)."""
    global _installed
    if _installed:
        return
    from jax._src.pallas import hlo_interpreter as hlo
    from jax._src.pallas.mosaic_gpu import core as gpu_core

    rules = _rules()
    previous = {prim: hlo._eval_jaxpr_hop_rules.get(prim) for prim in rules}
    for prim, rule in rules.items():
        hlo._eval_jaxpr_hop_rules[prim] = _only_in_mosaic(rule, prim, previous[prim])
    logical_dtype = hlo._logical_to_interpret_mode_dtype

    def interpret_mode_dtype(dtype):
        # Barriers hold nothing the rules read: an int32 stands in for each.
        if isinstance(dtype, (gpu_core.BarrierType, gpu_core.ClusterBarrierType)):
            import jax.numpy as jnp

            return jnp.dtype(jnp.int32)
        return logical_dtype(dtype)

    hlo._logical_to_interpret_mode_dtype = interpret_mode_dtype
    hlo.pallas_call_hlo_interpret = _interpret_kernel(hlo.pallas_call_hlo_interpret)
    hlo.resolve_physical_types = _physicalize(hlo.resolve_physical_types)
    _installed = True


def _only_in_mosaic(rule, prim, previous):
    def dispatch(interpreter, *args, **params):
        if _mesh_names.get() is not None:
            return rule(interpreter, *args, **params)
        if previous is not None:
            return previous(interpreter, *args, **params)
        return prim.bind(*args, **prim.get_bind_params(params))

    return dispatch


def _interpret_kernel(original):
    """pallas_call_hlo_interpret, checking first that a Mosaic GPU kernel uses only what the
    rules can run, and giving the rules the grid's axis names while it runs."""

    def interpret(*args, jaxpr, grid_mapping, mesh, **params):
        from jax._src.pallas.mosaic_gpu import core as gpu_core

        if not isinstance(mesh, gpu_core.Mesh):
            return original(*args, jaxpr=jaxpr, grid_mapping=grid_mapping, mesh=mesh, **params)
        _check_mesh(mesh)
        _check_primitives(jaxpr)
        grid = tuple(int(n) for n in mesh.grid)
        token = _mesh_names.set((tuple(mesh.grid_names), grid, mesh.thread_name))
        try:
            return original(*args, jaxpr=jaxpr, grid_mapping=grid_mapping, mesh=mesh, **params)
        finally:
            _mesh_names.reset(token)

    return interpret


def _physicalize(original):
    """Pallas's pass over the kernel's jaxpr; at a Mosaic GPU kernel's top level it first reads
    the grid's indices (program_id), which lax.axis_index then returns at any depth."""

    def physicalize(jaxpr, consts):
        names = _mesh_names.get()
        if names is None or _grid_ids.get() is not None:
            return original(jaxpr, consts)
        from jax._src import core as jax_core
        from jax._src import linear_util as lu
        from jax._src.interpreters import partial_eval as pe
        from jax._src.pallas import hlo_interpreter as hlo
        from jax._src.pallas import primitives as pallas_primitives

        avals = tuple(map(hlo._logical_aval_to_interpret_mode_aval, jax_core.ClosedJaxpr(jaxpr, consts).in_avals))

        def top_level(*args):
            token = _grid_ids.set([pallas_primitives.program_id(i) for i in range(len(names[1]))])
            try:
                return hlo.eval_jaxpr_recursive(jaxpr, consts, *args, recurse_hop_rule=hlo.resolve_physical_types)
            finally:
                _grid_ids.reset(token)

        new_jaxpr, _, new_consts = pe.trace_to_jaxpr_dynamic(lu.wrap_init(top_level, debug_info=jaxpr.debug_info),
                                                             avals)
        return new_jaxpr, new_consts

    return physicalize


def _check_mesh(mesh) -> None:
    threads = int(mesh.num_threads or 1)
    if threads > 1:
        raise Unsupported(f"num_threads={threads}: the CPU interpreter runs one warpgroup per block, and "
                          "warpgroups that run concurrently (warp specialisation) only run on the GPU")
    if tuple(mesh.cluster or ()):
        raise Unsupported(f"cluster={tuple(mesh.cluster)}: clusters of blocks only run on the GPU")


def mosaic_primitives() -> dict:
    """Every Mosaic GPU primitive of the running jax, by object."""
    import jax._src.core as jax_core
    from jax._src.pallas.mosaic_gpu import core as gpu_core
    from jax._src.pallas.mosaic_gpu import primitives as gpu_primitives

    return {v: v.name for m in (gpu_core, gpu_primitives) for v in vars(m).values()
            if isinstance(v, jax_core.Primitive)}


def supported_primitives() -> set:
    """The primitives the rules run (Mosaic GPU's and the state and control flow ones)."""
    return set(_rules())


def _check_primitives(jaxpr) -> None:
    from pallasbench.worker import jaxpr_info

    supported = supported_primitives()
    known = mosaic_primitives()
    missing = sorted({known[e.primitive] for e, _ in jaxpr_info.iter_equations(jaxpr)
                      if e.primitive in known and e.primitive not in supported})
    if missing:
        raise Unsupported(f"Mosaic GPU primitive(s) {', '.join(missing)}: the CPU interpreter runs TMA copies, "
                          "barriers, shared memory, layout casts and wgmma of one warpgroup; these only run on the GPU")


# ---- the rules ----------------------------------------------------------------------------------


def _nothing(interpreter, *args, **params):
    return []


def _copy_gmem_to_smem(interpreter, src, dst, *operands, src_transforms_treedef, dst_transforms_treedef,
                       barrier_transforms_treedef, collective_axes=None, has_barrier=True,
                       has_user_predicate=False, **params):
    """jax 0.11 makes the barrier optional (has_barrier) and adds a predicate; 0.10 has neither."""
    if collective_axes:
        raise Unsupported(f"a collective TMA copy (collective_axes={collective_axes}): clusters only run on the GPU")
    leaves = operands[1:] if has_barrier else operands
    (src_t, dst_t, _), rest = refs.split(leaves, src_transforms_treedef, dst_transforms_treedef,
                                     barrier_transforms_treedef)
    block = refs.gmem_read(src, src_t).astype(dst.aval.inner_aval.dtype)
    if has_user_predicate:
        import jax.numpy as jnp

        block = jnp.where(rest[0], block, refs.read(dst, dst_t))
    refs.write(dst, dst_t, block)
    return []


def _copy_smem_to_gmem(interpreter, src, dst, *leaves, src_transforms_treedef, dst_transforms_treedef,
                       has_user_predicate, reduction_op=None, **params):
    (src_t, dst_t), rest = refs.split(leaves, src_transforms_treedef, dst_transforms_treedef)
    predicate = rest[0] if has_user_predicate else None
    refs.gmem_write(dst, dst_t, refs.read(src, src_t), predicate, reduction_op)
    return []


def _load(interpreter, src, *leaves, tree, **params):
    from jax import tree_util

    return refs.read(src, tree_util.tree_unflatten(tree, leaves))


def _get(interpreter, ref, *leaves, tree):
    from jax import tree_util

    return refs.read(ref, tree_util.tree_unflatten(tree, leaves))


def _swap_rule(interpreter, ref, val, *leaves, tree):
    from jax import tree_util

    return refs.write(ref, tree_util.tree_unflatten(tree, leaves), val)


def _addupdate(interpreter, ref, val, *leaves, tree):
    from jax import tree_util

    transforms = tree_util.tree_unflatten(tree, leaves)
    refs.write(ref, transforms, refs.read(ref, transforms) + val)
    return []


def _wgmma(interpreter, acc, a, b, *leaves, acc_transforms_tree, a_transforms_tree, b_transforms_tree):
    import jax.numpy as jnp
    from jax import lax
    from jax._src import core as jax_core
    from jax._src.state import types as state_types

    (acc_t, a_t, b_t), _ = refs.split(leaves, acc_transforms_tree, a_transforms_tree, b_transforms_tree)
    a_val = refs.read(a, a_t) if isinstance(jax_core.typeof(a), state_types.AbstractRef) else a
    total = refs.read(acc, acc_t)
    product = jnp.dot(a_val, refs.read(b, b_t), preferred_element_type=total.dtype, precision=lax.Precision.HIGHEST)
    refs.write(acc, acc_t, total + product)
    return []


def _accumulator_load(interpreter, acc, **params):
    return refs.read(acc, ())


def _accumulator_store(interpreter, acc, val):
    refs.write(acc, (), val)
    return val


def _layout_cast(interpreter, x, **params):
    return x


def _axis_index(interpreter, *, axis_name):
    from jax import lax

    grid_names, _, thread_name = _mesh_names.get()
    if axis_name in grid_names:
        return _grid_ids.get()[grid_names.index(axis_name)]
    if axis_name == thread_name:  # one warpgroup: thread 0
        import jax.numpy as jnp

        return jnp.int32(0)
    return lax.axis_index_p.bind(axis_name=axis_name)


def _program_id(interpreter, *, axis):
    return _grid_ids.get()[axis]


def _num_programs(interpreter, *, axis):
    import jax.numpy as jnp

    return jnp.int32(_mesh_names.get()[1][axis])


def _run_scoped(interpreter, *consts, jaxpr, collective_axes, **params):
    """The scope's allocations as fresh refs and its body inlined: a nested run_scoped would be
    discharged when lowered, where the grid's indices are gone."""
    import jax.numpy as jnp
    from jax._src import core as jax_core
    from jax._src.pallas import hlo_interpreter as hlo
    from jax._src.pallas import primitives as pallas_primitives
    from jax._src.pallas.mosaic_gpu import core as gpu_core

    _, _, thread_name = _mesh_names.get()
    axes = collective_axes if isinstance(collective_axes, tuple) else (collective_axes,)
    if any(a != thread_name for a in axes):
        raise Unsupported(f"an allocation shared over {axes}: clusters only run on the GPU")
    allocated = []
    for var in jaxpr.invars:
        aval = hlo._logical_aval_to_interpret_mode_aval(var.aval)
        inner = aval.inner_aval
        if isinstance(var.aval, gpu_core.WGMMAAbstractAccumulatorRef):
            value = jnp.zeros(inner.shape, inner.dtype)
        else:
            value = pallas_primitives.uninitialized_value(inner.shape, inner.dtype)
        allocated.append(jax_core.new_ref(value))
    return hlo.eval_jaxpr_recursive(jaxpr, consts, *allocated, recurse_hop_rule=interpreter)


def _lifted(interpreter, closed):
    """A loop body or branch through the pass, with what it closes over (the grid's indices)
    turned into leading operands: (jaxpr, consts)."""
    jaxpr, consts = interpreter(closed.jaxpr, closed.consts)
    return jaxpr, list(consts)


def _scan(interpreter, *args, jaxpr, **params):
    from jax._src import core as jax_core
    from jax._src.interpreters import partial_eval as pe
    from jax._src.lax.control_flow import loops

    body, consts = _lifted(interpreter, jaxpr)
    if "ft_in" in params:  # jax 0.11: the operands as a flat tree (consts, carry, xs), no num_consts
        from jax._src import flattree as ft

        given, carry, xs = params.pop("ft_in").unpack()
        params["ft_in"] = ft.pack((ft.nones(len(consts) + len(given)), carry, xs))
    else:
        params["num_consts"] += len(consts)
    return loops.scan_p.bind(*consts, *args, jaxpr=jax_core.ClosedJaxpr(pe.convert_constvars_jaxpr(body), ()),
                             **params)


def _while(interpreter, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts, **params):
    from jax._src import core as jax_core
    from jax._src.interpreters import partial_eval as pe
    from jax._src.lax.control_flow import loops

    cond, cond_consts = _lifted(interpreter, cond_jaxpr)
    body, body_consts = _lifted(interpreter, body_jaxpr)
    cond_args, body_args, carry = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts], \
        args[cond_nconsts + body_nconsts:]
    return loops.while_p.bind(*cond_consts, *cond_args, *body_consts, *body_args, *carry,
                              cond_jaxpr=jax_core.ClosedJaxpr(pe.convert_constvars_jaxpr(cond), ()),
                              body_jaxpr=jax_core.ClosedJaxpr(pe.convert_constvars_jaxpr(body), ()),
                              cond_nconsts=cond_nconsts + len(cond_consts),
                              body_nconsts=body_nconsts + len(body_consts), **params)


def _every_branchs_consts(jaxpr, i: int, const_avals):
    """Branch i taking the consts of every branch in branch order, the others' unused: cond's
    branches need one signature. (Written here: jax 0.11 dropped hlo_interpreter's own.)"""
    from jax._src import core as jax_core
    from jax._src.interpreters import partial_eval as pe

    constvars = [v for j, avals in enumerate(const_avals)
                 for v in (jaxpr.constvars if j == i else [jax_core.Var(a) for a in avals])]
    jaxpr = jaxpr.replace(constvars=constvars)
    jaxpr = jaxpr.replace(effects=pe.make_jaxpr_effects(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, jaxpr.eqns))
    return jax_core.ClosedJaxpr(pe.convert_constvars_jaxpr(jaxpr), ())


def _cond(interpreter, index, *args, branches, **params):
    from jax._src import core as jax_core
    from jax._src.lax.control_flow import conditionals

    lifted = [_lifted(interpreter, branch) for branch in branches]
    const_avals = [tuple(jax_core.typeof(c) for c in consts) for _, consts in lifted]
    padded = tuple(_every_branchs_consts(jaxpr, i, const_avals) for i, (jaxpr, _) in enumerate(lifted))
    consts = [c for _, cs in lifted for c in cs]
    return conditionals.cond_p.bind(index, *consts, *args, branches=padded, **params)


def _inline_call(interpreter, *args, **params):
    """A jit or closed_call inside the kernel, inlined: its body sees the grid's indices too."""
    closed = params.get("jaxpr", params.get("call_jaxpr"))
    from jax._src.pallas import hlo_interpreter as hlo

    return hlo.eval_jaxpr_recursive(closed.jaxpr, closed.consts, *args, recurse_hop_rule=interpreter)


def _rules() -> dict:
    from jax import lax
    from jax._src import core as jax_core
    from jax._src import pjit
    from jax._src.lax.control_flow import conditionals, loops
    from jax._src.pallas import primitives as pallas_primitives
    from jax._src.pallas.mosaic_gpu import core as gpu_core
    from jax._src.pallas.mosaic_gpu import primitives as gpu
    from jax._src.state import primitives as state

    rules = {gpu.copy_gmem_to_smem_p: _copy_gmem_to_smem, gpu.copy_smem_to_gmem_p: _copy_smem_to_gmem,
             gpu.load_p: _load, gpu.wgmma_ref_p: _wgmma, gpu.wgmma_accumulator_deref_p: _accumulator_load,
             gpu.wgmma_accumulator_store_p: _accumulator_store, gpu_core.layout_cast_p: _layout_cast,
             state.get_p: _get, state.swap_p: _swap_rule, state.addupdate_p: _addupdate,
             lax.axis_index_p: _axis_index, pallas_primitives.run_scoped_p: _run_scoped,
             pallas_primitives.program_id_p: _program_id, pallas_primitives.num_programs_p: _num_programs,
             loops.scan_p: _scan, loops.while_p: _while, conditionals.cond_p: _cond,
             jax_core.closed_call_p: _inline_call, pjit.jit_p: _inline_call}
    waits = ("barrier_wait_p", "barrier_arrive_p", "commit_smem_p", "commit_group_p", "wait_smem_to_gmem_p",
             "wait_gmem_to_smem_p", "wgmma_wait_p", "set_max_registers_p", "async_prefetch_p", "griddepcontrol_wait_p",
             "griddepcontrol_launch_dependents_p", "print_layout_p")
    for name in waits:  # each version's own: wait_gmem_to_smem is jax 0.11's
        if hasattr(gpu, name):
            rules[getattr(gpu, name)] = _nothing
    return rules
