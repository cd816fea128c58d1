"""Suite-wide settings. Database fixtures live in tests/db/conftest.py."""

from hypothesis import HealthCheck, settings

# CI machines are small: no per-example deadline, and a fixed seed there so a red run reproduces.
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if __import__("os").environ.get("CI") else "default")
