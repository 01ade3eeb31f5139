"""Cross-cutting plumbing, the ground every layer may stand on: Ctrl-C and SIGTERM handling
(:mod:`.interrupts`), executors and progress bars for many independent tasks (:mod:`.parallel`),
and pandas as an optional output (:mod:`.frames`). It owns how work runs, never what the work is.

May import: nothing of dicejack but the package root (DicejackError, one_line).
"""
