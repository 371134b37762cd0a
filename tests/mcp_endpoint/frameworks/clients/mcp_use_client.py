"""mcp-use: MCPClient.from_dict with the URL and the token as `auth` (without it, a 401 starts mcp-use's own
OAuth flow, which waits for a browser), and the MCPAgent of docs/agents/clients.md run as written, driving
ChatOpenAI at the stand-in. Its tool adapter sends null for every optional argument it was not given,
which the endpoint reads as left out: every tool is called through the agent here. Telemetry off."""

import asyncio
import json
import os

os.environ["MCP_USE_ANONYMIZED_TELEMETRY"] = "false"

from common import failure, plan, report, run_documented
from langchain_openai import ChatOpenAI
from mcp_use import MCPClient

FINAL_PREFIX = "The tool answered: "


def client(url: str, token: str) -> MCPClient:
    return MCPClient.from_dict({"mcpServers": {"chauffeur": {"url": url, "auth": token}}})


async def run_agent(given: dict, token: str, name: str, arguments: dict) -> str:
    model = ChatOpenAI(model="stand-in", base_url=given["model"], api_key="stand-in", max_retries=0)
    ran = await run_documented(given, "mcp_use", token, f"CALL {name} {json.dumps(arguments)}", model)
    return ran["final"] if "final" in ran else f"crashed: {ran['crashed']}"


def answered(final: str):
    text = final.removeprefix(FINAL_PREFIX)
    try:
        return json.loads(text)
    except ValueError:
        return text


async def main(given: dict) -> dict:
    url, found = given["url"], {}
    session = await client(url, given["write"]).create_session("chauffeur")
    found["tools"] = [tool.name for tool in await session.list_tools()]
    price = await session.call_tool("booking_calculate_price", given["price"])
    found["call"] = price.structuredContent
    refused = await session.call_tool("booking_calculate_price", given["bad_price"])
    found["error"] = {"isError": refused.isError, "text": refused.content[0].text}
    await session.disconnect()
    try:
        await client(url, given["bad"]).create_session("chauffeur")
        found["unauthorized"] = "no error"
    except Exception as error:
        found["unauthorized"] = failure(error)

    async def agent(token: str, name: str, arguments: dict):
        return answered(await run_agent(given, token, name, arguments))

    write = given["write"]
    found["agent"] = {name: await agent(write, name, arguments) for name, arguments in given["reads"].items()}
    started = await agent(write, "booking_create_checkout", given["checkout"])
    reference = {"reference": started["reference"]}
    found["round_trip"] = {
        "checkout": started,
        "get": await agent(write, "booking_get_booking", reference),
        "cancel": await agent(write, "booking_cancel_booking", reference),
    }
    # its own argument check would refuse bad_price before the call: ask for a booking that does not exist
    found["agent"]["error"] = await agent(write, "booking_get_booking", {"reference": "CB-NOSUCH"})
    found["agent"]["forbidden"] = await agent(given["read"], "booking_create_checkout", given["checkout"])
    found["agent"]["limited"] = await agent(given["limited"], "booking_calculate_price", given["price"])
    return found


report(asyncio.run(main(plan())))
