"""hongsi vision: the dealer camera's card reader.

- :mod:`vision.labels` — the 54 labels in the classifier's order.
- :mod:`vision.render` — synthetic card faces (poker, bridge, 掼蛋, dark decks; random styles) and camera
  frames (the dealer window, a card on a table). The virtual rig's camera uses it.
- :mod:`vision.localize` — find the card, warp it upright, cut both corner indices; "no card".
- :mod:`vision.reader` — :class:`~vision.reader.CardReader`: the ONNX models under onnxruntime, corner
  voting, frame voting, a committee of models for pictures from unknown cameras, declining when unsure.
- :mod:`vision.decode` — deck-consistency decoding of a whole deal (min-cost matching).
- :mod:`vision.train` — the training recipe (torch, from the ``train`` extra) that made
  ``vision/models/card_corner*.onnx``.
"""
