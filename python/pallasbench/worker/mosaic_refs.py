"""Values through Mosaic GPU refs for the CPU interpreter (worker/mosaic_interpret.py): shared
memory read and written through its transforms (indexing, tiling, swizzle, transposes), and global
memory as TMA reads and writes it (a block overhanging the array reads zeros there and its writes
there are dropped). Each function is traced inside the interpreter's pass over a kernel's jaxpr:
refs in, state primitives out, which Pallas's interpret mode then discharges."""

from __future__ import annotations


class Unsupported(NotImplementedError):
    """A Mosaic GPU feature the CPU interpreter cannot run; the message names it."""


def _standard(transforms) -> bool:
    from jax._src.state import indexing, types

    # Reshapes are applied here (_apply, _swap): jax 0.10.2's state discharge reads through them but
    # cannot write through them ("Unsupported transform: ReshapeTransform").
    return all(isinstance(t, (indexing.NDIndexer, types.BitcastTransform)) for t in transforms)


def _untile(x, tiling):
    """(*lead, *tiles, *tile) -> (*lead, *tiles * tile): UntilingTransform on a value."""
    k = len(tiling)
    lead = x.ndim - 2 * k
    order = list(range(lead)) + [a for i in range(k) for a in (lead + i, lead + k + i)]
    return x.transpose(order).reshape(x.shape[:lead] + tuple(x.shape[lead + i] * t for i, t in enumerate(tiling)))


