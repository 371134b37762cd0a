import pytest

from tests.agents.oauth.harness import oauth_server

# Short-lived access tokens, so that a client's refresh is proven by waiting a few seconds rather than an hour.
ACCESS_TOKEN_SECONDS = 6


@pytest.fixture(scope="package")
def live(tmp_path_factory):
    """One gunicorn + job worker + mail sink for every OAuth proof in this package."""
    with oauth_server(
        tmp_path_factory.mktemp("oauth_live"), env={"OAUTH_ACCESS_TOKEN_SECONDS": str(ACCESS_TOKEN_SECONDS)}
    ) as running:
        yield running
