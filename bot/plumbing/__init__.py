"""The Telegram plumbing: settings, polling that acknowledges late, per-chat update order, the
rate limiter, coalesced edits, sending and editing messages, and the bounds on what comes in."""