def _tile(x, tiling):
    k = len(tiling)
    lead = x.ndim - k
    split = x.shape[:lead] + tuple(s for i, t in enumerate(tiling) for s in (x.shape[lead + i] // t, t))
    order = list(range(lead)) + [lead + 2 * i for i in range(k)] + [lead + 2 * i + 1 for i in range(k)]
    return x.reshape(split).transpose(order)


def _apply(x, t):
    from jax._src.pallas.mosaic_gpu import core as gpu_core
    from jax._src.state import discharge, types

    if _standard([t]):
        return discharge.transform_array(x, [t])
    if isinstance(t, gpu_core.UnswizzleRef):
        return x
    if isinstance(t, gpu_core.UntilingTransform):
        return _untile(x, t.tiling)
    if isinstance(t, types.TransposeTransform):
        return x.transpose(t.permutation)
    if isinstance(t, types.ReshapeTransform):
        return x.reshape(t.shape)
    raise Unsupported(f"the ref transform {type(t).__name__}: the CPU interpreter runs indexing, tiling, swizzle "
                      "and transposes of shared memory")


def _swap(x, transforms, val):
    """(the value at `transforms` of x, x with `val` written there)."""
    import numpy as np
    from jax._src.pallas.mosaic_gpu import core as gpu_core
    from jax._src.state import discharge, types

    if not transforms:
        return x, val
    t, rest = transforms[0], transforms[1:]
    old, inner = _swap(_apply(x, t), rest, val)
    if _standard([t]):
        return old, discharge.transform_swap_array(x, [t], inner)[1]
    if isinstance(t, gpu_core.UntilingTransform):
        return old, _tile(inner, t.tiling)
    if isinstance(t, types.TransposeTransform):
        return old, inner.transpose(tuple(np.argsort(t.permutation)))
    if isinstance(t, types.ReshapeTransform):
        return old, inner.reshape(x.shape)
    return old, inner  # unswizzled: the same values


def _empty_tree():
    from jax import tree_util

    return tree_util.tree_flatten(())[1]


def read(ref, transforms):
    from jax import tree_util
    from jax._src.state import primitives as state

    transforms = tuple(transforms or ())
    if _standard(transforms):
        leaves, tree = tree_util.tree_flatten(transforms)
        return state.get_p.bind(ref, *leaves, tree=tree)
    whole = state.get_p.bind(ref, tree=_empty_tree())
    for t in transforms:
        whole = _apply(whole, t)
    return whole


def write(ref, transforms, val):
    from jax import tree_util
    from jax._src.state import primitives as state

    transforms = tuple(transforms or ())
    if _standard(transforms):
        leaves, tree = tree_util.tree_flatten(transforms)
        return state.swap_p.bind(ref, val, *leaves, tree=tree)
    old, whole = _swap(state.get_p.bind(ref, tree=_empty_tree()), transforms, val)
    state.swap_p.bind(ref, whole, tree=_empty_tree())
    return old


def split(leaves, *trees):
    from jax import tree_util

    out = []
    for tree in trees:
        n = tree.num_leaves if tree is not None else 0
        out.append(tree_util.tree_unflatten(tree, leaves[:n]) if tree is not None else ())
        leaves = leaves[n:]
    return out, leaves


def _gmem_window(ref, transforms):
    """(start, size, squeezed) per dimension of the global array for a chain of indexers."""
    from jax._src.state import indexing

    shape = ref.aval.inner_aval.shape
    dims = [[0, n, False] for n in shape]
    for t in transforms:
        if not isinstance(t, indexing.NDIndexer):
            raise Unsupported(f"the global-memory ref transform {type(t).__name__} in a TMA copy: the CPU "
                              "interpreter copies slices of global memory")
        live = [d for d in dims if not d[2]]
        for dim, index in zip(live, t.indices):
            if isinstance(index, indexing.Slice):
                if index.stride not in (None, 1):
                    raise Unsupported(f"a strided slice (stride {index.stride}) of global memory in a TMA copy")
                dim[0], dim[1] = dim[0] + index.start, index.size
            elif getattr(index, "shape", ()) == ():
                dim[0], dim[1], dim[2] = dim[0] + index, 1, True
            else:
                raise Unsupported("an array index (gather) into global memory in a TMA copy")
    return dims, shape


def _window_access(whole, dims, shape):
    """The clamped window a block falls in, the block's offset into it, and which of the block's
    elements lie inside the array (TMA reads zeros and drops writes outside it)."""
    import jax.numpy as jnp
    from jax import lax

    pads = [max(size - n, 0) for (_, size, _), n in zip(dims, shape)]
    if any(pads):  # a block larger than the array: room for the clamped window
        whole = jnp.pad(whole, [(0, p) for p in pads])
    starts, shifts, inside = [], [], None
    for axis, ((start, size, _), n, pad) in enumerate(zip(dims, shape, pads)):
        start = jnp.asarray(start, jnp.int32)
        clamped = jnp.clip(start, 0, n + pad - size)
        starts.append(clamped)
        shifts.append(start - clamped)
        pos = start + lax.broadcasted_iota(jnp.int32, tuple(d[1] for d in dims), axis)
        ok = (pos >= 0) & (pos < n)
        inside = ok if inside is None else inside & ok
    return whole, starts, shifts, inside, pads


def gmem_read(ref, transforms):
    import jax.numpy as jnp
    from jax import lax

    dims, shape = _gmem_window(ref, transforms)
    whole, starts, shifts, inside, _ = _window_access(read(ref, ()), dims, shape)
    block = lax.dynamic_slice(whole, starts, [d[1] for d in dims])
    for axis, shift in enumerate(shifts):
        block = jnp.roll(block, -shift, axis)
    block = jnp.where(inside, block, jnp.zeros((), block.dtype))
    return block.reshape([d[1] for d in dims if not d[2]])


_REDUCTIONS = {"add": "add", "min": "minimum", "max": "maximum", "and": "bitwise_and", "or": "bitwise_or",
               "xor": "bitwise_xor"}


def gmem_write(ref, transforms, val, predicate=None, reduction=None):
    import jax.numpy as jnp
    from jax import lax

    dims, shape = _gmem_window(ref, transforms)
    whole, starts, shifts, inside, pads = _window_access(read(ref, ()), dims, shape)
    sizes = [d[1] for d in dims]
    old = lax.dynamic_slice(whole, starts, sizes)
    for axis, shift in enumerate(shifts):  # the block's element k goes to the window's k + shift
        old = jnp.roll(old, -shift, axis)
    new = val.reshape(sizes).astype(whole.dtype)
    if reduction is not None:
        if reduction not in _REDUCTIONS:
            raise Unsupported(f"the TMA reduction {reduction!r}: the CPU interpreter runs {sorted(_REDUCTIONS)}")
        new = getattr(jnp, _REDUCTIONS[reduction])(old, new)
    keep = inside if predicate is None else inside & predicate
    block = jnp.where(keep, new, old)
    for axis, shift in enumerate(shifts):
        block = jnp.roll(block, shift, axis)
    whole = lax.dynamic_update_slice(whole, block, starts)
    if any(pads):
        whole = whole[tuple(slice(0, n) for n in shape)]
    write(ref, (), whole)
