"""One module per regional variant; each registers itself with `scoring.variant.register`."""
