"""The /hand wizard: one message, edited in place, walking a draft to a hand record: the draft
typed (`draft`: its steps, the keyboard's state, the tiles read), the steps and screens (`flow`),
a winner's tiles read on the tile keyboard (`reading`, entry/keyboard.py) and 查叫 by tiles
(`ready`)."""
