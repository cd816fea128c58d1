"""Hand entry: the /hand wizard and its screens, the tile keyboard, the forms built from the
variants' models, and the /hu one-line parsers."""
