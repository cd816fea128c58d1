"""What the fake server remembers: requests the bot made and messages in chats."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .spec import UploadedFile


@dataclass
class RecordedRequest:
    """One Bot API call: canonical method name, decoded parameters, uploads, and the answer."""
    method: str
    params: dict[str, Any]
    files: dict[str, UploadedFile]
    status: int
    response: dict[str, Any]
    at: float = field(default_factory=time.monotonic)  # when the fake answered (monotonic)

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok"))

    @property
    def result(self) -> Any:
        return self.response.get("result")

    @property
    def description(self) -> str | None:
        return self.response.get("description")


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    file_path: str
    upload: UploadedFile | None  # None for a photo sent by URL

    @property
    def size(self) -> int:
        return len(self.upload.data) if self.upload else 0


@dataclass
class StoredMessage:
    """A message as it stands now (after edits). `text`/`caption` are what users see (tags parsed);
    `raw_text`/`raw_caption` are what the bot sent, with `parse_mode`."""
    chat: dict[str, Any]
    message_id: int
    sender: dict[str, Any]
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    raw_text: str | None = None
    parse_mode: str | None = None
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    raw_caption: str | None = None
    reply_markup: dict[str, Any] | None = None
    reply_to_message: dict[str, Any] | None = None
    media: dict[str, Any] = field(default_factory=dict)  # {"photo": [...]} or {"document": {...}}
    file: StoredFile | None = None
    service: dict[str, Any] = field(default_factory=dict)  # migrate_to_chat_id and the like
    edit_date: int | None = None
    edits: int = 0

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    @property
    def from_bot(self) -> bool:
        return bool(self.sender.get("is_bot"))

    @property
    def buttons(self) -> list[list[dict[str, Any]]]:
        """Rows of inline keyboard buttons ([] without an inline keyboard)."""
        return list((self.reply_markup or {}).get("inline_keyboard", []))

    @property
    def button_labels(self) -> list[str]:
        return [b["text"] for row in self.buttons for b in row]

    @property
    def callback_datas(self) -> list[str]:
        return [b["callback_data"] for row in self.buttons for b in row if "callback_data" in b]

    def callback_data(self, label: str) -> str:
        """The callback data of the button labelled `label` (exact text or a unique substring)."""
        buttons = [b for row in self.buttons for b in row if "callback_data" in b]
        exact = [b for b in buttons if b["text"] == label]
        found = exact or [b for b in buttons if label in b["text"]]
        if len(found) != 1:
            raise LookupError(f"{len(found)} buttons match {label!r}; labels: {self.button_labels}")
        return str(found[0]["callback_data"])

    def to_api(self, *, with_reply: bool = True) -> dict[str, Any]:
        """The Message object Telegram would return."""
        out: dict[str, Any] = {"message_id": self.message_id, "date": self.date,
                               "chat": dict(self.chat), "from": dict(self.sender)}
        if self.edit_date is not None:
            out["edit_date"] = self.edit_date
        if self.reply_to_message is not None and with_reply:
            out["reply_to_message"] = self.reply_to_message
        if self.text is not None:
            out["text"] = self.text
            if self.entities:
                out["entities"] = self.entities
        out.update(self.media)
        if self.caption:
            out["caption"] = self.caption
            if self.caption_entities:
                out["caption_entities"] = self.caption_entities
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            out["reply_markup"] = self.reply_markup  # only inline keyboards belong to a message
        out.update(self.service)
        return out
