"""The one-line message a user sees for an error: every layer's errors, warnings and batch rows
say their reason through :func:`one_line`, so none prints a multi-line or endless text; and the
library errors that name Python parameters (:class:`ParameterError`), which a command line says
as its own flags; and :class:`DicejackError`, the base of them all (the package root re-exports
it). No imports: the console script loads it before its Ctrl-C handler is in place."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["DicejackError", "one_line", "Parameter", "ParameterError"]


class DicejackError(Exception):
    """Base of every error dicejack raises on purpose; its message is one line for the user."""


def one_line(message: object, limit: int = 500) -> str:
    """`message` (an exception or text) as one line for the user: whitespace runs collapsed,
    at most `limit` characters; an exception without text gives its type's name."""
    line = " ".join(str(message).split())
    if not line and isinstance(message, BaseException):
        line = type(message).__name__
    return line[:limit] if line else "unknown error"


class Parameter(str):
    """The name of a Python parameter inside a :class:`ParameterError`'s message (``keep``,
    ``games``, ``out``...)."""

    __slots__ = ()


class ParameterError(DicejackError):
    """A library error whose message is made of `parts`; those that are a :class:`Parameter`
    name the Python parameter at fault, so that a command line can say them as its own flags
    (:meth:`naming`), exactly where they stand and nowhere else (a path named ``out/`` stays as
    it is). GradeError and ReportError are ones."""

    def __init__(self, *parts: str) -> None:
        super().__init__("".join(parts))
        self.parts = parts

    @property
    def parameters(self) -> tuple[str, ...]:
        """The parameters the message names, in order."""
        return tuple(str.__str__(p) for p in self.parts if isinstance(p, Parameter))

    def naming(self, names: Mapping[str, str]) -> str:
        """The message with each parameter said as `names` says it (unknown ones as they are)."""
        return "".join(names.get(p, p) if isinstance(p, Parameter) else p for p in self.parts)
