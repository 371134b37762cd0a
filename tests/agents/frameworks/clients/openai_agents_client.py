"""openai-agents: MCPServerStreamableHttp (the token in `headers`) on an Agent whose model is
OpenAIChatCompletionsModel at the stand-in; tracing off (it would upload to OpenAI)."""

import asyncio
import json

from agents.mcp import MCPServerStreamableHttp
from common import failure, headers, plan, report
from openai import AsyncOpenAI

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled

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
    model = OpenAIChatCompletionsModel(model="stand-in", openai_client=AsyncOpenAI(base_url=model_url, api_key="stand-in"))  # fmt: skip
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
        found["tools"] = [tool.name for tool in await chauffeur.list_tools()]
        found["call"] = structured(await chauffeur.call_tool("booking_calculate_price", given["price"]))
        refused = await chauffeur.call_tool("booking_calculate_price", given["bad_price"])
        found["error"] = {"isError": refused.is_error, "text": refused.content[0].text}
        started = structured(await chauffeur.call_tool("booking_create_checkout", given["checkout"]))
        reference = {"reference": started["reference"]}
        read = structured(await chauffeur.call_tool("booking_get_booking", reference))
        cancelled = structured(await chauffeur.call_tool("booking_cancel_booking", reference))
        found["round_trip"] = {"checkout": started, "get": read, "cancel": cancelled}
    try:
        async with server(url, given["bad"]) as refused_server:
            await refused_server.list_tools()
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
