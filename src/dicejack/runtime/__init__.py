"""Cross-cutting plumbing, the ground every layer may stand on: Ctrl-C and SIGTERM handling
(:mod:`.interrupts`), executors and progress bars for many independent tasks (:mod:`.parallel`),
pandas as an optional output (:mod:`.frames`), the one-line message for the user
(:mod:`.messages`), the user's own Python (:mod:`.user_code`), and untrusted programs: the jail
(:mod:`.sandbox`), a control group per jail (:mod:`.cgroups`) and hostile folders copied,
unpacked and removed (:mod:`.tree`). It owns how work runs, never what the work is. Its face
is its modules.

May import: nothing of dicejack but the package root (DicejackError).
"""

__all__: list[str] = []  # the face is the modules (docs/design/api.md)
