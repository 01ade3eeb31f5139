"""JSON output written a row at a time (issue 39): the same bytes as json_text, a small fraction of
the output's size in memory while written; and the memory an output needs checked before the
work."""

from __future__ import annotations

import io
import json
import tracemalloc

import numpy as np
import pytest

from dicejack import formats, solver
from dicejack.formats import sizes
from dicejack.formats.json_output import json_chunks, json_text, write_json
from dicejack.formats.tables import learn_dict, learn_json, solution_dict
from dicejack.games.handout_rules import Game
from dicejack.learners import handout


class _Counting(io.TextIOBase):
    """A text sink that only counts what is written (holds none of it)."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def test_chunks_are_the_compact_json_text() -> None:
    game = Game(6, 12, 14, 3)
    sol = solver.solve(game)
    run = handout.learn(game, 100.0, 300, 2)
    odd = {"a": np.array([[np.nan, np.inf], [1.5, -np.inf]]), "b": [1, {"c": None}],
           "d": np.arange(24).reshape(2, 3, 4), "e": np.float64(0.1), "f": "x\u00e9\"y"}
    for obj in (solution_dict(sol), learn_dict(run), odd):
        text = "".join(json_chunks(obj))
        assert text == json_text(obj, compact=True)
        json.loads(text)
    stream = io.StringIO()
    write_json(learn_dict(run), stream)
    assert stream.getvalue() == learn_json(run)


def test_a_large_table_is_written_in_a_fraction_of_its_size() -> None:
    """A (700, 700, 4) table of counts, ~8 MB of JSON: written holding well under a tenth of
    that (json_text holds many times it: the lists, then the string)."""
    counts = np.random.default_rng(0).integers(0, 10**6, (700, 700, 4))
    obj = {"win_count": counts}
    sink = _Counting()
    tracemalloc.start()
    try:
        write_json(obj, sink)
        streamed = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.chars > 8 * 10**6
    assert streamed < sink.chars / 10


def test_outputs_built_whole_need_memory_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sizes.output_memory_bytes(10**9, "text") >= 2 * 10**9
    assert sizes.output_memory_bytes(10**9, "json", streamed=True) < 10**6
    monkeypatch.setattr(sizes, "available_memory_bytes", lambda: 2**30)
    sizes.check_output_memory("the tables", 2**29)
    with pytest.raises(formats.FormatError, match=r"^the tables would need about 2\.0 GiB of "
                       r"memory to write, over the 1\.0 GiB available; try json$"):
        sizes.check_output_memory("the tables", 2**31, "try json")
    monkeypatch.setattr(sizes, "available_memory_bytes", lambda: None)
    sizes.check_output_memory("the tables", 2**60)  # unknown: not refused
