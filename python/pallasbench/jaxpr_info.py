"""What the jaxpr says about a kernel's pallas_calls: grids and block shapes."""

from __future__ import annotations

from typing import Iterator

PALLAS_PRIMITIVES = ("pallas_call",)


def _sub_jaxprs(value) -> Iterator:
    """Jaxprs nested in an equation parameter (jit bodies, custom_jvp, cond branches, scans)."""
    from jax.extend import core  # jax.core.Jaxpr is gone on 0.10+; jax.extend.core keeps it

    if isinstance(value, core.ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, core.Jaxpr):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _sub_jaxprs(item)


def iter_equations(jaxpr, inside_pallas: bool = False):
    """Every equation of `jaxpr`, depth-first, with whether it sits inside a pallas_call body."""
    for eqn in jaxpr.eqns:
        yield eqn, inside_pallas
        is_pallas = eqn.primitive.name in PALLAS_PRIMITIVES
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                yield from iter_equations(sub, inside_pallas or is_pallas)


def _block_dim(dim) -> int:
    """A block dimension as an int: Blocked(block_size=n) -> n, squeezed/None -> 1."""
    if dim is None:
        return 1
    if isinstance(dim, int):
        return dim
    size = getattr(dim, "block_size", None)
    return int(size) if isinstance(size, int) else 1


def pallas_calls(closed_jaxpr) -> list[dict]:
    """Grid and block shapes (inputs then outputs) of every pallas_call outside other kernels.

    memory_spaces[i] is "any" for a ref the kernel indexes itself in global memory (a pointer,
    not a block): Triton's block limits apply to what the kernel loads from it, not to its shape.
    """
    calls = []
    for eqn, inside in iter_equations(closed_jaxpr.jaxpr):
        if eqn.primitive.name not in PALLAS_PRIMITIVES or inside:
            continue
        mapping = eqn.params.get("grid_mapping")
        grid = [int(g) for g in getattr(mapping, "grid", ())]
        blocks, spaces, arrays = [], [], []
        for bm in getattr(mapping, "block_mappings", ()):
            blocks.append([_block_dim(d) for d in bm.block_shape])
            spaces.append(str(getattr(bm.block_aval, "memory_space", "default")))
            arrays.append([int(d) for d in bm.array_aval.shape])
        name = eqn.params.get("name") or getattr(eqn.params.get("metadata"), "name", None)
        calls.append({"name": str(name) if name else None, "grid": grid, "block_shapes": blocks,
                      "memory_spaces": spaces, "array_shapes": arrays})
    return calls
