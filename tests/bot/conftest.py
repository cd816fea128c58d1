"""The use cases' tests (test_books.py) use the database fixtures of tests/db."""

from tests.db.conftest import db_url, store  # noqa: F401  # fixtures shared, not redefined
