"""dicejack: an exact solver beside the handout's counting learner, on one small dice game.

`Game` is imported on first use (``from dicejack import Game`` works as ever): the package itself
loads no numpy, so that the command line can print its help or a usage error without it.

The package is layered (DESIGN.md, "Layout"): game.py, then runtime/, solver/, learners/,
formats/, compare/, figures/ and envs/, report/ and grade/, cli/, each importing only those before
it. Modules that moved when the layers were drawn keep their old import paths for users' scripts
(:data:`MOVED_MODULES`, the one place they are kept): importing one gives the new module, with a
DeprecationWarning. dicejack's own code never uses them.
"""

from __future__ import annotations

import sys

# Not `from typing import ...`: typing (with re and collections) takes about 20 ms to import, and
# the console script installs its Ctrl-C handler only after this module has run (cli/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DicejackError", "Game", "one_line", "MOVED_MODULES", "__version__"]
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


#: Old import path -> the module it now is (DESIGN.md, "Old import paths").
MOVED_MODULES: dict[str, str] = {
    "dicejack.learner": "dicejack.learners.handout.session",
    "dicejack.trace": "dicejack.learners.handout.trace",
    "dicejack.explain": "dicejack.learners.handout.explain",
    "dicejack.formulas": "dicejack.learners.formulas",
    "dicejack.kernels": "dicejack.learners.handout.kernel",
    "dicejack.env": "dicejack.envs.gym_env",
    "dicejack.parallel": "dicejack.runtime.parallel",
    "dicejack.interrupts": "dicejack.runtime.interrupts",
    "dicejack.frames": "dicejack.runtime.frames",
    "dicejack.figures_base": "dicejack.figures.base",
}


class _MovedModuleLoader:
    """Loads an old path as the new module itself (one module object under two names). Plain
    classes, not importlib.abc's: the package import stays as light as the command line needs."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: Any) -> Any:
        import importlib
        import warnings

        warnings.warn(f"{spec.name} moved to {self.new}; import that instead",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(self.new)
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module: Any) -> None:
        """Nothing to run: the new module is already loaded."""


class _MovedModuleFinder:
    """Finds the old paths of :data:`MOVED_MODULES`, and nothing else."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        new = MOVED_MODULES.get(name)
        if new is None:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, _MovedModuleLoader(new))


if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
    sys.meta_path.append(_MovedModuleFinder())
