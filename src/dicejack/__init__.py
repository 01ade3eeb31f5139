"""dicejack: an exact solver beside the handout's counting learner, on one small dice game.

`Game` is imported on first use (``from dicejack import Game`` works as ever): the package itself
loads no numpy, so that the command line can print its help or a usage error without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["DicejackError", "Game", "__version__"]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from dicejack.game import Game


class DicejackError(Exception):
    """Base of every error dicejack raises on purpose; its message is one line for the user.

    Defined here, without numpy; :mod:`dicejack.game` re-exports it.
    """


def __getattr__(name: str) -> Any:
    if name == "Game":
        from dicejack.game import Game

        return Game
    raise AttributeError(f"module 'dicejack' has no attribute {name!r}")
