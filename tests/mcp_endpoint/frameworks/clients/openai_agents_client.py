"""openai-agents: MCPServerStreamableHttp (the token in `headers`) on an Agent whose model is
OpenAIChatCompletionsModel at the stand-in; tracing off (it would upload to OpenAI)."""

import asyncio
import json

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from common import agent_runs, failure, headers, plan, report, round_trip, unauthorized
from openai import AsyncOpenAI

set_tracing_disabled(True)


def refusal_text(context, error: Exception) -> str:
    """What the model reads when a call is refused (403, 429): the server's message, not the SDK's
    default "An error occurred while running the tool"."""
    return f"The tool call failed: {error}"


def server(url: str, token: str) -> MCPServerStreamableHttp:
    return MCPServerStreamableHttp(
        params={"url": url, "headers": headers(token)}, name="chauffeur", failure_error_function=refusal_text
    )


async def run_agent(url: str, token: str, prompt: str, model_url: str) -> dict:
    model = OpenAIChatCompletionsModel(
        model="stand-in", openai_client=AsyncOpenAI(base_url=model_url, api_key="stand-in")
    )
    try:
        async with server(url, token) as chauffeur:
            agent = Agent(name="booker", instructions="Book rides.", model=model, mcp_servers=[chauffeur])
            result = await Runner.run(agent, prompt, max_turns=4)
    except Exception as error:
        return {"crashed": failure(error)}
    outputs = [item.output for item in result.new_items if item.type == "tool_call_output_item"]
    return {"tool": str(outputs[-1]), "final": result.final_output}


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
    found["agent"] = await agent_runs(lambda token, text: run_agent(url, token, text, given["model"]), given)
    return found


report(asyncio.run(main(plan())))
