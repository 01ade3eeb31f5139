"""The user's own Python, named on the command line as ``MODULE:NAME``: loading it, in one place
for every option that takes it (``compare --policy``, ``report --learner``).

MODULE is a module importable from the current folder (``my_agent``, ``pkg.agents``) or a path
to a ``.py`` file (``agent.py``, ``lib/agent.py``); NAME an attribute of it. Importing runs the
user's code, as asked; whatever it raises becomes one :class:`UserCodeError` line. A file is
loaded once per process and path (a worker process loads it again by the same name, from the
same current folder), so a class named twice is the same class.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from dicejack.runtime.messages import DicejackError, one_line

__all__ = ["UserCodeError", "is_spec", "split_spec", "load_object"]


class UserCodeError(DicejackError):
    """A MODULE:NAME that is malformed, cannot be imported, or has no such NAME."""


_LOCK = threading.Lock()
_FILES: dict[Path, ModuleType] = {}


def is_spec(text: str) -> bool:
    """True when `text` names the user's code (has a ``:``), not a bundled name."""
    return isinstance(text, str) and ":" in text


def split_spec(spec: str, option: str) -> tuple[str, str]:
    """(MODULE, NAME) of `spec`; UserCodeError with an example when it is not MODULE:NAME."""
    module, sep, name = str(spec).strip().rpartition(":")
    if not sep or not module.strip() or not name.isidentifier():
        raise UserCodeError(f"{option} {spec!r}: give MODULE:NAME, e.g. my_agent:MyLearner or "
                            "agent.py:MyLearner")
    return module.strip(), name


def _load_file(path: Path, option: str) -> ModuleType:
    key = path.resolve()
    with _LOCK:
        if key in _FILES:
            return _FILES[key]
        tag = hashlib.sha256(str(key).encode()).hexdigest()[:8]  # two agent.py files differ
        spec = importlib.util.spec_from_file_location(f"dicejack_user_{path.stem}_{tag}", key)
        if spec is None or spec.loader is None:
            raise UserCodeError(f"{option}: cannot load {path} as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickling look the module up by name
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(spec.name, None)
            raise
        _FILES[key] = module
        return module


def load_object(spec: str, option: str) -> Any:
    """NAME of MODULE for `spec` = ``MODULE:NAME`` (`option`, e.g. ``--learner``, names the
    source in errors); UserCodeError in one line when it cannot be had."""
    module_name, name = split_spec(spec, option)
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UserCodeError(f"{option}: no file {module_name}")
            module = _load_file(path, option)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except UserCodeError:
        raise
    except Exception as exc:  # the user's module failed to import: say so in one line
        raise UserCodeError(f"{option}: importing {module_name} failed: "
                            f"{type(exc).__name__}: {one_line(exc)}") from None
    if not hasattr(module, name):
        raise UserCodeError(f"{option}: {module_name} has no {name}")
    return getattr(module, name)
