"""The ``hostile_server`` fixture.

Tests under tests/hostile/ get it from that directory's conftest.py. Anywhere else, import it into
the test module (``from tests.hostile.fixtures import hostile_server  # noqa: F401``) or list
``tests.hostile.fixtures`` in ``pytest_plugins`` of tests/conftest.py.

    def test_watch_of_bookmarks_ends(hostile_server):
        server = hostile_server('bookmarks_only', max_duration=10)
        ... run the client against server.url (or server.kubeconfig(token=...)) ...
        assert server.count(COLLECTION_PATH, watch=True) <= 5
"""

import pytest

from tests.hostile.server import HostileServer


@pytest.fixture
def hostile_server():
    """``hostile_server(mode, **options)`` starts a HostileServer; all stop at teardown."""
    started = []

    def start(mode='normal', **options):
        server = HostileServer(mode, **options).start()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.stop()
