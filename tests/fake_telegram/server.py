"""A fake Telegram Bot API server (aiohttp, 127.0.0.1, a free port) for end-to-end tests.

The bot under test talks to it over HTTP exactly as to api.telegram.org (PTB's `base_url`), and it
answers like Telegram: requests are validated against the Bot API 10.0 spec plus the limits Telegram
enforces (see spec.py, rules.py, html_check.py). Tests inject messages and button presses as users,
then inspect what the bot sent. See FakeTelegram's docstring for the test-facing API.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import math
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from contextlib import suppress
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from .models import RecordedRequest, StoredFile, StoredMessage
from .rules import (
    check_callback_answer_text,
    check_commands,
    check_reply_markup,
    check_webhook,
    format_text,
)
from .spec import ApiError, Spec, UploadedFile, bad_request, load_spec

DEFAULT_TOKEN = "123456789:AAFakeTokenForMahjongLedgerTests_00"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
NOT_MODIFIED = ("message is not modified: specified new message content and reply markup are exactly "
                "the same as a current content and reply markup of the message")
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
MIGRATED = "group chat was upgraded to a supergroup chat"
# Update types Telegram leaves out unless asked for by name in allowed_updates.
OPT_IN_UPDATES = {"chat_member", "message_reaction", "message_reaction_count"}
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024  # getFile refuses bigger files
# Sends counted against a group's flood limit (limit_group_messages).
FLOOD_LIMITED = {"sendMessage", "sendPhoto", "sendDocument"}
PHOTO_SIDES = (90, 320, 800, 1280)  # Telegram's thumbnail sizes (longer side) for a user's photo
_COMMAND = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{1,64})?")

T = TypeVar("T")
Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class FakeTelegram:
    """A local Bot API server. Use as `async with FakeTelegram() as tg:` (or start()/stop()).

    Giving it to the bot: `base_url` (PTB's base_url), `base_file_url`, `token`, `bot_user`.

    Setting the scene:
      user(id, first_name, username=None, *, last_name=None, language_code="en") -> User dict
      private_chat(user) -> Chat dict;  group(title, *, chat_id=None, supergroup=False) -> Chat dict
      set_admins(chat_id, users, *, creator=None)     backs getChatMember / getChatAdministrators
      remove_member(chat_id, user, *, banned=False)    the user left (or, banned, was kicked): getChatMember
                                                       says "left" / "kicked" until they write again
                                                       (a banned user cannot: add_member first)
      add_member(chat_id, user, *, restricted=False)   back in the chat; restricted: "restricted",
                                                       still a member

    Acting as users (each injects an update: queued for getUpdates, or POSTed to the webhook):
      await send_message(chat, user, text, *, reply_to=None) -> StoredMessage   (commands get entities)
      await press(chat_id, message_id, user, data, *, check=True) -> callback query id
      await press_button(chat_id, message_id, user, label) -> callback query id
      await press_raw(user, *, chat_id, message_id, data, inline_message_id) -> query id  (odd shapes)
      await add_bot(chat, by)                          my_chat_member: the bot joins a group
      await migrate_chat(old_chat_id, new_chat_id=None, *, by=None) -> new chat id
      await inject(update_body) -> update              any other update (update_id is added)
      await send_document(chat, user, data, filename, *, caption="", mime_type=None) -> StoredMessage
      await send_photo(chat, user, data, *, caption="", reply_to=None) -> StoredMessage
          (photo sizes smallest first, the largest is `data`; each size is a downloadable file)

    Misbehaving on demand:
      fail_next(method, times=1, retry_after=1)        429 Too Many Requests with retry_after
      limit_edits(interval=1.0, retry_after=1)         from now on, a message edited again within
                                                       `interval` seconds answers 429 (Telegram
                                                       throttles rapid edits of one message)
      limit_group_messages(per_minute=20, retry_after=None)
                                                       from now on, a group chat's sendMessage /
                                                       sendPhoto / sendDocument past `per_minute`
                                                       in 60 s answers 429 (Telegram's per-group
                                                       flood limit); see the method
      reject_next(method, error_code, description, times=1)
      fail_downloads(times=1, status=502)              the next file downloads answer `status`

    Looking at what the bot did:
      requests (list[RecordedRequest]), requests_for(method)
      downloads: (file_path, status) of every request to /file/bot<token>/…
      await wait_for_request(method, timeout=5, *, where=None, after=None) -> RecordedRequest
          (by default only requests made since the latest injected update count)
      await wait_for(predicate, timeout=5) -> the predicate's first truthy value
      messages(chat_id, *, include_users=False) -> list[StoredMessage] (current state, after edits)
      message(chat_id, message_id), last_message(chat_id) -> StoredMessage
      callback_answers {query id: params}, unanswered_callbacks(), assert_callbacks_answered()
      expire_callbacks(*query_ids)                     queries a dead bot process never answered
      await wait_until_confirmed(timeout=5)            a polling bot's offset is past every update
      commands {(scope json, language_code): [BotCommand]}, webhook (setWebhook's params or None)
      internal_errors: the fake's own failures (should stay empty)
      observers: callables given each RecordedRequest as it is recorded (load drivers)

    Webhook mode: `webhook_target` (e.g. http://127.0.0.1:PORT/telegram) is where injected updates
    go once the bot called setWebhook (its https URL cannot be reached from tests);
    await deliver_webhook(url, secret_token, update) -> (status, body) posts one update by hand.
    Several workers behind one proxy: `webhook_targets` (a list) gets the updates in turn
    (round-robin), and an update whose POST got no answer (the worker died while handling it, or
    is down) goes at once to the next target, as Telegram delivers it again and the proxy passes
    it to a live worker. An update no target answered is kept in `webhook_pending` and posted
    again, oldest first, before the next update it delivers, or when told: await
    redeliver_webhook(). An injecting call returns once its update was answered: a chat's next
    update is sent after the previous one's answer, as Telegram does.
    """

    def __init__(self, token: str = DEFAULT_TOKEN, *, username: str = "mj_ledger_bot",
                 first_name: str = "Mahjong Ledger", spec: Spec | None = None) -> None:
        self.token = token
        self.spec = spec or load_spec()
        self.bot_user: dict[str, Any] = {"id": int(token.split(":")[0]), "is_bot": True,
                                         "first_name": first_name, "username": username}
        self.requests: list[RecordedRequest] = []
        # Called with every recorded request as it is recorded (a load driver waiting on many
        # chats at once uses this instead of re-scanning `requests` on every change).
        self.observers: list[Callable[[RecordedRequest], None]] = []
        self.injected: list[dict[str, Any]] = []
        self.callback_answers: dict[str, dict[str, Any]] = {}
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.webhook: dict[str, Any] | None = None
        self.webhook_targets: list[str] = []
        self._next_target = 0  # round-robin over webhook_targets
        self.webhook_deliveries: list[tuple[dict[str, Any], int]] = []  # status 0: no answer
        self.webhook_pending: list[dict[str, Any]] = []
        self.internal_errors: list[str] = []
        self._chats: dict[int, dict[str, Any]] = {}
        self._users: dict[int, dict[str, Any]] = {}
        self._members: dict[int, set[int]] = {}
        self._admins: dict[int, set[int]] = {}
        self._creators: dict[int, int] = {}
        self._banned: dict[int, set[int]] = {}  # chat → users kicked from it
        self._restricted: dict[int, set[int]] = {}  # chat → members who may not write
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self._last_message_id: dict[int, int] = {}
        self._migrated: dict[int, int] = {}
        self._updates: list[dict[str, Any]] = []
        self._allowed_updates: set[str] | None = None
        self._update_ids = itertools.count(1)
        self._query_ids = itertools.count(1)
        self._group_ids = itertools.count(1)
        self._file_ids = itertools.count(1)
        self._open_callbacks: list[str] = []
        self._all_callbacks: list[str] = []
        self._failures: dict[str, list[ApiError]] = {}
        self._edit_limit: tuple[float, int] | None = None
        self._last_edit: dict[tuple[int, int], float] = {}
        self._group_limit: tuple[int, int | None] | None = None
        self._group_sends: dict[int, list[float]] = {}  # group chat id: times of recent sends
        self._group_penalty: dict[int, float] = {}  # group chat id: blocked until (monotonic)
        self._files: dict[str, StoredFile] = {}
        self.downloads: list[tuple[str, int]] = []
        self._download_failures: list[int] = []
        self._mark = 0
        self._poll_generation = 0
        self._closing = False
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._handlers: dict[str, Handler] = {
            "getMe": self._get_me, "getUpdates": self._get_updates,
            "setWebhook": self._set_webhook, "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "sendMessage": self._send_message, "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "editMessageCaption": self._edit_message_caption,
            "deleteMessage": self._delete_message, "deleteMessages": self._delete_messages,
            "answerCallbackQuery": self._answer_callback_query,
            "setMyCommands": self._set_my_commands, "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "sendPhoto": self._send_photo, "sendDocument": self._send_document, "getFile": self._get_file,
            "getChat": self._get_chat, "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "getChatMemberCount": self._get_chat_member_count,
        }

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_DOCUMENT_BYTES + 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self._port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        # Wake long polls so they answer now rather than after their timeout.
        self._closing = True
        await self._notify()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """PTB's base_url: PTB appends the token, then /method."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    # ----------------------------------------------------------------- scene

    def user(self, user_id: int, first_name: str, username: str | None = None, *,
             last_name: str | None = None, language_code: str | None = "en") -> dict[str, Any]:
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if last_name:
            user["last_name"] = last_name
        if username:
            user["username"] = username
        if language_code:
            user["language_code"] = language_code
        self._users[user_id] = user
        return user

    def private_chat(self, user: dict[str, Any]) -> dict[str, Any]:
        """The private chat with `user`; it exists for the bot once the user writes in it."""
        chat = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        for key in ("last_name", "username"):
            if key in user:
                chat[key] = user[key]
        return chat

    def group(self, title: str = "Mahjong night", *, chat_id: int | None = None,
              supergroup: bool = False, username: str | None = None) -> dict[str, Any]:
        """A group (or supergroup) the bot is a member of."""
        n = next(self._group_ids)
        if chat_id is None:
            chat_id = -1001000000000 - n if supergroup else -1000 - n
        kind = "supergroup" if supergroup else "group"
        chat: dict[str, Any] = {"id": chat_id, "type": kind, "title": title}
        if username:
            chat["username"] = username
        self._register_chat(chat)
        return chat

    def set_admins(self, chat_id: int, users: Iterable[int | dict[str, Any]], *,
                   creator: int | None = None) -> None:
        ids = set()
        for user in users:
            user_id = user if isinstance(user, int) else self._register_user(user)["id"]
            if user_id not in self._users and user_id != self.bot_user["id"]:
                raise ValueError(f"unknown user {user_id}; create it with user() first")
            ids.add(user_id)
        self._admins[chat_id] = ids
        if creator is not None:
            self._creators[chat_id] = creator
            ids.add(creator)

    def remove_member(self, chat_id: int, user: int | dict[str, Any], *, banned: bool = False) -> None:
        """The user left the group, or (banned) an admin removed them from it."""
        user_id = user if isinstance(user, int) else self._register_user(user)["id"]
        for table in (self._members, self._admins, self._restricted):
            table.get(chat_id, set()).discard(user_id)
        if self._creators.get(chat_id) == user_id:
            del self._creators[chat_id]
        if banned:
            self._banned.setdefault(chat_id, set()).add(user_id)

    def add_member(self, chat_id: int, user: int | dict[str, Any], *, restricted: bool = False) -> None:
        """The user is (back) in the group; restricted: a member who may not write."""
        user_id = user if isinstance(user, int) else self._register_user(user)["id"]
        self._banned.get(chat_id, set()).discard(user_id)
        self._members.setdefault(chat_id, set()).add(user_id)
        if restricted:
            self._restricted.setdefault(chat_id, set()).add(user_id)
        else:
            self._restricted.get(chat_id, set()).discard(user_id)

    # ----------------------------------------------------------------- acting as users

    async def send_message(self, chat: dict[str, Any] | int, user: dict[str, Any], text: str, *,
                           reply_to: int | None = None) -> StoredMessage:
        """A user writes `text` in `chat`; /commands (also /cmd@bot) get bot_command entities."""
        chat = self._chat_for_user(chat, user)
        reply = self.message(chat["id"], reply_to).to_api(with_reply=False) if reply_to else None
        msg = self._store(chat, user, text=text, raw_text=text, entities=_command_entities(text),
                          reply_to_message=reply)
        await self.inject({"message": msg.to_api()})
        return msg

    async def press(self, chat_id: int, message_id: int, user: dict[str, Any], data: str, *,
                    check: bool = True) -> str:
        """A user presses a button carrying `data` under the bot's message; returns the query id.
        With check=False the data need not be on the keyboard (a forged or stale press)."""
        msg = self.message(chat_id, message_id)
        if check and data not in msg.callback_datas:
            raise LookupError(f"message {message_id} has no button with data {data!r}: {msg.callback_datas}")
        self._register_user(user)
        self._members.setdefault(chat_id, set()).add(user["id"])
        query_id = str(4_000_000_000 + next(self._query_ids))
        self._open_callbacks.append(query_id)
        self._all_callbacks.append(query_id)
        await self.inject({"callback_query": {"id": query_id, "from": user, "message": msg.to_api(),
                                              "chat_instance": str(chat_id), "data": data}})
        return query_id

    async def press_raw(self, user: dict[str, Any], *, chat_id: int | None = None,
                        message_id: int | None = None, data: str | None = None,
                        inline_message_id: str | None = None) -> str:
        """A callback query as Telegram may send one: without data (a game button) or from an
        inline message (no `message`, an inline_message_id instead). Returns its id."""
        self._register_user(user)
        query_id = str(4_000_000_000 + next(self._query_ids))
        self._open_callbacks.append(query_id)
        self._all_callbacks.append(query_id)
        body: dict[str, Any] = {"id": query_id, "from": user, "chat_instance": str(chat_id or 1)}
        if chat_id is not None and message_id is not None:
            body["message"] = self.message(chat_id, message_id).to_api()
        if inline_message_id is not None:
            body["inline_message_id"] = inline_message_id
        if data is not None:
            body["data"] = data
        await self.inject({"callback_query": body})
        return query_id

    async def press_button(self, chat_id: int, message_id: int, user: dict[str, Any], label: str) -> str:
        """Press the button whose text is `label` (or contains it, if unique)."""
        data = self.message(chat_id, message_id).callback_data(label)
        return await self.press(chat_id, message_id, user, data)

    async def add_bot(self, chat: dict[str, Any], by: dict[str, Any]) -> dict[str, Any]:
        """The bot is added to a group by `by` (a my_chat_member update)."""
        self._register_chat(chat)
        self._register_user(by)
        bot = {k: self.bot_user[k] for k in ("id", "is_bot", "first_name", "username")}
        return await self.inject({"my_chat_member": {
            "chat": chat, "from": by, "date": _now(),
            "old_chat_member": {"status": "left", "user": bot},
            "new_chat_member": {"status": "member", "user": bot}}})

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int | None = None, *,
                           by: dict[str, Any] | None = None) -> int:
        """Upgrade a group to a supergroup: from now on requests naming the old chat answer 400 with
        migrate_to_chat_id, and both service messages are injected."""
        old = self._chats[old_chat_id]
        if old["type"] != "group":
            raise ValueError("only a basic group can be upgraded")
        new_chat_id = new_chat_id or -1001000000000 - next(self._group_ids)
        new = {"id": new_chat_id, "type": "supergroup", "title": old["title"]}
        self._register_chat(new)
        self._members[new_chat_id] = set(self._members.get(old_chat_id, set()))
        self._admins[new_chat_id] = set(self._admins.get(old_chat_id, set()))
        if old_chat_id in self._creators:
            self._creators[new_chat_id] = self._creators[old_chat_id]
        by = by or self._some_member(old_chat_id)
        old_msg = self._store(old, by, service={"migrate_to_chat_id": new_chat_id})
        self._migrated[old_chat_id] = new_chat_id
        new_msg = self._store(new, by, service={"migrate_from_chat_id": old_chat_id})
        await self.inject({"message": old_msg.to_api()})
        await self.inject({"message": new_msg.to_api()})
        return new_chat_id

    async def send_document(self, chat: dict[str, Any] | int, user: dict[str, Any], data: bytes,
                            filename: str, *, caption: str = "",
                            mime_type: str | None = None) -> StoredMessage:
        """A user uploads a file the bot can getFile and download; a /command caption gets its
        bot_command entity. `mime_type` (e.g. "image/png" for a picture sent as a file) is shown
        to the bot as Telegram does; without it the file is served as JSON."""
        chat = self._chat_for_user(chat, user)
        stored = self._new_file(UploadedFile(filename, mime_type or "application/json", data), "documents")
        document = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                    "file_name": filename, "file_size": stored.size}
        if mime_type:
            document["mime_type"] = mime_type
        msg = self._store(chat, user, caption=caption or None, raw_caption=caption or None,
                          caption_entities=_command_entities(caption), media={"document": document},
                          file=stored)
        await self.inject({"message": msg.to_api()})
        return msg

    async def send_photo(self, chat: dict[str, Any] | int, user: dict[str, Any], data: bytes, *,
                         caption: str = "", reply_to: int | None = None) -> StoredMessage:
        """A user sends a photo (PNG or JPEG bytes). Like Telegram, the message carries it in sizes,
        smallest first: JPEG thumbnails 90, 320, 800 and 1280 px on the longer side (those smaller
        than the picture), then the picture itself, `data` byte for byte. Each size is a file the
        bot can getFile and download. A /command caption gets its bot_command entity."""
        chat = self._chat_for_user(chat, user)
        size = _image_size(data)
        if size is None:
            raise ValueError("send_photo needs PNG, GIF or JPEG bytes")
        if len(data) > MAX_PHOTO_BYTES:
            raise ValueError(f"a photo is at most {MAX_PHOTO_BYTES} bytes")
        sizes = [(_thumbnail(data, side), "image/jpeg", ".jpg") for side in PHOTO_SIDES if side < max(size)]
        sizes.append((data, "image/png" if data.startswith(b"\x89PNG") else "image/jpeg", ""))
        photo = []
        for body, content_type, suffix in sizes:
            stored = self._new_file(UploadedFile(f"photo{suffix}", content_type, body), "photos")
            width, height = _image_size(body) or size
            photo.append({"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                          "file_size": stored.size, "width": width, "height": height})
        reply = self.message(chat["id"], reply_to).to_api(with_reply=False) if reply_to else None
        msg = self._store(chat, user, caption=caption or None, raw_caption=caption or None,
                          caption_entities=_command_entities(caption), media={"photo": photo},
                          file=stored, reply_to_message=reply)
        await self.inject({"message": self._valid("Message", msg.to_api())})
        return msg

    async def inject(self, body: dict[str, Any]) -> dict[str, Any]:
        """Add an update (update_id is assigned). With a webhook set it is POSTed there at once."""
        update = {"update_id": next(self._update_ids), **body}
        self.injected.append(update)
        self._mark = len(self.requests)
        if self.webhook is not None:
            if self._allowed(update):
                await self.redeliver_webhook()
                await self._post_webhook(update)
        else:
            self._updates.append(update)
        await self._notify()
        return update

    async def redeliver_webhook(self) -> None:
        """Post again, in order, the updates whose delivery got no answer."""
        pending, self.webhook_pending = self.webhook_pending, []
        for update in pending:
            await self._post_webhook(update)

    @property
    def webhook_target(self) -> str | None:
        """The one target (the first of several)."""
        return self.webhook_targets[0] if self.webhook_targets else None

    @webhook_target.setter
    def webhook_target(self, url: str | None) -> None:
        self.webhook_targets = [url] if url else []

    async def _post_webhook(self, update: dict[str, Any]) -> None:
        assert self.webhook is not None
        targets = self.webhook_targets or [self.webhook["url"]]
        first, self._next_target = self._next_target, self._next_target + 1
        for attempt in range(len(targets)):
            target = targets[(first + attempt) % len(targets)]
            try:
                status, text = await self.deliver_webhook(target, self.webhook.get("secret_token"),
                                                          update)
            except aiohttp.ClientError:  # no answer: Telegram keeps the update and tries again
                self.webhook_deliveries.append((update, 0))
                continue
            self.webhook_deliveries.append((update, status))
            if not 200 <= status < 300:
                raise AssertionError(f"webhook {target} answered {status}: {text[:200]}")
            return
        self.webhook_pending.append(update)

    async def deliver_webhook(self, url: str, secret_token: str | None,
                              update: dict[str, Any]) -> tuple[int, str]:
        """POST one update to a webhook the way Telegram does; returns (status, body)."""
        headers = {SECRET_HEADER: secret_token} if secret_token else {}
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json=update, headers=headers) as resp:
                return resp.status, await resp.text()

    # ----------------------------------------------------------------- misbehaving

    def fail_next(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """The next `times` calls of `method` answer 429 Too Many Requests."""
        error = _too_many(retry_after)
        self.reject_next(method, error.code, error.description, times, error.parameters)

    def limit_edits(self, interval: float = 1.0, retry_after: int = 1) -> None:
        """Edits of one message closer together than `interval` seconds answer 429 with
        `retry_after` (the time is taken when the fake handles the edit)."""
        self._edit_limit = (interval, retry_after)

    def limit_group_messages(self, per_minute: int = 20, retry_after: int | None = None) -> None:
        """From now on a group's sendMessage/sendPhoto/sendDocument beyond `per_minute` within 60 s
        answers 429, as Telegram does. retry_after None: the seconds until the oldest of those
        messages is a minute old (Telegram's way). A number: that many seconds, and once they have
        passed the group's count starts afresh (a short penalty a test can wait out); a send
        before then answers 429 with the seconds left. Refused sends do not count."""
        self._group_limit = (per_minute, retry_after)
        self._group_sends.clear()
        self._group_penalty.clear()

    def reject_next(self, method: str, error_code: int, description: str, times: int = 1,
                    parameters: dict[str, Any] | None = None) -> None:
        """The next `times` valid calls of `method` fail with this error (e.g. 403 "Forbidden: bot was
        blocked by the user")."""
        name, _ = self.spec.method(method)
        queue = self._failures.setdefault(name, [])
        queue.extend(ApiError(error_code, description, parameters) for _ in range(times))

    def fail_downloads(self, times: int = 1, status: int = 502) -> None:
        """The next `times` file downloads answer `status` (a file server that is down or
        overloaded), whatever file they ask for."""
        self._download_failures.extend([status] * times)

    # ----------------------------------------------------------------- inspecting

    def requests_for(self, method: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method]

    async def wait_for(self, predicate: Callable[[], T], timeout: float = 5.0) -> T:
        """Wait until predicate() is truthy (re-checked on every request and update)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with self._changed:
            while True:
                value = predicate()
                if value:
                    return value
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise TimeoutError(f"condition not met within {timeout}s; recent requests: "
                                       f"{self._recent()}")
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), remaining)

    async def wait_for_request(self, method: str, timeout: float = 5.0, *,
                               where: Callable[[RecordedRequest], bool] | None = None,
                               after: int | None = None) -> RecordedRequest:
        """The first `method` request (matching `where`) among requests[after:]; `after` defaults to
        the number of requests when the latest update was injected."""
        start = self._mark if after is None else after

        def found() -> RecordedRequest | None:
            for r in self.requests[start:]:
                if r.method == method and (where is None or where(r)):
                    return r
            return None

        try:
            return await self.wait_for(found, timeout)
        except TimeoutError:
            raise TimeoutError(f"no {method} request within {timeout}s; requests since: "
                               f"{self._recent(start)}") from None

    def messages(self, chat_id: int, *, include_users: bool = False) -> list[StoredMessage]:
        """Messages in a chat as they are now, oldest first; the bot's only unless include_users."""
        return [m for m in self._messages.get(chat_id, {}).values() if include_users or m.from_bot]

    def message(self, chat_id: int, message_id: int) -> StoredMessage:
        try:
            return self._messages[chat_id][message_id]
        except KeyError:
            raise LookupError(f"no message {message_id} in chat {chat_id}") from None

    def last_message(self, chat_id: int) -> StoredMessage:
        sent = self.messages(chat_id)
        if not sent:
            raise LookupError(f"the bot has sent nothing to chat {chat_id}")
        return sent[-1]

    def unanswered_callbacks(self) -> list[str]:
        return list(self._open_callbacks)

    async def wait_until_confirmed(self, timeout: float = 5.0) -> None:
        """Wait until a polling bot has confirmed every update waiting for getUpdates (its offset
        is past them): what it handled will not be delivered again. (A webhook's delivered
        updates need no confirming.)"""
        await self.wait_for(lambda: not self._updates, timeout)

    def expire_callbacks(self, *query_ids: str) -> None:
        """Telegram gives up on queries nobody answered (a bot process that died with them)."""
        for query_id in query_ids:
            self._open_callbacks.remove(query_id)

    def assert_callbacks_answered(self) -> None:
        if self._open_callbacks:
            raise AssertionError(f"callback queries never answered: {self._open_callbacks}")

    def _recent(self, start: int | None = None) -> list[str]:
        chosen = self.requests[start:] if start is not None else self.requests[-10:]
        return [f"{r.method}:{r.status}" + ("" if r.ok else f" {r.description}") for r in chosen
                if r.method != "getUpdates"]

    # ----------------------------------------------------------------- HTTP

    async def _handle_api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"},
                                     status=401)
        method = request.match_info["method"]
        params: dict[str, Any] = {}
        files: dict[str, UploadedFile] = {}
        outcome: Any
        try:
            raw, files = await _read_params(request)
        except ConnectionError:  # the client went away mid-request (a poll given up): not ours
            return web.Response(status=499)
        try:
            params = dict(raw)
            method, params = self.spec.decode_params(method, raw, files)
            outcome = await self._call(method, params)
        except ApiError as exc:
            outcome = exc
        except Exception as exc:  # the fake's own bug: make it loud, never the bot's fault
            self.internal_errors.append(f"{method}: {exc!r}")
            outcome = ApiError(500, f"Internal Server Error: fake server failed: {exc!r}")
        if isinstance(outcome, ApiError):
            status, body = outcome.code, outcome.body()
        else:
            status, body = 200, {"ok": True, "result": outcome}
        recorded = RecordedRequest(method, params, files, status, body)
        self.requests.append(recorded)
        for observe in self.observers:
            observe(recorded)
        await self._notify()
        return web.json_response(body, status=status)

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        chat_id = params.get("chat_id")
        if isinstance(chat_id, int) and chat_id in self._migrated:
            raise ApiError(400, f"Bad Request: {MIGRATED}", {"migrate_to_chat_id": self._migrated[chat_id]})
        failures = self._failures.get(method)
        if failures:
            raise failures.pop(0)
        flood_group = self._flood_checked(method, chat_id)
        handler = self._handlers.get(method)
        result = await handler(params) if handler else await self._generic(method, params)
        self.spec.check_result(method, result)
        if flood_group is not None:
            self._group_sends.setdefault(flood_group, []).append(time.monotonic())
        return result

    def _flood_checked(self, method: str, chat_id: Any) -> int | None:
        """With limit_group_messages on: the group a message send counts against (None: no such
        send), or 429 if that group has sent its quota in the last minute."""
        if (self._group_limit is None or method not in FLOOD_LIMITED
                or not isinstance(chat_id, int) or chat_id not in self._chats
                or self._chats[chat_id]["type"] not in ("group", "supergroup")):
            return None
        per_minute, fixed = self._group_limit
        now = time.monotonic()
        left = self._group_penalty.get(chat_id, 0.0) - now
        if left > 0:
            raise _too_many(math.ceil(left))
        sends = [t for t in self._group_sends.get(chat_id, []) if now - t < 60.0]
        self._group_sends[chat_id] = sends
        if len(sends) < per_minute:
            return chat_id
        if fixed is None:
            raise _too_many(max(1, math.ceil(sends[0] + 60.0 - now)))
        self._group_penalty[chat_id] = now + fixed
        self._group_sends[chat_id] = []
        raise _too_many(fixed)

    async def _handle_file(self, request: web.Request) -> web.Response:
        response = self._file_response(request)
        self.downloads.append((request.match_info["path"], response.status))
        await self._notify()
        return response

    def _file_response(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        if self._download_failures:
            return web.Response(status=self._download_failures.pop(0))
        for stored in self._files.values():
            if stored.file_path == request.match_info["path"] and stored.upload is not None:
                return web.Response(body=stored.upload.data,
                                    content_type=stored.upload.content_type or "application/octet-stream")
        return web.Response(status=404)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # ----------------------------------------------------------------- methods

    async def _get_me(self, p: dict[str, Any]) -> dict[str, Any]:
        return {**self.bot_user, "can_join_groups": True, "can_read_all_group_messages": False,
                "supports_inline_queries": False, "can_connect_to_business": False,
                "has_main_web_app": False}

    async def _get_updates(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook is not None:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        if "allowed_updates" in p:
            self._allowed_updates = set(p["allowed_updates"]) or None
        offset = p.get("offset", 0)
        if offset > 0:  # confirms every update before it
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        limit = min(max(p.get("limit", 100), 1), 100)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(p.get("timeout", 0), 0)
        # Only one long poll at a time: a newer one ends the older with 409, as Telegram does.
        self._poll_generation += 1
        generation = self._poll_generation
        async with self._changed:
            self._changed.notify_all()
            while True:
                if generation != self._poll_generation:
                    raise ApiError(409, "Conflict: terminated by other getUpdates request; "
                                        "make sure that only one bot instance is running")
                self._updates = [u for u in self._updates if self._allowed(u)]
                remaining = deadline - loop.time()
                if self._updates or remaining <= 0 or self._closing:
                    return [dict(u) for u in self._updates[:limit]]
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), remaining)

    def _allowed(self, update: dict[str, Any]) -> bool:
        kind = next(k for k in update if k != "update_id")
        allowed = self._allowed_updates
        return kind in allowed if allowed else kind not in OPT_IN_UPDATES

    async def _set_webhook(self, p: dict[str, Any]) -> bool:
        check_webhook(p["url"], p.get("secret_token"))
        self.webhook = {k: v for k, v in p.items() if k != "certificate"} if p["url"] else None
        if "allowed_updates" in p:
            self._allowed_updates = set(p["allowed_updates"]) or None
        if p.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _delete_webhook(self, p: dict[str, Any]) -> bool:
        self.webhook = None
        if p.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _get_webhook_info(self, p: dict[str, Any]) -> dict[str, Any]:
        info: dict[str, Any] = {"url": (self.webhook or {}).get("url", ""), "has_custom_certificate": False,
                                "pending_update_count": len(self._updates)}
        if self.webhook and "max_connections" in self.webhook:
            info["max_connections"] = self.webhook["max_connections"]
        if self._allowed_updates:
            info["allowed_updates"] = sorted(self._allowed_updates)
        return info

    async def _send_message(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(p["chat_id"])
        text, entities = format_text(p["text"], p.get("parse_mode"), p.get("entities"))
        markup = check_reply_markup(p.get("reply_markup"))
        reply = self._reply_to(chat, p.get("reply_parameters"))
        msg = self._store(chat, self._bot_sender(), text=text, entities=entities, raw_text=p["text"],
                          parse_mode=p.get("parse_mode"), reply_markup=markup, reply_to_message=reply)
        return msg.to_api()

    async def _edit_message_text(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._editable(p)
        if msg.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = format_text(p["text"], p.get("parse_mode"), p.get("entities"))
        # Without reply_markup Telegram removes the inline keyboard.
        markup = check_reply_markup(p.get("reply_markup"))
        if (text, entities, markup) == (msg.text, msg.entities, msg.reply_markup):
            raise bad_request(NOT_MODIFIED)
        msg.text, msg.entities, msg.reply_markup = text, entities, markup
        msg.raw_text, msg.parse_mode = p["text"], p.get("parse_mode")
        return self._edited(msg)

    async def _edit_message_reply_markup(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._editable(p)
        markup = check_reply_markup(p.get("reply_markup"))
        if markup == msg.reply_markup:
            raise bad_request(NOT_MODIFIED)
        msg.reply_markup = markup
        return self._edited(msg)

    async def _edit_message_caption(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._editable(p)
        if not msg.media:
            raise bad_request("there is no caption in the message to edit")
        caption, entities = format_text(p.get("caption", ""), p.get("parse_mode"),
                                        p.get("caption_entities"), caption=True)
        markup = check_reply_markup(p.get("reply_markup"))
        if (caption or None, entities, markup) == (msg.caption, msg.caption_entities, msg.reply_markup):
            raise bad_request(NOT_MODIFIED)
        msg.caption, msg.caption_entities, msg.reply_markup = caption or None, entities, markup
        msg.raw_caption, msg.parse_mode = p.get("caption"), p.get("parse_mode")
        return self._edited(msg)

    async def _delete_message(self, p: dict[str, Any]) -> bool:
        chat = self._chat(p["chat_id"])
        if self._messages.get(chat["id"], {}).pop(p["message_id"], None) is None:
            raise bad_request("message to delete not found")
        return True

    async def _delete_messages(self, p: dict[str, Any]) -> bool:
        chat = self._chat(p["chat_id"])
        if not 1 <= len(p["message_ids"]) <= 100:
            raise bad_request("too many messages to delete" if p["message_ids"] else "message_ids is empty")
        found = [self._messages.get(chat["id"], {}).pop(i, None) for i in p["message_ids"]]
        if not any(found):
            raise bad_request("message to delete not found")
        return True

    async def _answer_callback_query(self, p: dict[str, Any]) -> bool:
        query_id = p["callback_query_id"]
        if query_id not in self._open_callbacks:
            raise bad_request(QUERY_TOO_OLD)
        check_callback_answer_text(p.get("text"))
        self._open_callbacks.remove(query_id)
        self.callback_answers[query_id] = p
        return True

    async def _set_my_commands(self, p: dict[str, Any]) -> bool:
        check_commands(p["commands"], p.get("language_code"))
        self.commands[_scope_key(p)] = p["commands"]
        return True

    async def _get_my_commands(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        return list(self.commands.get(_scope_key(p), []))

    async def _delete_my_commands(self, p: dict[str, Any]) -> bool:
        self.commands.pop(_scope_key(p), None)
        return True

    async def _send_photo(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(p["chat_id"])
        stored = self._file(p["photo"], photo=True)
        width, height = (_image_size(stored.upload.data) if stored.upload else None) or (800, 600)
        media = {"photo": [{"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                            "width": width, "height": height, "file_size": stored.size}]}
        return self._send_media(chat, p, stored, media)

    async def _send_document(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(p["chat_id"])
        stored = self._file(p["document"], photo=False)
        document: dict[str, Any] = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                                    "file_size": stored.size}
        if stored.upload and stored.upload.filename:
            document["file_name"] = stored.upload.filename
        if stored.upload and stored.upload.content_type:
            document["mime_type"] = stored.upload.content_type
        return self._send_media(chat, p, stored, {"document": document})

    def _send_media(self, chat: dict[str, Any], p: dict[str, Any], stored: StoredFile,
                    media: dict[str, Any]) -> dict[str, Any]:
        caption, entities = format_text(p.get("caption", ""), p.get("parse_mode"),
                                        p.get("caption_entities"), caption=True)
        markup = check_reply_markup(p.get("reply_markup"))
        reply = self._reply_to(chat, p.get("reply_parameters"))
        msg = self._store(chat, self._bot_sender(), caption=caption or None, caption_entities=entities,
                          raw_caption=p.get("caption"), parse_mode=p.get("parse_mode"), media=media,
                          file=stored, reply_markup=markup, reply_to_message=reply)
        return msg.to_api()

    async def _get_file(self, p: dict[str, Any]) -> dict[str, Any]:
        stored = self._files.get(p["file_id"])
        if stored is None:
            raise bad_request("invalid file_id")
        if stored.size > MAX_DOWNLOAD_BYTES:
            raise bad_request("file is too big")
        return {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                "file_size": stored.size, "file_path": stored.file_path}

    async def _get_chat(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(p["chat_id"])
        gifts = dict.fromkeys(("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription",
                               "gifts_from_channels"), False)
        return {**chat, "accent_color_id": 0, "max_reaction_count": 11, "accepted_gift_types": gifts}

    async def _get_chat_member(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._chat(p["chat_id"])
        user_id = p["user_id"]
        user = self.bot_user if user_id == self.bot_user["id"] else self._users.get(user_id)
        if user is None:
            raise bad_request("user not found")
        return self._member(chat, user)

    async def _get_chat_administrators(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        chat = self._chat(p["chat_id"])
        if chat["type"] == "private":
            raise bad_request("there are no administrators in the private chat")
        return [self._member(chat, self._users.get(i) or self.bot_user)
                for i in sorted(self._admins.get(chat["id"], set()))]

    async def _get_chat_member_count(self, p: dict[str, Any]) -> int:
        chat = self._chat(p["chat_id"])
        return 2 if chat["type"] == "private" else len(self._members.get(chat["id"], set())) + 1

    async def _generic(self, method: str, p: dict[str, Any]) -> bool:
        """Valid calls of methods that only answer True (setMyDescription, sendChatAction…)."""
        if self.spec.returns[method] != ("Boolean",):
            raise bad_request(f"method {method} is not implemented by the fake Bot API server")
        if "chat_id" in p:
            self._chat(p["chat_id"])
        return True

    # ----------------------------------------------------------------- state helpers

    def _valid(self, type_name: str, value: dict[str, Any]) -> dict[str, Any]:
        """`value` as Telegram would send it: checked against the spec (a mismatch is the fake's bug)."""
        try:
            self.spec.check_object(type_name, value, type_name)
        except ApiError as exc:
            raise AssertionError(f"the fake made an invalid {type_name}: {exc.description}") from None
        return value

    def _bot_sender(self) -> dict[str, Any]:
        return {k: self.bot_user[k] for k in ("id", "is_bot", "first_name", "username")}

    def _register_user(self, user: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(user, dict) or "id" not in user:
            raise TypeError("pass a user dict made by FakeTelegram.user()")
        self._users[user["id"]] = user
        return user

    def _register_chat(self, chat: dict[str, Any]) -> dict[str, Any]:
        self._chats[chat["id"]] = chat
        self._messages.setdefault(chat["id"], {})
        return chat

    def _chat_for_user(self, chat: dict[str, Any] | int, user: dict[str, Any]) -> dict[str, Any]:
        self._register_user(user)
        if isinstance(chat, int):
            if chat not in self._chats:
                raise LookupError(f"unknown chat {chat}; make it with group() or private_chat()")
            chat = self._chats[chat]
        if chat["id"] in self._migrated:
            raise ValueError(f"chat {chat['id']} was upgraded to {self._migrated[chat['id']]}")
        if chat["type"] == "private" and chat["id"] != user["id"]:
            raise ValueError("a private chat's id is its user's id")
        self._register_chat(chat)
        self._members.setdefault(chat["id"], set()).add(user["id"])
        return chat

    def _chat(self, chat_id: int | str) -> dict[str, Any]:
        """The chat a request names, or Telegram's error for it."""
        if isinstance(chat_id, str):
            for chat in self._chats.values():
                if chat.get("username") and f"@{chat['username']}".lower() == chat_id.lower():
                    return chat
            raise bad_request("chat not found")
        if chat_id in self._chats:
            return self._chats[chat_id]
        if chat_id in self._users:
            raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        raise bad_request("chat not found")

    def _store(self, chat: dict[str, Any], sender: dict[str, Any], **fields: Any) -> StoredMessage:
        chat_id = chat["id"]
        message_id = self._last_message_id.get(chat_id, 0) + 1
        self._last_message_id[chat_id] = message_id
        msg = StoredMessage(chat=chat, message_id=message_id, sender=sender, date=_now(), **fields)
        self._messages.setdefault(chat_id, {})[message_id] = msg
        return msg

    def _reply_to(self, chat: dict[str, Any], params: dict[str, Any] | None) -> dict[str, Any] | None:
        if not params:
            return None
        target = self._chat(params["chat_id"]) if "chat_id" in params else chat
        msg = self._messages.get(target["id"], {}).get(params["message_id"])
        if msg is None:
            if params.get("allow_sending_without_reply"):
                return None
            raise bad_request("message to be replied not found")
        return msg.to_api(with_reply=False)

    def _editable(self, p: dict[str, Any]) -> StoredMessage:
        if "inline_message_id" in p:
            raise bad_request("MESSAGE_ID_INVALID")  # the fake has no inline messages
        if "chat_id" not in p:
            raise bad_request("chat_id is empty")
        if "message_id" not in p:
            raise bad_request("message identifier is not specified")
        chat = self._chat(p["chat_id"])
        msg = self._messages.get(chat["id"], {}).get(p["message_id"])
        if msg is None:
            raise bad_request("message to edit not found")
        if msg.sender.get("id") != self.bot_user["id"] or msg.service:
            raise bad_request("message can't be edited")
        if self._edit_limit is not None:
            interval, retry_after = self._edit_limit
            last = self._last_edit.get((chat["id"], msg.message_id))
            if last is not None and time.monotonic() - last < interval:
                raise _too_many(retry_after)
        return msg

    def _edited(self, msg: StoredMessage) -> dict[str, Any]:
        self._last_edit[(msg.chat["id"], msg.message_id)] = time.monotonic()
        msg.edit_date = _now()
        msg.edits += 1
        return msg.to_api()

    def _file(self, value: UploadedFile | str, *, photo: bool) -> StoredFile:
        if isinstance(value, str):
            if value in self._files:
                return self._files[value]
            if re.match(r"^https?://", value):
                return self._new_file(None, "photos" if photo else "documents")
            raise bad_request("wrong file identifier/HTTP URL specified")
        if not value.data:
            raise bad_request("file must be non-empty")
        if len(value.data) > (MAX_PHOTO_BYTES if photo else MAX_DOCUMENT_BYTES):
            raise ApiError(413, "Request Entity Too Large")
        if photo and _image_size(value.data) is None:
            raise bad_request("IMAGE_PROCESS_FAILED")
        return self._new_file(value, "photos" if photo else "documents")

    def _new_file(self, upload: UploadedFile | None, folder: str) -> StoredFile:
        n = next(self._file_ids)
        suffix = ""
        if upload and upload.filename and "." in upload.filename:
            suffix = "." + upload.filename.rsplit(".", 1)[1]
        stored = StoredFile(f"FAKEFILE{n:06d}", f"U{n:06d}", f"{folder}/file_{n}{suffix}", upload)
        self._files[stored.file_id] = stored
        return stored

    def _member(self, chat: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
        chat_id, user_id = chat["id"], user["id"]
        if chat["type"] == "private":
            status = "member" if user_id in (chat_id, self.bot_user["id"]) else "left"
            return {"status": status, "user": user}
        if self._creators.get(chat_id) == user_id:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in self._admins.get(chat_id, set()):
            rights = dict.fromkeys(("can_be_edited", "is_anonymous", "can_post_stories", "can_edit_stories",
                                    "can_delete_stories", "can_promote_members"), False)
            rights.update(dict.fromkeys(("can_manage_chat", "can_delete_messages", "can_manage_video_chats",
                                         "can_restrict_members", "can_change_info", "can_invite_users",
                                         "can_pin_messages"), True))
            return {"status": "administrator", "user": user, **rights}
        if user_id in self._banned.get(chat_id, set()):
            return {"status": "kicked", "user": user, "until_date": 0}
        if user_id in self._restricted.get(chat_id, set()):
            rights = dict.fromkeys(("can_send_messages", "can_send_audios", "can_send_documents",
                                    "can_send_photos", "can_send_videos", "can_send_video_notes",
                                    "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
                                    "can_add_web_page_previews", "can_react_to_messages", "can_edit_tag",
                                    "can_change_info", "can_invite_users", "can_pin_messages",
                                    "can_manage_topics"), False)
            return {"status": "restricted", "user": user, "is_member": True, "until_date": 0, **rights}
        if user_id == self.bot_user["id"] or user_id in self._members.get(chat_id, set()):
            return {"status": "member", "user": user}
        return {"status": "left", "user": user}

    def _some_member(self, chat_id: int) -> dict[str, Any]:
        for user_id in sorted(self._admins.get(chat_id, set()) | self._members.get(chat_id, set())):
            if user_id in self._users:
                return self._users[user_id]
        return self.user(1, "Group owner")


async def _read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, UploadedFile]]:
    """Query string plus a JSON, urlencoded or multipart body (files kept apart)."""
    raw: dict[str, Any] = dict(request.query)
    files: dict[str, UploadedFile] = {}
    if not request.can_read_body:
        return raw, files
    ctype = request.content_type
    if ctype == "application/json":
        try:
            body = json.loads(await request.read() or b"{}")
        except ValueError:
            raise bad_request("can't parse JSON encoded request") from None
        if not isinstance(body, dict):
            raise bad_request("JSON object expected")
        raw.update(body)
    elif ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.post()
        for key, value in form.items():
            if isinstance(value, web.FileField):
                files[key] = UploadedFile(value.filename, value.content_type, value.file.read())
            else:
                raw[key] = value if isinstance(value, str) else bytes(value).decode("utf-8")
    elif await request.read():
        raise bad_request(f"unsupported Content-Type {ctype}")
    return raw, files


def _scope_key(p: dict[str, Any]) -> tuple[str, str]:
    return json.dumps(p.get("scope") or {"type": "default"}, sort_keys=True), p.get("language_code") or ""


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, GIF or JPEG; None when Telegram could not process the image."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data) and data[i] == 0xFF:
            marker, size = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
            i += 2 + size
    return None


def _command_entities(text: str) -> list[dict[str, Any]]:
    """bot_command entities for the /commands (also /cmd@bot) in a text or caption."""
    return [{"type": "bot_command", "offset": _utf16(text[:m.start()]), "length": _utf16(m.group())}
            for m in _COMMAND.finditer(text)]


def _thumbnail(data: bytes, side: int) -> bytes:
    """The picture scaled down to `side` pixels on its longer side, as JPEG."""
    from PIL import Image  # Pillow comes with matplotlib

    image = Image.open(io.BytesIO(data)).convert("RGB")
    image.thumbnail((side, side))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _now() -> int:
    return int(time.time())


def _too_many(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after})
