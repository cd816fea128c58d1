"""Training the photo reader's tile classifier (not part of the installed package)."""
