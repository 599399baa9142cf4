"""What changed in the play area since the last settled picture.

The tracker keeps the picture the last play left (``before``) and the empty play area. A settled
picture that is the same as ``before`` is nothing; one that is the empty area again is a cleared
trick (the trick-taking games gather each trick); anything else is cards added, for the watcher to
read as the play of the seat whose turn it is. The watcher says when a play is taken
(:meth:`PlayTracker.taken`): until then the change stays pending, so a play asked about is not read twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controller.table_camera.settle import moved, small


@dataclass
class Change:
    kind: str  # "play" (cards added), "cleared" (back to the empty area)
    before: np.ndarray
    after: np.ndarray


class PlayTracker:
    def __init__(self) -> None:
        self.empty: np.ndarray | None = None  # the empty play area (a hand's start)
        self.before: np.ndarray | None = None  # the picture the last play left
        self.pending: Change | None = None  # a play seen, not yet taken

    def start(self, picture: np.ndarray) -> None:
        """A new hand: ``picture`` is the empty play area."""
        self.empty = self.before = picture
        self.pending = None

    def settled(self, picture: np.ndarray) -> Change | None:
        """A settled picture: the change it shows since the last one taken, if any (a new one only)."""
        if self.before is None:
            self.start(picture)
            return None
        if not moved(small(picture), small(self.before)):
            self.pending = None  # the cards were taken back: nothing happened
            return None
        if self.empty is not None and not moved(small(picture), small(self.empty)):
            self.before, self.pending = picture, None
            return Change("cleared", picture, picture)
        if self.pending is not None and not moved(small(picture), small(self.pending.after)):
            return None  # the same play still waits for its seat's answer
        self.pending = Change("play", self.before, picture)
        return self.pending

    def taken(self, change: Change) -> None:
        """The play is applied (read, confirmed or corrected): its picture is the next ``before``."""
        self.before = change.after
        if self.pending is change:
            self.pending = None
