"""Suite-wide settings and the fake Bot API fixture (tests/e2e adds its stricter checks).
Database fixtures live in tests/db/conftest.py."""

from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, settings

from tests.fake_telegram import FakeTelegram
from tests.made_up_style import made_up_style  # noqa: F401  # a fixture for every test folder

# CI machines are small: no per-example deadline, and a fixed seed there so a red run reproduces.
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if __import__("os").environ.get("CI") else "default")


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake
    assert not fake.internal_errors
