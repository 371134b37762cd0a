import pytest

from tests.mcp_endpoint.live import live_server


@pytest.fixture(scope="package")
def server(tmp_path_factory):
    """One live gunicorn for every outside client of this package's tests."""
    with live_server(tmp_path_factory.mktemp("live_mcp")) as running:
        yield running
