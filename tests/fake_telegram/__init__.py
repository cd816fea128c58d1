"""A fake Telegram Bot API server for end-to-end tests; see server.FakeTelegram."""

from .html_check import EntityParseError, parse_html
from .models import RecordedRequest, StoredMessage
from .server import DEFAULT_TOKEN, FakeTelegram
from .spec import ApiError, UploadedFile, load_spec

__all__ = ["DEFAULT_TOKEN", "ApiError", "EntityParseError", "FakeTelegram", "RecordedRequest",
           "StoredMessage", "UploadedFile", "load_spec", "parse_html"]
