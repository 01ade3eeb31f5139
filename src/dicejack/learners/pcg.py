"""numpy's PCG64 stepped inside the compiled loops: the same stream as ``Generator.random()``,
without a call through numpy's bit-generator interface for every draw.

numpy's ``PCG64`` is PCG-XSL-RR 128/64: a 128-bit LCG state advanced as ``state = state * MULT +
inc`` (mod 2^128), then 64 output bits ``rotr(hi ^ lo, hi >> 58)``; ``random()`` is those bits
shifted right by 11, times 2^-53. :func:`next_double` does exactly that on the state held as two
uint64 halves in the loop's own variables (no memory traffic): three multiplications, one of them
a 64x64->128 product (LLVM's i128 multiply), instead of an indirect call. :func:`state_of` reads
a Generator's state into those halves and :func:`set_state` writes them back (:func:`stepping`
does both around a kernel); every other field of the generator's state is kept, so the Generator
continues exactly where the compiled loop stopped, as if it had drawn every number itself (the
tests hold the two equal draw by draw).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from dicejack.runtime import interrupts

__all__ = ["MULTIPLIER", "state_of", "set_state", "stepping", "next_double"]

#: PCG's default 128-bit multiplier (numpy's PCG64).
MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
_MASK = (1 << 64) - 1
_MULT_HI = np.uint64(MULTIPLIER >> 64)
_MULT_LO = np.uint64(MULTIPLIER & _MASK)
_58 = np.uint64(58)
_11 = np.uint64(11)
_63 = np.uint64(63)
_64 = np.uint64(64)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_2_53 = 1.0 / 9007199254740992.0


def state_of(rng: np.random.Generator) -> np.ndarray:
    """The PCG64 state of `rng` as uint64 [state_hi, state_lo, inc_hi, inc_lo]; LearnerError-free:
    a Generator of another bit generator is a ValueError (dicejack's are all PCG64)."""
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"the compiled loops step PCG64, not {state.get('bit_generator')}")
    s, inc = int(state["state"]["state"]), int(state["state"]["inc"])
    return np.array([s >> 64, s & _MASK, inc >> 64, inc & _MASK], dtype=np.uint64)


def set_state(rng: np.random.Generator, halves: np.ndarray) -> None:
    """Put the state halves (from :func:`state_of`, stepped by a compiled loop) back into `rng`,
    keeping its other fields (the buffered 32-bit half)."""
    state = rng.bit_generator.state
    hi, lo = int(halves[0]), int(halves[1])
    state["state"] = {"state": (hi << 64) | lo, "inc": state["state"]["inc"]}
    rng.bit_generator.state = state


def stepping(rng: np.random.Generator, kernel: Callable[..., Any], *args: Any) -> None:
    """Run ``kernel(*args, state)`` on the state halves of `rng` and put the stepped state back:
    afterwards `rng` is where it would be had the kernel drawn from it. A Ctrl-C or SIGTERM
    meanwhile is delivered once the state is back (:func:`dicejack.runtime.interrupts.atomic`),
    so the tables and the generator never part."""
    with interrupts.atomic():
        state = state_of(rng)
        kernel(*args, state)
        set_state(rng, state)


@intrinsic
def _mulhi(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64: one machine multiplication (LLVM's
    i128 product, which numba has no type for; emulating it with four 32-bit products cost a
    fifth of the handout learner's time)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@njit(cache=True, inline="always")
def next_double(hi, lo, inc_hi, inc_lo):
    """One ``Generator.random()`` of the PCG64 state (hi, lo) with increment (inc_hi, inc_lo):
    returns (the uniform in [0, 1), the new hi, the new lo)."""
    new_lo = lo * _MULT_LO
    new_hi = _mulhi(lo, _MULT_LO) + lo * _MULT_HI + hi * _MULT_LO
    lo2 = new_lo + inc_lo
    hi2 = new_hi + inc_hi + (_ONE if lo2 < new_lo else _ZERO)
    x = hi2 ^ lo2
    rot = hi2 >> _58
    out = (x >> rot) | (x << ((_64 - rot) & _63))
    return float(out >> _11) * _2_53, hi2, lo2
