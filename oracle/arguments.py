"""Argument types for the command line, checked when the arguments are parsed.

A count or a budget that cannot mean anything (``--examples -1``,
``--time-budget -1``, ``--engine ''``) is a usage error (exit 2) naming the
option, never an internal error later (issue 19; Hypothesis validates its
arguments eagerly in the same way).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path


def positive_int(text: str) -> int:
    """A count of at least one (``--examples``, ``--count``, ``--max-states``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive count")
    return value


def positive_seconds(text: str) -> float:
    """A finite duration in seconds above zero (``--timeout``, ``--time-budget``)."""
    return _seconds(text, lambda value: value > 0, "a positive, finite number of seconds")


def nonnegative_seconds(text: str) -> float:
    """A finite duration in seconds, zero allowed (``--shrink-allowance 0``: no shrinking)."""
    return _seconds(text, lambda value: value >= 0, "a finite number of seconds, 0 or more")


def _seconds(text: str, allowed: Callable[[float], bool], what: str) -> float:
    """A finite number of seconds that ``allowed`` admits; else a usage error naming ``what``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not allowed(value):
        raise argparse.ArgumentTypeError(f"{text} is not {what}")
    return value


def command_line(text: str) -> str:
    """An engine's command line: not empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the engine's command line is empty")
    return text


def folder(text: str) -> str:
    """A folder wforacle writes into (``fuzz --save``): not '', not a file, not under a file.

    It need not exist yet; a file, a device (``/dev/full``) or a path under
    a file cannot hold a case's directory (issue 19: these were internal
    errors when the first finding was saved).
    """
    path = Path(text)
    if not text or (path.exists() and not path.is_dir()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    if any(parent.exists() and not parent.is_dir() for parent in path.parents):
        raise argparse.ArgumentTypeError(f"{text!r} lies under a file")
    return text
