"""Block shapes of task kernels: Triton's block rules and the shapes that follow them.

Planning only: these functions run when a kernel is traced, on Python integers, and never
inside a kernel (what does lives in pallasbench.kernels, whose source records bundle).
"""

from __future__ import annotations

import math

# ---------------------------------------------------------------------------------------------
# Backend pinning
# ---------------------------------------------------------------------------------------------


def triton_params(num_warps: int = 4, num_stages: int = 3):
    """Compiler params that pin a plain pallas_call to the Triton backend.

    JAX 0.11 deprecates the implicit Triton default; passing its CompilerParams explicitly keeps a
    future default change from silently switching backends. Interpret mode ignores them.
    """
    from jax.experimental.pallas import triton as pltriton

    return pltriton.CompilerParams(num_warps=num_warps, num_stages=num_stages)


# ---------------------------------------------------------------------------------------------
# Block shapes
# ---------------------------------------------------------------------------------------------

# Triton refuses any in-kernel array over 2^20 elements (checked when compiling) and any array
# whose element count is not a power of two (checked when lowering).
MAX_BLOCK_ELEMENTS = 1 << 20

# Default byte budget of one block of a streaming kernel: 8K float32 elements keep an 8-warp
# program (256 threads) at 32 elements per thread, wide enough for 16-byte loads without spills.
DEFAULT_BLOCK_BYTES = 32 * 1024


class BlockLimitError(ValueError):
    """A block shape the Triton backend cannot compile."""


def next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def prev_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n).bit_length() - 1)


def check_block(name: str, block_shape) -> None:
    """Raise BlockLimitError naming the block when it breaks Triton's rules."""
    elements = math.prod(block_shape)
    if any(d != next_pow2(d) for d in block_shape):
        raise BlockLimitError(
            f"block '{name}' {tuple(block_shape)}: every dimension must be a power of two")
    if elements > MAX_BLOCK_ELEMENTS:
        raise BlockLimitError(
            f"block '{name}' {tuple(block_shape)} has {elements} elements; "
            f"the Triton limit is {MAX_BLOCK_ELEMENTS} (2^20)")


def block_2d(shape, itemsize: int = 4, budget_bytes: int = DEFAULT_BLOCK_BYTES,
             max_cols: int | None = None, allow_ragged: bool = False) -> tuple[int, int]:
    """Block (rows, cols) for a 2-D array streamed in row-major order.

    Rule: the column extent is the whole row rounded up to a power of two (contiguous, wide
    loads), capped by `max_cols` and by the budget; the row extent is the largest power of two
    that keeps rows*cols*itemsize within `budget_bytes`, capped at the array's rows rounded up
    to a power of two. Both are powers of two and the product never exceeds 2^20 elements.

    Pallas's Triton lowering does not mask edge blocks (an overhanging block reads and writes out
    of bounds), so a block that does not divide the array is refused: pad outside the kernel, or
    mask inside it with pallas.triton's load/store and pass allow_ragged=True.
    """
    rows, cols = shape
    budget_elems = max(1, min(budget_bytes // itemsize, MAX_BLOCK_ELEMENTS))
    bc = min(next_pow2(cols), prev_pow2(budget_elems))
    if max_cols is not None:
        bc = min(bc, prev_pow2(max_cols))
    br = max(1, min(next_pow2(rows), prev_pow2(budget_elems // bc)))
    check_block("block_2d", (br, bc))
    if not allow_ragged and (rows % br or cols % bc):
        raise BlockLimitError(f"block ({br}, {bc}) does not divide array ({rows}, {cols}): the "
                              "Triton lowering does not mask edge blocks; pad or mask")
    return br, bc


def row_block(rows: int, cols: int, itemsize: int = 4,
              budget_bytes: int = DEFAULT_BLOCK_BYTES) -> tuple[int, int]:
    """Block (rows, cols) for a kernel that needs a whole row in one program (row reductions).

    The column extent is the whole row rounded up to a power of two (the tail is masked or padded
    by the caller); rows per program fill the byte budget. Raises BlockLimitError when a single row
    alone exceeds 2^20 elements, so the caller must tile the row instead.
    """
    bc = next_pow2(cols)
    if bc > MAX_BLOCK_ELEMENTS:
        raise BlockLimitError(
            f"a row of {cols} elements ({bc} padded) exceeds the Triton limit of "
            f"{MAX_BLOCK_ELEMENTS} elements per block; tile the row")
    budget_elems = max(bc, min(budget_bytes // itemsize, MAX_BLOCK_ELEMENTS))
    br = max(1, min(next_pow2(rows), prev_pow2(budget_elems // bc)))
    return br, bc


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def dividing_tile(dim: int, pref: int) -> int:
    """Largest power of two in [16, pref] dividing dim; else pref capped near dim (the array is
    then padded to a multiple of it). 16: the smallest block jnp.dot takes."""
    t = pref
    while t >= 16:
        if dim % t == 0:
            return t
        t //= 2
    return max(16, min(pref, next_pow2(dim)))
