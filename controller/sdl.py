"""pygame, loaded for the whole program without ``pkg_resources``.

pygame's ``pkgdata`` looks for ``pkg_resources`` (setuptools) first and falls back to
reading its own files by path, which is all it needs.  Loading ``pkg_resources`` scans every
installed distribution: on a Raspberry Pi that was the largest part of ``buzzer run``'s way
to its first frame (docs/performance.md «Start-up»).  Every module of the program that draws
or plays sound imports pygame from here (``from controller.sdl import pygame``), so the first
import, whichever it is, is this one.
"""

from __future__ import annotations

import sys

if "pygame" not in sys.modules and "pkg_resources" not in sys.modules:
    sys.modules["pkg_resources"] = None   # type: ignore[assignment]  # "not installed", for this import only
    try:
        import pygame
    finally:
        if sys.modules.get("pkg_resources", False) is None:
            del sys.modules["pkg_resources"]

import pygame  # noqa: E402,F811

__all__ = ["pygame"]
