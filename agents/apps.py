from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Agent endpoint (MCP)"

    def ready(self) -> None:
        from agents.protocol import problem_reply
        from agents.urls import MCP_PATH
        from chauffeur.api.problems import SURFACE_WRITERS

        SURFACE_WRITERS[MCP_PATH] = problem_reply  # the rate limiter's 429 and other early refusals
