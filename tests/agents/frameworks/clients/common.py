"""What every framework script shares (standard library only: the scripts run in two venvs): the plan it
reads from standard input, the report it prints, and an exception's readable text."""

import json
import sys


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
