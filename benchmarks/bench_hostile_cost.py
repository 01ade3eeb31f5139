"""What hostile submissions cost to grade, beside normal outputs of the same size (issue 39).

Usage: python benchmarks/bench_hostile_cost.py [--mib 1] [--copies 2000] [--json-low 600]

For each shape, a text of --mib MiB is graded as `dicejack grade` grades a file once read
(grade.grade_text: the reader, then the tables graded, or the size hint when it fails), and the
CPU seconds per MiB (time.process_time, best of --repeat) are printed beside the cheaper of two
normal outputs of the same size measured in the same run: dicejack's own tables printed again and
again (a program printing its progress) and a long game trace followed by the tables. The ratio
is the shape's cost over that baseline; the promise is at most 3.

Then copy detection: --copies copies of one output inside one student's folder (LMS ids) beside
20 other students and one more copy by another student, graded and compared for copies, per
file, over the per-file cost of grading and comparing the 20 students alone.

Then the peak memory (tracemalloc) of printing `learn --format json` for a --json-low game as
it is printed now (a row at a time) and as it was (the whole object as Python lists, then one
string), beside the size of the output.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import time
import tracemalloc
from collections.abc import Callable

from dicejack import grade
from dicejack.formats.json_output import json_text, write_json
from dicejack.formats.tables import learn_dict, learn_text
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.learners.handout import trace as handout_trace

GAME = Game(6, 15, 17, 2)
M, GAMES = 100.0, 20_000


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def shapes(tables: str, trace: str, size: int) -> dict[str, str]:
    """The texts graded: two normal outputs, then the hostile shapes, each `size` characters."""
    return {
        "normal: tables printed repeatedly": _fill(tables, size - len(tables)) + tables,
        "normal: a game trace, then the tables": _fill(trace, size - len(tables)) + tables,
        "one number per line (1)": _fill("1\n", size),
        "one number per line (varied)": "".join(f"0.{i % 9973}\n" for i in range(size // 5)),
        "two numbers per line": _fill("1 2\n", size),
        "one bracketed number per line": _fill("[1]\n", size),
        "very long line of numbers": _fill("0.5 ", size),
        "very long line of CSV": _fill("1,", size),
        "very long line of one word": _fill("x", size),
        "many tiny tokens: dashes": _fill("- ", size),
        "many tiny tokens: commas": _fill(",", size),
        "many tiny tokens: d:p pairs": _fill("1:1 ", size),
        "deep nesting: brackets": "[" * (size // 2) + "]" * (size // 2),
        "deep nesting: brackets per line": _fill("[[[[[[1]]]]]]\n", size),
        "headings on every line": _fill("Policy:\n", size),
        "nested markdown headings": _fill("#### Best dice ## Probability: =\n", size),
    }


def cpu(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def text_shapes(refs: grade.References, mib: float, repeat: int) -> None:
    run = handout.learn(GAME, M, GAMES, 6)
    tables = learn_text(run)
    traced = handout_trace.trace(GAME, M, 200, 6)
    trace = handout_trace.trace_text(traced)
    size = int(mib * 2**20)
    texts = shapes(tables, trace, size)
    grade.grade_text(refs, tables)  # warm: imports, numba
    print(f"Grading one {mib:g} MiB text (grade.grade_text, LTarget {GAME.low}), CPU s per MiB, "
          f"best of {repeat}:")
    print(f"{'shape':<40} {'status':>7} {'s/MiB':>7} {'x normal':>9}")
    costs = {}
    for name, text in texts.items():
        status = grade.grade_text(refs, text).status
        costs[name] = cpu(lambda text=text: grade.grade_text(refs, text), repeat) / mib
        if name.startswith("normal"):
            print(f"{name:<40} {status:>7} {costs[name]:>7.2f} {'':>9}")
            continue
        base = min(v for k, v in costs.items() if k.startswith("normal"))
        print(f"{name:<40} {status:>7} {costs[name]:>7.2f} {costs[name] / base:>9.2f}")
    hostile = {k: v for k, v in costs.items() if not k.startswith("normal")}
    worst = max(hostile, key=lambda k: hostile[k])
    base = min(v for k, v in costs.items() if k.startswith("normal"))
    print(f"worst: {worst}, {hostile[worst] / base:.2f}x the cheaper normal output")


def copies(refs: grade.References, n: int) -> None:
    run = handout.learn(GAME, M, GAMES, 6)
    text = learn_text(run)
    others = [learn_text(handout.learn(GAME, M, GAMES, 100 + s)) for s in range(20)]

    def graded(texts: list[tuple[str, str, str]]) -> list[grade.Grade]:
        return [dataclasses.replace(grade.grade_text(refs, t, name=name), student=sid,
                                    order=f"{i:06d}")
                for i, (name, sid, t) in enumerate(texts)]

    def measured(texts: list[tuple[str, str, str]]) -> tuple[float, float, int, int]:
        """CPU s per file (graded, then compared), peak MiB of the comparison, flagged."""
        start = time.process_time()
        grades = graded(texts)
        grading = time.process_time() - start
        start = time.process_time()
        marked = grade.mark_copies(refs, grades)
        comparing = time.process_time() - start
        tracemalloc.start()
        grade.mark_copies(refs, grades)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        flagged = sum("copied" in g.flags for g in marked)
        return (grading + comparing) / len(texts), comparing, peak, flagged

    normal = [(f"s{i}.txt", str(200 + i), t) for i, t in enumerate(others)]
    hostile = [(f"bob/{i:05d}.txt", "111", text) for i in range(n)] + normal + [
        ("alice.txt", "222", text)]  # another student's copy of bob's output
    rows = (("20 students (normal)", normal), ("one student with many copies", hostile))
    results = [measured(texts) for _, texts in rows]
    print(f"\nCopies: {n:,} copies in one student's folder beside 20 students and a copy by "
          "another, graded and compared for copies:")
    print(f"{'batch':<32} {'files':>6} {'flagged':>8} {'ms/file':>8} {'x normal':>9} "
          f"{'copies s':>9} {'peak MiB':>9}")
    for (name, texts), (per_file, comparing, peak, flagged) in zip(rows, results, strict=True):
        ratio = per_file / results[0][0]
        print(f"{name:<32} {len(texts):>6} {flagged:>8} {1000 * per_file:>8.1f} {ratio:>9.2f} "
              f"{comparing:>9.2f} {peak / 2**20:>9.1f}")


class _Sink(io.TextIOBase):
    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def json_memory(low: int) -> None:
    game = Game(6, low, low + 10, 2)
    run = handout.learn(game, M, 3, 1)
    obj = learn_dict(run)

    def peak(fn: Callable[[], object]) -> int:
        tracemalloc.start()
        try:
            fn()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    sink = _Sink()
    streamed = peak(lambda: write_json(obj, sink))
    whole = peak(lambda: json_text(obj, compact=True))
    text = peak(lambda: learn_text(run))
    size = sink.chars
    print(f"\nlearn --games 3 --low {low} --high {low + 10} --format json: {size / 2**20:.1f} MiB "
          "printed; peak memory while printing (tracemalloc, beside the tables):")
    print(f"{'how':<40} {'peak MiB':>9} {'x output':>9}")
    for name, value in (("a row at a time (now)", streamed),
                        ("Python lists, then one string (before)", whole),
                        ("the text format, built whole", text)):
        print(f"{name:<40} {value / 2**20:>9.1f} {value / size:>9.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=1.0, help="size of each text, MiB")
    ap.add_argument("--repeat", type=int, default=2, help="best of N (timings vary)")
    ap.add_argument("--copies", type=int, default=2000, help="copies in one student's folder")
    ap.add_argument("--json-low", type=int, default=600, help="LTarget of the JSON output")
    args = ap.parse_args()
    refs = grade.reference_runs(grade.GradeConfig(GAME, M, GAMES), cache_dir=False)
    text_shapes(refs, args.mib, args.repeat)
    if args.copies:
        copies(refs, args.copies)
    if args.json_low:
        json_memory(args.json_low)


if __name__ == "__main__":
    main()
