"""Fetching the photo of a hand from a chat message and reading it (the Telegram side of
detect.py): the largest size of a photo, or a picture sent as a file, from the message itself or
from the message it answers."""

from __future__ import annotations

import asyncio

from telegram import Bot, Document, Message, PhotoSize
from telegram.error import TelegramError

from ..view.i18n import N_, Translator
from .detect import (
    NO_TILES,
    NOT_AN_IMAGE,
    TIME_LIMIT,
    TOO_LARGE,
    PhotoError,
    PhotoReading,
    load_model,
    read_tiles_async,
)

MAX_BYTES = 20 * 1024 * 1024  # what getFile lets a bot download
NO_PHOTO = N_("Send a photo of the hand with the caption {command}, or answer a photo with {command}.")
NOT_FETCHED = N_("I could not fetch the picture from Telegram. Try sending it again in a minute.")


def picture_of(message: Message) -> PhotoSize | Document | None:
    """The picture a message carries (the largest photo size, or an image file), else the picture
    of the message it answers; None when neither has one."""
    for m in (message, message.reply_to_message):
        if m is None:
            continue
        if m.photo:
            return max(m.photo, key=lambda p: p.width * p.height)
        if m.document and _image(m.document):
            return m.document
    return None


def _image(document: Document) -> bool:
    return (document.mime_type or "").startswith("image/")


async def read_message_photo(bot: Bot, message: Message, *, command: str = "/hu",
                             timeout: float = TIME_LIMIT) -> PhotoReading:
    """The tiles in the photo a message carries or answers. Raises PhotoError: no photo, the
    extra not installed, not an image (a file that is no picture, sent with the command as its
    caption), too large, not fetched, too slow, no tiles seen."""
    if message.document is not None and not _image(message.document):
        raise PhotoError(NOT_AN_IMAGE)
    picture = picture_of(message)
    if picture is None:
        raise PhotoError(NO_PHOTO, command=command)
    await asyncio.to_thread(load_model)  # before downloading: without the extra, say so at once
    if picture.file_size and picture.file_size > MAX_BYTES:
        raise PhotoError(TOO_LARGE)
    try:
        data = bytes(await (await bot.get_file(picture.file_id)).download_as_bytearray())
    except TelegramError:  # getFile refused, the file server failed or timed out
        raise PhotoError(NOT_FETCHED) from None
    reading = await read_tiles_async(data, timeout=timeout)
    if not reading.tiles:
        raise PhotoError(NO_TILES)
    return reading


def error_text(t: Translator, exc: PhotoError) -> str:
    """The chat's message for a photo that could not be read (plain text: escape it for HTML)."""
    return t(exc.msgid, **exc.params)
