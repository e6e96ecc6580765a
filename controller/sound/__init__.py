"""Sounds: the mixer (:mod:`.audio`), a package question's sounds (:mod:`.pack_sounds`) and the
bundled sounds' names (:mod:`.names`, pure: the config checks a team's sound with them)."""
