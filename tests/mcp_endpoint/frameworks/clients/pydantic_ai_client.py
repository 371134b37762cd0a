"""pydantic-ai: an MCPToolset on the URL with the token in `headers`, on an Agent whose model is
OpenAIChatModel at the stand-in."""

import asyncio

from common import agent_runs, failure, headers, plan, report, round_trip, unauthorized
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def toolset(url: str, token: str) -> MCPToolset:
    return MCPToolset(url, headers=headers(token))


async def run_agent(url: str, token: str, prompt: str, model_url: str) -> dict:
    model = OpenAIChatModel("stand-in", provider=OpenAIProvider(base_url=model_url, api_key="stand-in"))
    agent = Agent(model, toolsets=[toolset(url, token)])
    try:
        result = await agent.run(prompt)
    except Exception as error:
        return {"crashed": failure(error)}
    returned = [
        part.model_response() if part.part_kind == "retry-prompt" else str(part.content)
        for message in result.all_messages()
        for part in message.parts
        if part.part_kind in ("tool-return", "retry-prompt")
    ]
    return {"tool": returned[-1], "final": result.output}


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
    found["agent"] = await agent_runs(lambda token, text: run_agent(url, token, text, given["model"]), given)
    return found


report(asyncio.run(main(plan())))
