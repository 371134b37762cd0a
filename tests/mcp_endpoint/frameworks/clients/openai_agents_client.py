"""openai-agents: MCPServerStreamableHttp (the token in `headers`) called directly, and the agent of
docs/agents/clients.md (strict schemas) run as written, its model OpenAIChatCompletionsModel at the
stand-in; tracing off (it would upload to OpenAI)."""

import asyncio
import json

from agents import OpenAIChatCompletionsModel, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from common import agent_runs, headers, plan, report, round_trip, run_documented, unauthorized
from openai import AsyncOpenAI

set_tracing_disabled(True)


def server(url: str, token: str) -> MCPServerStreamableHttp:
    return MCPServerStreamableHttp(params={"url": url, "headers": headers(token)}, name="chauffeur")


def structured(result) -> dict:
    return result.structured_content or json.loads(result.content[0].text)


async def main(given: dict) -> dict:
    url, found = given["url"], {}
    async with server(url, given["write"]) as chauffeur:

        async def call(name: str, arguments: dict) -> dict:
            return structured(await chauffeur.call_tool(name, arguments))

        found["tools"] = [tool.name for tool in await chauffeur.list_tools()]
        found["call"] = await call("booking_calculate_price", given["price"])
        refused = await chauffeur.call_tool("booking_calculate_price", given["bad_price"])
        found["error"] = {"isError": refused.is_error, "text": refused.content[0].text}
        found["round_trip"] = await round_trip(call, given["checkout"])
    found["unauthorized"] = await unauthorized(lambda token: server(url, token), given["bad"])

    def model() -> OpenAIChatCompletionsModel:
        client = AsyncOpenAI(base_url=given["model"], api_key="stand-in")
        return OpenAIChatCompletionsModel(model="stand-in", openai_client=client)

    found["agent"] = await agent_runs(
        lambda token, prompt: run_documented(given, "openai_agents", token, prompt, model()), given
    )
    return found


report(asyncio.run(main(plan())))
