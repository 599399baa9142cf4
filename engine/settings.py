"""Typed settings, in the style of shengji's rule enums: every disputed rule is a named field with a
default equal to the preset. :func:`check_settings` validates a settings dataclass against its own
annotations (bool, int, float, str, ``Literal[...]``, ``X | None``) so a bad override is named."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Literal


def _ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return value in typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_ok(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin in (tuple, list):
        return isinstance(value, (tuple, list))
    return True


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, once per class (it compiles every string annotation each call)."""
    return typing.get_type_hints(cls)


def check_settings(obj: Any) -> None:
    """Raise ``ValueError`` naming the first field whose value does not fit its annotation."""
    hints = _hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        hint = hints.get(f.name)
        if hint is not None and not _ok(value, hint):
            allowed = typing.get_args(hint) if typing.get_origin(hint) is Literal else hint
            raise ValueError(f"setting {f.name} = {value!r} is not allowed (expected {allowed})")
