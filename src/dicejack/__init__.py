"""dicejack: an exact solver beside the handout's counting learner, on one small dice game.

`Game` is imported on first use (``from dicejack import Game`` works as ever): the package itself
loads no numpy, so that the command line can print its help or a usage error without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["DicejackError", "Game", "one_line", "__version__"]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from dicejack.game import Game


class DicejackError(Exception):
    """Base of every error dicejack raises on purpose; its message is one line for the user.

    Defined here, without numpy; :mod:`dicejack.game` re-exports it.
    """


def one_line(message: object, limit: int = 500) -> str:
    """`message` (an exception or text) as one line for the user: whitespace runs collapsed,
    at most `limit` characters; an exception without text gives its type's name."""
    line = " ".join(str(message).split())
    if not line and isinstance(message, BaseException):
        line = type(message).__name__
    return line[:limit] if line else "unknown error"


def __getattr__(name: str) -> Any:
    if name == "Game":
        from dicejack.game import Game

        return Game
    raise AttributeError(f"module 'dicejack' has no attribute {name!r}")
