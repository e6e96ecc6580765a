"""What is played and by whom: the organiser's event file (:mod:`controller.content.event`)
and, from other modules of this package, Своя игра packages."""
