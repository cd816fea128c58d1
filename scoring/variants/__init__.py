"""One module per regional variant; each registers itself with `scoring.variant.register`."""

# The order in which lists of the styles name them (/help, the greeting): the one list of them
ORDER = ("luzhou", "guiyang", "cixi", "feibao", "hainan", "mcr", "singapore", "free")
