from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "mcp_endpoint"
    label = "agents"  # its tables, permissions and migrations keep the old label
    verbose_name = "Agent endpoint (MCP)"

    def ready(self) -> None:
        from apikit.problems import SURFACE_WRITERS
        from mcp_endpoint.protocol import problem_reply
        from mcp_endpoint.urls import MCP_PATH

        SURFACE_WRITERS[MCP_PATH] = problem_reply  # the rate limiter's 429 and other early refusals
