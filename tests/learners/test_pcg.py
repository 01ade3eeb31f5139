"""numpy's PCG64 stepped in the compiled loops: the same numbers as Generator.random(), draw by
draw, and the Generator left exactly where it would be."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from numba import njit

from dicejack.learners import pcg
from dicejack.runtime import interrupts


@njit(cache=False)
def _draws(state, n):
    hi, lo, inc_hi, inc_lo = state[0], state[1], state[2], state[3]
    out = np.empty(n)
    for i in range(n):
        out[i], hi, lo = pcg.next_double(hi, lo, inc_hi, inc_lo)
    state[0] = hi
    state[1] = lo
    return out


@pytest.mark.parametrize("seed", [0, 1, 7, 2**63 + 5, 12345678901234567890])
def test_the_compiled_draws_are_numpys_and_the_generator_goes_on_from_them(seed):
    rng = np.random.default_rng(seed)
    rng.standard_normal(3)  # any earlier use of the generator
    rng.integers(0, 10, size=5, dtype=np.uint32)  # leaves a buffered 32-bit half behind
    twin = np.random.default_rng(seed)
    twin.standard_normal(3)
    twin.integers(0, 10, size=5, dtype=np.uint32)
    expected = twin.random(20_000)
    state = pcg.state_of(rng)
    np.testing.assert_array_equal(_draws(state, 20_000), expected)
    pcg.set_state(rng, state)
    assert rng.bit_generator.state == twin.bit_generator.state  # every field, buffer included
    assert rng.random() == twin.random()
    assert rng.integers(0, 2**32, dtype=np.uint32) == twin.integers(0, 2**32, dtype=np.uint32)


def test_stepping_runs_a_kernel_on_the_state_and_puts_it_back():
    rng, twin = np.random.default_rng(3), np.random.default_rng(3)
    got = []
    pcg.stepping(rng, lambda n, state: got.append(_draws(state, n)), 1000)
    np.testing.assert_array_equal(got[0], twin.random(1000))
    assert rng.random() == twin.random()


def test_another_bit_generator_is_refused():
    with pytest.raises(ValueError, match="PCG64, not MT19937"):
        pcg.state_of(np.random.Generator(np.random.MT19937(1)))


def test_a_signal_during_a_compiled_loop_never_parts_tables_and_generator():
    # pcg.stepping: the state goes back into the Generator before the Ctrl-C is raised.
    def kernel(out, state):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        twin = np.random.Generator(np.random.PCG64())
        twin.bit_generator.state = {"bit_generator": "PCG64", "state": {
            "state": (int(state[0]) << 64) | int(state[1]),
            "inc": (int(state[2]) << 64) | int(state[3])}, "has_uint32": 0, "uinteger": 0}
        out.append(twin.random(5))
        stepped = pcg.state_of(twin)
        state[0], state[1] = stepped[0], stepped[1]

    rng, reference = np.random.default_rng(4), np.random.default_rng(4)
    drawn: list = []
    with interrupts.as_interrupts(), pytest.raises(KeyboardInterrupt):
        pcg.stepping(rng, kernel, drawn)
    np.testing.assert_array_equal(drawn[0], reference.random(5))
    assert rng.random() == reference.random()  # the generator moved with the draws
