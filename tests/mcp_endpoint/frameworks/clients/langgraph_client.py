"""langchain-mcp-adapters' MultiServerMCPClient (streamable_http, the token in `headers`) with LangGraph's
ToolNode (handle_tool_errors=True) in a create_react_agent, the model being ChatOpenAI at the stand-in."""

import asyncio
import json

from common import failure, headers, plan, report
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import ToolNode, create_react_agent


def connection(url: str, token: str) -> MultiServerMCPClient:
    return MultiServerMCPClient(
        {"chauffeur": {"transport": "streamable_http", "url": url, "headers": headers(token)}}
    )


def text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


async def run_agent(tools, prompt: str, model_url: str) -> dict:
    model = ChatOpenAI(model="stand-in", base_url=model_url, api_key="stand-in", max_retries=0)
    agent = create_react_agent(model, ToolNode(tools, handle_tool_errors=True))
    try:
        state = await agent.ainvoke({"messages": [("user", prompt)]})
    except Exception as error:
        return {"crashed": failure(error)}
    tool_messages = [message for message in state["messages"] if message.type == "tool"]
    return {"tool": text(tool_messages[-1].content), "final": text(state["messages"][-1].content)}


def prompt(name: str, arguments: dict) -> str:
    return f"CALL {name} {json.dumps(arguments)}"


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

    read_only = await connection(url, given["read"]).get_tools()
    limited = await connection(url, given["limited"]).get_tools()
    model = given["model"]
    found["agent"] = {
        "valid": await run_agent(tools, prompt("booking_calculate_price", given["price"]), model),
        "error": await run_agent(tools, prompt("booking_calculate_price", given["bad_price"]), model),
        "forbidden": await run_agent(read_only, prompt("booking_create_checkout", given["checkout"]), model),
        "limited": await run_agent(limited, prompt("booking_calculate_price", given["price"]), model),
    }
    return found


report(asyncio.run(main(plan())))
