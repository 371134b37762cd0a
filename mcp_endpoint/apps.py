from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "mcp_endpoint"
    label = "agents"  # its tables, permissions and migrations keep the old label
    verbose_name = "Agent endpoint (MCP)"

    def ready(self) -> None:
        from apikit.problems import EARLY_REFUSAL_WRITERS, SURFACE_WRITERS
        from mcp_endpoint.protocol import problem_reply
        from mcp_endpoint.urls import MCP_PATH
        from mcp_endpoint.views import early_refusal

        SURFACE_WRITERS[MCP_PATH] = problem_reply  # refusals before the view (an unknown Host …)
        EARLY_REFUSAL_WRITERS[MCP_PATH] = early_refusal  # the rate limiter's 401 and 429
