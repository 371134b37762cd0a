"""pydantic-ai: an MCPToolset on the URL with the token in `headers`, on an Agent whose model is
OpenAIChatModel at the stand-in."""

import asyncio
import json

from common import failure, headers, plan, report
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
        started = await chauffeur.direct_call_tool("booking_create_checkout", given["checkout"])
        reference = {"reference": started["reference"]}
        read = await chauffeur.direct_call_tool("booking_get_booking", reference)
        cancelled = await chauffeur.direct_call_tool("booking_cancel_booking", reference)
        found["round_trip"] = {"checkout": started, "get": read, "cancel": cancelled}
    try:
        async with toolset(url, given["bad"]) as refused:
            await refused.list_tools()
        found["unauthorized"] = "no error"
    except Exception as error:
        found["unauthorized"] = failure(error)

    def call(name: str, arguments: dict) -> str:
        return f"CALL {name} {json.dumps(arguments)}"

    model = given["model"]
    found["agent"] = {
        "valid": await run_agent(url, given["write"], call("booking_calculate_price", given["price"]), model),
        "error": await run_agent(
            url, given["write"], call("booking_calculate_price", given["bad_price"]), model
        ),
        "forbidden": await run_agent(
            url, given["read"], call("booking_create_checkout", given["checkout"]), model
        ),
        "limited": await run_agent(
            url, given["limited"], call("booking_calculate_price", given["price"]), model
        ),
    }
    return found


report(asyncio.run(main(plan())))
