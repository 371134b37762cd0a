"""pydantic-ai: an MCPToolset on the URL with the token in `headers` called directly, and the agent of
docs/agents/clients.md run as written, its model OpenAIChatModel at the stand-in."""

import asyncio

from common import agent_runs, failure, headers, plan, report, round_trip, run_documented, unauthorized
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def toolset(url: str, token: str) -> MCPToolset:
    return MCPToolset(url, headers=headers(token))


async def main(given: dict) -> dict:
    url, found = given["url"], {}
    async with toolset(url, given["write"]) as chauffeur:
        found["tools"] = [tool.name for tool in await chauffeur.list_tools()]
        found["call"] = await chauffeur.direct_call_tool("booking_calculate_price", given["price"])
        try:
            await chauffeur.direct_call_tool("booking_calculate_price", given["bad_price"])
            found["error"] = {"text": "no error"}
        except Exception as error:
            found["error"] = {"text": failure(error)}
        found["round_trip"] = await round_trip(chauffeur.direct_call_tool, given["checkout"])
    found["unauthorized"] = await unauthorized(lambda token: toolset(url, token), given["bad"])

    def model() -> OpenAIChatModel:
        return OpenAIChatModel(
            "stand-in", provider=OpenAIProvider(base_url=given["model"], api_key="stand-in")
        )

    found["agent"] = await agent_runs(
        lambda token, prompt: run_documented(given, "pydantic_ai", token, prompt, model()), given
    )
    return found


report(asyncio.run(main(plan())))
