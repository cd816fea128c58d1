"""What the chat sees: translations, HTML rendering, charts, and the export and import formats."""
