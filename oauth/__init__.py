"""The service as its own OAuth 2.1 authorization server for /api/mcp and /api/v1 (docs/agents/oauth.md):
an access token is an ApiToken tied to its grant, so one authenticate() serves static and OAuth tokens."""
