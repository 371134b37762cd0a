"""mcp-remote bridging stdio to the URL (`--header Authorization:${CHAUFFEUR_AUTH}`, the token in the
environment, as the Claude Desktop entry of docs/agents/clients.md), driven over stdio by fastmcp's Client."""

import asyncio
import os
import sys

from common import failure, plan, report
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

NODE_TOOLS = sys.argv[1]  # tests/mcp_endpoint/node, where the locked mcp-remote is


def bridge(url: str, token: str) -> Client:
    transport = StdioTransport(
        command=f"{NODE_TOOLS}/node_modules/.bin/node",
        args=[
            f"{NODE_TOOLS}/node_modules/.bin/mcp-remote",
            url,
            "--header",
            "Authorization:${CHAUFFEUR_AUTH}",
        ],
        env={
            "PATH": os.environ["PATH"],
            "HOME": f"{NODE_TOOLS}/node_modules/.home",
            "CHAUFFEUR_AUTH": f"Bearer {token}",
        },
        cwd=NODE_TOOLS,
    )
    return Client(transport)


async def main(given: dict) -> dict:
    url, found = given["url"], {}
    async with bridge(url, given["write"]) as session:
        found["tools"] = [tool.name for tool in await session.list_tools()]
        found["call"] = (
            await session.call_tool("booking_calculate_price", given["price"])
        ).structured_content
        refused = await session.call_tool("booking_calculate_price", given["bad_price"], raise_on_error=False)
        found["error"] = {"isError": refused.is_error, "text": refused.content[0].text}
        started = (await session.call_tool("booking_create_checkout", given["checkout"])).structured_content
        reference = {"reference": started["reference"]}
        read = (await session.call_tool("booking_get_booking", reference)).structured_content
        cancelled = (await session.call_tool("booking_cancel_booking", reference)).structured_content
        found["round_trip"] = {"checkout": started, "get": read, "cancel": cancelled}
    try:
        async with bridge(url, given["limited"]) as limited:
            await limited.call_tool("booking_calculate_price", given["price"])
        found["limited"] = "no error"
    except Exception as error:
        found["limited"] = failure(error)
    return found


report(asyncio.run(main(plan())))
