"""The SMALL / MEDIUM / LARGE input shapes of a task."""

from __future__ import annotations

SIZE_NAMES = ("small", "medium", "large")


def sizes(medium: dict, small: dict | None = None, large: dict | None = None) -> dict:
    """SMALL / MEDIUM / LARGE input shapes by name.

    The suite's default (docs/tasks.md): SMALL = MEDIUM / 8 per dimension (at least 8), LARGE = MEDIUM x 4 per
    dimension. A size given explicitly replaces the derived one for the inputs it names.
    """

    def derive(fn):
        return {k: tuple(fn(d) for d in v) for k, v in medium.items()}

    out = {
        "small": derive(lambda d: max(8, d // 8)),
        "medium": {k: tuple(v) for k, v in medium.items()},
        "large": derive(lambda d: d * 4),
    }
    for name, given in (("small", small), ("large", large)):
        if given:
            out[name].update({k: tuple(v) for k, v in given.items()})
    return out
