"""What every framework script shares (standard library only: the scripts run in two venvs): the plan it
reads from standard input, the report it prints, and an exception's readable text; the steps that scripts
which differ only in their framework's calls take alike (the round trip, the 401, the agent runs); and the
agent run of docs/agents/clients.md, its example run as written."""

import ast
import json
import re
import sys
from pathlib import Path

DOC_ADDRESS = "https://chauffeur.example.com/api/mcp?toolNames=underscore"
DOC_TOKEN = "cbt_your_token"


def plan() -> dict:
    return json.loads(sys.stdin.read())


MARK = "REPORT "  # some frameworks log to standard output too: the report is the line after this mark


def report(found: dict) -> None:
    print(MARK + json.dumps(found, default=str), flush=True)


def failure(error: BaseException) -> str:
    """The text a caller reads from an error: its type and message, and those of what it wraps."""
    parts: list[str] = []
    pending, seen = [error], set()
    while pending:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        parts.append(f"{type(current).__name__}: {current}")
        pending += [*getattr(current, "exceptions", ()), current.__cause__, current.__context__]
    return " | ".join(parts)


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def prompt(name: str, arguments: dict) -> str:
    """The message that has the stand-in model (../model.py) call a tool."""
    return f"CALL {name} {json.dumps(arguments)}"


async def round_trip(call, checkout: dict) -> dict:
    """checkout → get_booking → cancel_booking; `call(name, arguments)` answers a tool's structured result."""
    started = await call("booking_create_checkout", checkout)
    reference = {"reference": started["reference"]}
    read = await call("booking_get_booking", reference)
    cancelled = await call("booking_cancel_booking", reference)
    return {"checkout": started, "get": read, "cancel": cancelled}


async def unauthorized(connect, token: str) -> str:
    """What listing the tools with a bad token raised; `connect(token)` is the framework's connection."""
    try:
        async with connect(token) as refused:
            await refused.list_tools()
    except Exception as error:
        return failure(error)
    return "no error"


async def agent_runs(run_agent, given: dict) -> dict:
    """An agent run each for a valid call, a tool error, a refused scope (403) and a spent rate limit (429);
    `run_agent(token, prompt)` runs one."""
    return {
        "valid": await run_agent(given["write"], prompt("booking_calculate_price", given["price"])),
        "error": await run_agent(given["write"], prompt("booking_calculate_price", given["bad_price"])),
        "forbidden": await run_agent(given["read"], prompt("booking_create_checkout", given["checkout"])),
        "limited": await run_agent(given["limited"], prompt("booking_calculate_price", given["price"])),
    }


def documented_example(doc: str, framework: str) -> str:
    """The Python example of a framework's section of docs/agents/clients.md, exactly as written."""
    sections = re.split(r"\n### ", Path(doc).read_text(encoding="utf-8"))
    (section,) = [text for text in sections if f"<!-- framework: {framework} -->" in text]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return code


async def run_example(given: dict, framework: str, token: str, **names) -> dict:
    """The documented example, with the live server's address and `token` for the placeholders and `names`
    (`model`, `prompt`) given as the doc says a reader does: the names it leaves."""
    code = documented_example(given["doc"], framework)
    code = code.replace(DOC_ADDRESS, given["url"]).replace(DOC_TOKEN, token)
    names["__name__"] = f"{framework}_example"
    compiled = compile(code, f"clients.md ({framework})", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    running = eval(compiled, names)  # noqa: S307  (our own docs' example, with top-level await)
    if running is not None:
        await running
    return names


async def run_documented(given: dict, framework: str, token: str, prompt: str, model) -> dict:
    """An agent run of the documented example: the model's final text, which it leaves in `answer`."""
    try:
        names = await run_example(given, framework, token, model=model, prompt=prompt)
    except Exception as error:
        return {"crashed": failure(error)}
    return {"final": names["answer"]}
