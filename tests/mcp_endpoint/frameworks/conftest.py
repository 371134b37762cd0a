import pytest

from tests.mcp_endpoint.live import live_server


@pytest.fixture(scope="package")
def server(tmp_path_factory):
    """A live gunicorn with one worker: a token's spent rate limit is then spent for every call, where two
    workers without Redis would each keep a counter of their own and the kernel chooses which one answers."""
    with live_server(tmp_path_factory.mktemp("live_frameworks"), workers=1) as running:
        yield running
