"""What is played and by whom: the organiser's event file (:mod:`.event`), 4s packs
(:mod:`.fours`) and SIGame packages (:mod:`.siq` reads one as data, :mod:`.packs` attaches it
to a config and serves its media)."""
