"""The /hand wizard: one message, edited in place, walking a draft to a hand record (`flow`),
with the tile keyboard (`keyboard`), the winner's tiles read (`reading`) and 查叫 by tiles
(`ready`)."""
