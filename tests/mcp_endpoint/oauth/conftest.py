import pytest

from tests.mcp_endpoint.oauth.documents import document_server
from tests.mcp_endpoint.oauth.harness import oauth_server

# Short-lived access tokens, so that a client's refresh is proven by waiting a few seconds rather than an hour.
ACCESS_TOKEN_SECONDS = 6


@pytest.fixture(scope="package")
def documents(tmp_path_factory):
    """The HTTPS server of the clients' metadata documents (client ID metadata documents)."""
    with document_server(tmp_path_factory.mktemp("documents")) as serving:
        yield serving


@pytest.fixture(scope="package")
def live(tmp_path_factory, documents):
    """One gunicorn + job worker + mail sink for every OAuth proof in this package; it trusts the document
    server's certificate (and only through REQUESTS_CA_BUNDLE, as an operator would give a private CA)."""
    env = {
        "OAUTH_ACCESS_TOKEN_SECONDS": str(ACCESS_TOKEN_SECONDS),
        "REQUESTS_CA_BUNDLE": str(documents.certificate),
        # every client here registers from 127.0.0.1: far above the 10 an hour one address may register
        "OAUTH_REGISTRATION_RATE_LIMIT": "1000",
    }
    with oauth_server(tmp_path_factory.mktemp("oauth_live"), env=env) as running:
        yield running
