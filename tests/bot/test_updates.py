"""The update processor: chats side by side, each chat in order."""

from __future__ import annotations

import asyncio

from telegram import Chat, Message, Update, User

from bot.plumbing.updates import PerChatProcessor, chat_key


def message_update(update_id: int, chat_id: int) -> Update:
    user = User(id=abs(chat_id), first_name="A", is_bot=False)
    chat = Chat(id=chat_id, type="group")
    return Update(update_id, message=Message(update_id, None, chat, from_user=user, text="x"))  # type: ignore[arg-type]


async def test_a_slow_chat_holds_up_only_itself_and_its_updates_stay_in_order() -> None:
    processor = PerChatProcessor(queued=64, running=8)
    release = asyncio.Event()
    done: list[tuple[int, int]] = []

    async def handle(update: Update) -> None:
        if update.update_id == 1:
            await release.wait()  # chat -1's first update is stuck (a locked database)
        await asyncio.sleep(0)
        done.append((update.effective_chat.id, update.update_id))  # type: ignore[union-attr]

    updates = [message_update(1, -1), message_update(2, -2), message_update(3, -1),
               message_update(4, -2), message_update(5, -3)]
    tasks = [asyncio.create_task(processor.process_update(u, handle(u))) for u in updates]
    for _ in range(50):
        await asyncio.sleep(0)
    # the other chats are done while chat -1 waits; its second update waits behind its first
    assert sorted(done) == [(-3, 5), (-2, 2), (-2, 4)]
    assert [u for c, u in done if c == -2] == [2, 4]
    release.set()
    await asyncio.gather(*tasks)
    assert [u for c, u in done if c == -1] == [1, 3]
    assert processor._locks == {}  # nothing kept for idle chats


async def test_many_updates_of_one_chat_run_in_arrival_order() -> None:
    processor = PerChatProcessor(queued=1000, running=4)
    seen: list[int] = []

    async def handle(update: Update, delay: float) -> None:
        await asyncio.sleep(delay)
        seen.append(update.update_id)

    updates = [message_update(i, -7) for i in range(200)]
    # later updates are faster: without the chat's lock they would finish first
    await asyncio.gather(*(processor.process_update(u, handle(u, 0.002 * (200 - i) / 200))
                           for i, u in enumerate(updates)))
    assert seen == list(range(200))


def test_updates_without_a_chat_are_keyed_by_their_user_or_not_at_all() -> None:
    assert chat_key(message_update(1, -5)) == -5
    assert chat_key(Update(9)) is None
    assert chat_key(object()) is None


async def test_a_burst_is_handled_a_few_at_a_time_in_arrival_order() -> None:
    processor = PerChatProcessor(queued=64, running=64, soon=3, give_way=60.0)
    busy, most, started = 0, 0, []

    async def handle(update: Update) -> None:
        nonlocal busy, most
        started.append(update.update_id)
        busy += 1
        most = max(most, busy)
        for _ in range(5):  # database round trips, say
            await asyncio.sleep(0)
        busy -= 1

    updates = [message_update(i, -100 - i) for i in range(20)]  # 20 chats at once
    await asyncio.gather(*(processor.process_update(u, handle(u)) for u in updates))
    assert most == 3
    assert started == list(range(20))


async def test_a_slow_update_gives_its_turn_away_and_holds_up_no_other_chat() -> None:
    processor = PerChatProcessor(queued=64, running=64, soon=1, give_way=0.01)
    release, done = asyncio.Event(), []

    async def handle(update: Update) -> None:
        if update.update_id == 1:
            await release.wait()  # waits for a lock far longer than give_way
        done.append(update.update_id)

    slow = asyncio.create_task(processor.process_update(message_update(1, -1),
                                                        handle(message_update(1, -1))))
    await asyncio.sleep(0)
    await asyncio.wait_for(processor.process_update(message_update(2, -2),
                                                    handle(message_update(2, -2))), 5)
    assert done == [2]
    release.set()
    await slow
    assert done == [2, 1] and processor._soon._value == 1  # every turn given back once
