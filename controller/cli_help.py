"""Help that reads cleanly. Left alone, typer's rich help prints a type after every option (``<bool>``
after a flag, ``<list[Path]>`` after a repeated one), shows the docstrings' double-backtick markup raw, and
keeps their line breaks. :func:`tidy` walks the command tree once, before it runs, so that every command
(whoever adds it) reads the same: flags show no type, values a plain word (TEXT, N, X, PATH, CARD…),
arguments their name in capitals, and help text as flowing sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import typer

# typer's type label (without < >) -> the word shown after the option
WORDS = {"str": "TEXT", "int": "N", "float": "X", "path": "PATH", "Path": "PATH", "bool": None,
         "int range": "N", "float range": "X"}
_CODE = re.compile(r"``(.+?)``", re.S)


def plain(text: str | None) -> str | None:
    """A docstring or help text as the help shows it: ``code`` unquoted, each paragraph one line."""
    if not text:
        return text
    paragraphs = re.split(r"\n\s*\n", _CODE.sub(r"\1", text).strip())
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


def word(param: Any, ctx: Any) -> str | None:
    """The word after an option: None for a flag, else the value's kind in capitals."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    label = param.display_type(ctx).strip("<>") if hasattr(param, "display_type") else "TEXT"
    label = re.sub(r"^list\[(.*)\]$", r"\1", label)
    if "|" in label:  # a choice: its values, as click shows them
        return "[" + label + "]"
    return WORDS.get(label, label.upper())


def walk(command: Any) -> Iterator[Any]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from walk(sub)


def tidy(command: Any) -> Any:
    """Make every command's help under ``command`` read cleanly (in place); return ``command``."""
    for cmd in walk(command):
        cmd.help, cmd.short_help = plain(cmd.help), plain(cmd.short_help)
        ctx = typer.Context(cmd)
        helper = cmd.get_help_option(ctx)  # made once and cached by click, so tidied for good
        for param in [*cmd.params, *([helper] if helper is not None else [])]:
            _tidy_param(param, ctx)
    return command


def _tidy_param(param: Any, ctx: Any) -> None:
    param.help = plain(getattr(param, "help", None))
    if param.param_type_name == "argument":
        name = (param.metavar or param.name or "").upper()
        param.metavar = name + ("..." if param.nargs != 1 else "")
        param._usage_display_name = lambda name=param.metavar: name  # typer writes {name}: the name alone
        param.display_type_rich = lambda ctx=None, label=word(param, ctx): label
        return
    shown = word(param, ctx)
    param.display_type_rich = lambda ctx=None, shown=shown: shown
