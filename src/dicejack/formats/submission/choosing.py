"""Step 6 of reading a submission: choosing the arrays. They are the last two blocks that fit by
content (or the last combined block: `d:p` cells or one line per state), told apart by content,
with the heading above each as a cross-check."""

from __future__ import annotations

import math
from dataclasses import replace

from dicejack.formats.submission.arrays import Block


# ================================================================================ 6. choosing
def _plain_values(block: Block) -> list[float]:
    return [c.value for row in block.rows for c in row if not c.no_data]



def _looks_like_policy(block: Block, n_dice: int) -> bool:
    """Every value printed is an integer in -1..NDice (no-data words allowed)."""
    return all(
        v == int(v) and -1 <= v <= n_dice for v in _plain_values(block) if math.isfinite(v)
    )



def _looks_like_probability(block: Block) -> bool:
    """Every finite value printed is in [0, 1] or the -1 marker."""
    return all(0 <= v <= 1 or v == -1 for v in _plain_values(block))



def _has_fractions(block: Block) -> bool:
    return any(math.isfinite(v) and v != int(v) for v in _plain_values(block))



def _fits(policy: Block, prob: Block, n_dice: int) -> bool:
    return _looks_like_policy(policy, n_dice) and _looks_like_probability(prob)



def _pair_score(policy: Block, prob: Block, n_dice: int) -> int:
    """How well (policy, prob) fit their roles by content (higher is better)."""
    return (
        2 * _looks_like_policy(policy, n_dice)
        + 2 * _looks_like_probability(prob)
        + _has_fractions(prob)
        - 2 * _has_fractions(policy)
    )



def split_combined(block: Block) -> tuple[Block, Block]:
    """The policy and probability parts of a combined block."""
    policy = [[c.dice for c in row] for row in block.rows]
    prob = [[c.prob for c in row] for row in block.rows]
    return replace(block, rows=policy, combined=False), replace(block, rows=prob, combined=False)



def choose_arrays(blocks: list[Block], n_dice: int) -> tuple[Block, ...] | None:
    """The arrays: the last combined block or adjacent pair of blocks that fits by content
    (a block that also reads as a combined table: as such if it pairs with none).

    If none fits, the later of the last combined block and the last two plain blocks (flags
    will tell what is wrong with them); None when there is neither.
    """
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.combined:
            if _fits(*split_combined(block), n_dice):
                return (block,)
        elif i and not blocks[i - 1].combined:
            first = blocks[i - 1]
            if _fits(first, block, n_dice) or _fits(block, first, n_dice):
                return (first, block)
        other = block.alternative
        if other is not None and _fits(*split_combined(other), n_dice):
            return (other,)
    plain = [b for b in blocks if not b.combined]
    combined = [b for b in blocks if b.combined]
    if len(plain) >= 2 and (not combined or plain[-2].line > combined[-1].line):
        return (plain[-2], plain[-1])
    if combined:
        return (combined[-1],)
    return None



def policy_first(first: Block, second: Block, n_dice: int) -> tuple[Block, Block]:
    """(policy, probability) by content; ties by headings, then printed order."""
    forward = _pair_score(first, second, n_dice)
    backward = _pair_score(second, first, n_dice)
    if forward != backward:
        return (first, second) if forward > backward else (second, first)
    if first.heading == "prob" or second.heading == "policy":
        if first.heading != "policy" and second.heading != "prob":
            return second, first
    return first, second

