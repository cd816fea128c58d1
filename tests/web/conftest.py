"""The web page's tests use the database fixtures of tests/db."""

from tests.db.conftest import db_url, store  # noqa: F401  # fixtures shared, not redefined
