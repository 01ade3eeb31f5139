"""Cross-cutting plumbing, the ground every layer may stand on: Ctrl-C and SIGTERM handling
(:mod:`.interrupts`), executors and progress bars for many independent tasks (:mod:`.parallel`),
pandas as an optional output (:mod:`.frames`) and the one-line message for the user
(:mod:`.messages`). It owns how work runs, never what the work is. Its face is its modules.

May import: nothing of dicejack but the package root (DicejackError).
"""

__all__: list[str] = []  # the face is the modules (DESIGN.md, "Python API")
