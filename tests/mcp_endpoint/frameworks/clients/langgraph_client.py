"""langchain-mcp-adapters' MultiServerMCPClient (streamable_http, the token in `headers`): the tools listed and
called directly, and the agent of docs/agents/clients.md (LangChain's create_agent with its
ToolErrorMiddleware) run as written, the model being ChatOpenAI at the stand-in."""

import asyncio
import json

from common import agent_runs, failure, headers, plan, report, run_documented
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI


def connection(url: str, token: str) -> MultiServerMCPClient:
    return MultiServerMCPClient(
        {"chauffeur": {"transport": "streamable_http", "url": url, "headers": headers(token)}}
    )


def text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


async def main(given: dict) -> dict:
    url, found = given["url"], {}
    tools = await connection(url, given["write"]).get_tools()
    by_name = {tool.name: tool for tool in tools}
    found["tools"] = list(by_name)
    found["call"] = json.loads(text(await by_name["booking_calculate_price"].ainvoke(given["price"])))
    refused = await by_name["booking_calculate_price"].ainvoke(given["bad_price"])
    found["error"] = {"text": text(refused)}
    started = json.loads(text(await by_name["booking_create_checkout"].ainvoke(given["checkout"])))
    reference = {"reference": started["reference"]}
    read = json.loads(text(await by_name["booking_get_booking"].ainvoke(reference)))
    cancelled = json.loads(text(await by_name["booking_cancel_booking"].ainvoke(reference)))
    found["round_trip"] = {"checkout": started, "get": read, "cancel": cancelled}
    try:
        await connection(url, given["bad"]).get_tools()
        found["unauthorized"] = "no error"
    except Exception as error:
        found["unauthorized"] = failure(error)
    limited = {tool.name: tool for tool in await connection(url, given["limited"]).get_tools()}
    try:
        await limited["booking_calculate_price"].ainvoke(given["price"])
        found["limited"] = "no error"
    except Exception as error:
        found["limited"] = failure(error)

    def model() -> ChatOpenAI:
        return ChatOpenAI(model="stand-in", base_url=given["model"], api_key="stand-in", max_retries=0)

    found["agent"] = await agent_runs(
        lambda token, prompt: run_documented(given, "langgraph", token, prompt, model()), given
    )
    return found


report(asyncio.run(main(plan())))
