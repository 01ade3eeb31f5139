"""dicejack: an exact solver beside the handout's counting learner, on one small dice game."""

from dicejack.game import DicejackError, Game

__all__ = ["DicejackError", "Game", "__version__"]
__version__ = "0.1.0"
