"""The projector's layouts (``[display] layout``), declared without loading pygame: the config
takes their names from here and :func:`controller.screens.projector` loads the one in use."""

from controller.core.plugins import Plugin, Registry

LAYOUTS = Registry("layout", (
    Plugin("wide", "controller.screens.scoreboard:Scoreboard",
           doc="the full scoreboard: the press order with its gaps, every number"),
    Plugin("compact", "controller.screens.compact:Compact",
           doc="fewer, larger things for a small TV beside the host or a far 4:3 projector: who answers, "
               "the countdown, one wide row per team with its score; docs/screen.md"),
))
"""``[display] layout`` -> the projector's screen class: the wide scoreboard, or the compact one
for a small TV beside the host (docs/screen.md)."""
