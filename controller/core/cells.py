"""Cells of the CSV files we write, safe to open in a spreadsheet.

A spreadsheet takes a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab
or a carriage return before one) as a formula: a team named ``=HYPERLINK(…)`` in a results
file would run when the organiser opens it («CSV injection», OWASP).  Every CSV we write goes
through :func:`writer`, which writes such a text cell with a leading ``'`` -- the spreadsheets'
own mark for «this is text» -- so it shows as typed, never computed.  A number stays a number:
an int or a float, or a text that is a plain number (``-20``, ``+1``, ``-0,5``), is written as
it is.  docs/exports.md documents it.

Pure: no I/O.
"""

from __future__ import annotations

import csv
import re
from typing import Any, Iterable

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""The first characters that make a spreadsheet read a cell as a formula."""

_NUMBER = re.compile(r"[+-]?\d+([.,]\d+)?")


def safe(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet shows as typed: a text that would be read as a
    formula gets a leading ``'``; anything else is unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


class _SafeWriter:
    def __init__(self, out: Any, **fmt: Any) -> None:
        self._w = csv.writer(out, **fmt)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._w.writerow([safe(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out: Any, **fmt: Any) -> _SafeWriter:
    """A :func:`csv.writer` on ``out`` (``fmt``: its format parameters) whose every cell
    goes through :func:`safe`."""
    return _SafeWriter(out, **fmt)
