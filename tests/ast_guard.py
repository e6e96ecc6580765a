"""A guard around :func:`ast.parse` for Python 3.11.0-3.11.7, where a parse can end in
``SystemError: AST constructor recursion depth mismatch`` (CPython gh-106905, fixed in 3.11.8).

The cause: 3.11 keeps the depth counter of the AST-to-object conversion in the interpreter's
``_ast`` module state, shared by every call.  When the garbage collector runs in the middle
of a conversion (it allocates thousands of nodes) and a finalizer formats a traceback --
an abandoned asyncio future or task whose exception was never retrieved, logged by
asyncio; a leftover aiohttp session -- the traceback module of 3.11 parses the source
line to place its ``^^^`` carets: a second conversion resets the shared counter, and the
first one fails its check.  The same happens when another thread parses meanwhile.
pytest parses the test's source to show a failure, so under load (slow tests, failures,
leftover futures) the suite stopped with an INTERNALERROR after the failures.

The guard keeps the collector off while a parse runs (the conversion then calls no Python
code: no finalizer, no other thread), and turns it back on after the last parse in flight.
``tests/conftest.py`` installs it; ``tests/test_ast_guard.py`` shows the failure without it.
"""

from __future__ import annotations

import ast
import gc
import sys
import threading

AFFECTED = sys.version_info[:2] == (3, 11) and sys.version_info < (3, 11, 8)

_lock = threading.Lock()
_in_flight = 0
_was_enabled = False
_parse = ast.parse


def parse(*args, **kwargs):
    global _in_flight, _was_enabled
    with _lock:
        if _in_flight == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _in_flight += 1
    try:
        return _parse(*args, **kwargs)
    finally:
        with _lock:
            _in_flight -= 1
            if _in_flight == 0 and _was_enabled:
                gc.enable()


def install(force: bool = False) -> bool:
    """Replace :func:`ast.parse` (pytest's assertion rewriting and failure reports and the
    traceback module all call it) on an affected Python, or with ``force``."""
    if (AFFECTED or force) and ast.parse is not parse:
        ast.parse = parse
        return True
    return False


def pytest_configure(config):   # as a plugin (-p ast_guard): installed before any test runs
    install()
