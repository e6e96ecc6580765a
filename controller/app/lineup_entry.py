"""The host entering a line-up from the keypad: team, round, player as three digits.

Pressing the ``lineup`` key ([keys], default F3 and the keypad's Num Lock) opens the
entry; the next three digits are the team's number, the round and the player's number
on the entry (docs/event-file.md, «Line-ups»).  The third digit sends one ``lineup``
host action through the loop, where it is journaled like any host action and the game
checks it against the regulations (a refusal comes back as a notice).  Backspace takes
a digit back; Esc or the ``lineup`` key again cancels.

Only the loop thread touches an entry; the keypad's thread reads :attr:`Loop.lineup_entry`
to know whether its digit keys are digits now (:attr:`Keypad.digits_wanted`).
"""

from __future__ import annotations

from dataclasses import dataclass

FIELDS = ("team", "round", "player")


@dataclass
class LineupEntry:
    digits: str = ""

    def add(self, digit: str) -> dict | None:
        """Take one digit; the action's params once all three are in, else None."""
        if len(digit) != 1 or not digit.isdigit():
            return None
        self.digits += digit
        if len(self.digits) < len(FIELDS):
            return None
        return {name: int(d) for name, d in zip(FIELDS, self.digits)}

    def back(self) -> None:
        self.digits = self.digits[:-1]

    def shown(self) -> str:
        """What the host sees typed: ``2 · 3 · _``."""
        cells = list(self.digits) + ["_"] * (len(FIELDS) - len(self.digits))
        return " · ".join(cells)


def digit_of(names: list[str]) -> str | None:
    """The digit a key stands for (``"3"``, keypad ``"[3]"``), or None."""
    for n in names:
        d = n.strip("[]")
        if len(d) == 1 and d.isdigit():
            return d
    return None
