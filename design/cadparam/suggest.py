"""Naming an unknown name with the known ones, closest first: "did you mean cylinder?".

Names are compared without case and underscores, so the DAG's op names find their Python calls
(`linearRepeat` → `linear_repeat`) and `Cylindr` finds `cylinder`.
"""

from __future__ import annotations

import difflib
from typing import Iterable

CUTOFF = 0.6
MAX_GUESSES = 3


def _folded(name: str) -> str:
    return name.replace("_", "").lower()


def ranked(asked: str, known: Iterable[str]) -> tuple[list[str], list[str]]:
    """The known names close to `asked` (closest first), and the others (alphabetically)."""
    names = sorted(set(known), key=lambda n: (n.lower(), n))
    target = _folded(asked)
    scores = {n: difflib.SequenceMatcher(None, target, _folded(n)).ratio() for n in names}
    close = sorted((n for n in names if scores[n] >= CUTOFF), key=lambda n: -scores[n])
    return close, [n for n in names if scores[n] < CUTOFF]


def guesses(asked: str, close: list[str]) -> list[str]:
    """What "did you mean" offers: the one name `asked` spells another way (`linearRepeat` →
    `linear_repeat`), else the closest few."""
    same = [n for n in close if _folded(n) == _folded(asked)]
    return same[:1] or close[:MAX_GUESSES]


def unknown(
    subject: str, kind: str, asked: object, known: Iterable[str], *, listed: bool = True
) -> str:
    """One line: "`subject` has no `kind` 'asked'; did you mean x? known `kind`s: x, y, z".

    `listed=False` leaves out the list of every known name (for objects that are not cadparam's).
    """
    close, rest = ranked(str(asked), known)
    text = f"{subject} has no {kind} {asked!r}"
    if close:
        text += f"; did you mean {' or '.join(guesses(str(asked), close))}?"
    if listed:
        text += f"{' ' if close else '; '}known {kind}s: {', '.join(close + rest) or 'none'}"
    return text
