"""Shared material of the learner tests: small games, a scripted generator, run equality."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

#: The tiny game of the by-hand tests: a die with faces 1, 2; win on 3 or 4; up to 2 dice.
#: Totals of 1 die: 1, 2 (1/2 each); of 2 dice: 2 (1/4), 3 (1/2), 4 (1/4).


class ScriptedRng:
    """Stands in for a numpy Generator in the reference loops: hands out the given uniforms
    (random) and normals (standard_normal) in order, and fails when asked for more."""

    def __init__(self, uniforms: Iterable[float] = (), normals: Iterable[float] = ()) -> None:
        self.uniforms = list(uniforms)
        self.normals = list(normals)

    def random(self) -> float:
        return self.uniforms.pop(0)

    def standard_normal(self) -> float:
        return self.normals.pop(0)

    def used_up(self) -> bool:
        return not self.uniforms and not self.normals


def same_state(a: dict, b: dict) -> bool:
    """Two learner states (or run states) hold identical values."""
    if set(a) != set(b):
        return False
    return all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a
    )
