"""The /hand wizard: one message, edited in place, walking a draft to a hand record (`flow`),
with the winner's tiles read on the tile keyboard (`reading`, entry/keyboard.py) and 查叫 by
tiles (`ready`)."""
