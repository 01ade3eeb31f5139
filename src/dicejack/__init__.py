"""dicejack: an exact solver beside the handout's counting learner, on one small dice game.

`Game` is imported on first use (``from dicejack import Game`` works as ever): the package itself
loads no numpy, so that the command line can print its help or a usage error without it.

The package is layered (DESIGN.md): runtime/, games/ (the handout's game first), solver/,
learners/, formats/, compare/, figures/ and envs/, report/ and grade/, cli/, each importing only
those before it; the root holds only the packages. The package is not released: a module that
moves has one path, its new one.
"""

from __future__ import annotations

# Not `from typing import ...`: typing (with re and collections) takes about 20 ms to import, and
# the console script installs its Ctrl-C handler only after this module has run (cli/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The public face (docs/design/api.md; tests/test_public_faces.py holds it); the one-line
#: message helper every layer uses is dicejack.runtime.messages.one_line.
__all__ = ["DicejackError", "Game", "__version__"]
__version__ = "0.1.0"

from dicejack.runtime.messages import DicejackError  # noqa: E402 - no numpy, no typing

if TYPE_CHECKING:
    from dicejack.games.handout_rules import Game
del TYPE_CHECKING  # a switch for the checkers, not a name of the package


def __getattr__(name: str) -> Any:
    if name == "Game":
        from dicejack.games.handout_rules import Game

        return Game
    raise AttributeError(f"module 'dicejack' has no attribute {name!r}")
