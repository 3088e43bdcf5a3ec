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


def _avals(atoms) -> list[dict]:
    out = []
    for atom in atoms:
        aval = getattr(atom, "aval", None)
        shape = getattr(aval, "shape", None)
        if shape is None:
            continue
        out.append({"shape": [int(d) for d in shape], "dtype": str(getattr(aval, "dtype", "?"))})
    return out


def traced_files(closed_jaxpr) -> set[str]:
    """Source files of the Python frames that produced the jaxpr's equations."""
    files = set()
    for eqn, _ in iter_equations(closed_jaxpr.jaxpr):
        traceback = getattr(eqn.source_info, "traceback", None)
        for frame in getattr(traceback, "frames", None) or ():
            files.add(frame.file_name)
    return files


def _short_params(eqn) -> str:
    """A one-line summary of an equation's parameters (jaxprs and long values left out)."""
    parts = []
    for key, value in eqn.params.items():
        if any(True for _ in _sub_jaxprs(value)) or key in ("grid_mapping", "jaxpr", "out_avals"):
            continue
        text = str(value)
        if len(text) <= 40:
            parts.append(f"{key}={text}")
    return ", ".join(parts)


def dag(closed_jaxpr) -> dict:
    """The jaxpr as a graph: every equation a node, value flow as edges.

    Nodes carry id, primitive, short params, output shapes/dtypes, whether they sit inside a
    pallas_call body and the id of the equation whose body holds them (`parent`); pallas_call
    nodes also carry their grid and block shapes. Values entering a nested jit body flow from
    their outer producers; a pallas_call body's refs are its own (its operands flow into the
    pallas_call node). The kernel's inputs and outputs are nodes of primitive "input" and
    "output".
    """
    nodes, edges = [], []

    def add(primitive, outputs, inside, parent, **extra):
        nodes.append({"id": len(nodes), "primitive": primitive, "params": "", "outputs": outputs,
                      "inside_pallas": inside, "parent": parent, **extra})
        return len(nodes) - 1

    def walk(jaxpr, producers, inside, parent):
        for eqn in jaxpr.eqns:
            extra = {"params": _short_params(eqn)}
            is_pallas = eqn.primitive.name in PALLAS_PRIMITIVES
            if is_pallas:
                mapping = eqn.params.get("grid_mapping")
                extra["grid"] = [int(g) for g in getattr(mapping, "grid", ())]
                extra["block_shapes"] = [[_block_dim(d) for d in bm.block_shape]
                                         for bm in getattr(mapping, "block_mappings", ())]
            node = add(eqn.primitive.name, _avals(eqn.outvars), inside, parent, **extra)
            sources = [producers.get(id(v)) for v in eqn.invars if hasattr(v, "aval")]
            edges.extend({"from": s, "to": node} for s in sources if s is not None)
            for value in eqn.params.values():
                for sub in _sub_jaxprs(value):
                    # jit-like bodies take the equation's operands; pallas bodies take refs.
                    inner = {} if is_pallas else {id(v): s for v, s in zip(sub.invars, sources)}
                    walk(sub, inner, inside or is_pallas, node)
            for v in eqn.outvars:
                producers[id(v)] = node

    producers = {}
    for v in closed_jaxpr.jaxpr.invars:
        producers[id(v)] = add("input", _avals([v]), False, None)
    walk(closed_jaxpr.jaxpr, producers, False, None)
    for v in closed_jaxpr.jaxpr.outvars:
        node = add("output", _avals([v]), False, None)
        if producers.get(id(v)) is not None:
            edges.append({"from": producers[id(v)], "to": node})
    return {"nodes": nodes, "edges": edges}
