"""A committed report reproduces: re-running reports/s6-l15-h17-d2's own command (read from its
metrics.json) writes metrics.csv, metrics.json, report.md and every figure's CSV byte for byte
as committed (the README's promise; the numbers at 12 significant digits, formats.precision, so
a library's last digit does not move them). Figures' pictures and report.html embed
matplotlib's drawing, which another matplotlib draws in other bytes; timing.json is the run's
own clock: neither is compared."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from dicejack.cli import main

REPORT = Path(__file__).resolve().parents[2] / "reports" / "s6-l15-h17-d2"
COMPARED = ("metrics.csv", "metrics.json", "report.md")


def test_the_committed_report_reproduces_byte_for_byte(tmp_path):
    command = json.loads((REPORT / "metrics.json").read_text())["command"]
    words = shlex.split(command)
    assert words[:2] == ["dicejack", "report"]
    out = tmp_path / "again"
    assert main([*words[1:], "--out", str(out)]) == 0
    for name in COMPARED:
        assert (out / name).read_bytes() == (REPORT / name).read_bytes(), name
    data = sorted(p.name for p in (REPORT / "figures").glob("*.csv"))
    assert data and data == sorted(p.name for p in (out / "figures").glob("*.csv"))
    for name in data:
        assert (out / "figures" / name).read_bytes() == (REPORT / "figures" / name).read_bytes()
