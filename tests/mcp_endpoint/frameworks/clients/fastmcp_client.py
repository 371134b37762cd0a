"""fastmcp's Client over StreamableHttpTransport with the token in a header, and the example of
docs/agents/clients.md run as written."""

import asyncio

from common import failure, headers, plan, report, run_example
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport


def client(url: str, token: str) -> Client:
    return Client(StreamableHttpTransport(url, headers=headers(token)))


async def refusal(url: str, token: str, name: str, arguments: dict) -> str:
    try:
        async with client(url, token) as refused:
            result = await refused.call_tool(name, arguments)
    except Exception as error:
        return failure(error)
    return f"no error: {result}"


async def main(given: dict) -> dict:
    url, found = given["url"], {}
    async with client(url, given["write"]) as session:
        found["tools"] = [tool.name for tool in await session.list_tools()]
        price = await session.call_tool("booking_calculate_price", given["price"])
        found["call"] = price.structured_content
        refused = await session.call_tool("booking.calculate_price", given["bad_price"], raise_on_error=False)
        found["error"] = {"isError": refused.is_error, "text": refused.content[0].text}
        try:
            await session.call_tool("booking_calculate_price", given["bad_price"])
        except Exception as error:
            found["error"]["raised"] = failure(error)
        started = (await session.call_tool("booking_create_checkout", given["checkout"])).structured_content
        reference = {"reference": started["reference"]}
        read = (await session.call_tool("booking_get_booking", reference)).structured_content
        cancelled = (await session.call_tool("booking_cancel_booking", reference)).structured_content
        found["round_trip"] = {"checkout": started, "get": read, "cancel": cancelled}
    found["unauthorized"] = await refusal(url, given["bad"], "booking_calculate_price", given["price"])
    found["forbidden"] = await refusal(url, given["read"], "booking_create_checkout", given["checkout"])
    found["limited"] = await refusal(url, given["limited"], "booking_calculate_price", given["price"])
    found["documented"] = (await run_example(given, "fastmcp", given["write"]))["price"].structured_content
    return found


report(asyncio.run(main(plan())))
