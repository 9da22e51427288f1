from tests.hostile.fixtures import hostile_server  # noqa: F401  (the fixture for tests here)
