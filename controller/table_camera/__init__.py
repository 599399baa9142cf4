"""The table camera: it watches the play area and turns each play that lands into the action of the
seat whose turn it is (issue 29). Top to bottom:

- :mod:`settle` — wait for the picture to settle (no hand moving);
- :mod:`tracker` — what changed since the last settled picture: a play, a cleared trick, nothing;
- :mod:`watcher` — the service glue: read the play (``vision.play_read``), referee it or ask the seat.
"""
