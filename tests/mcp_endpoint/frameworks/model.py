"""A stand-in for a model API: an OpenAI-compatible /v1/chat/completions in a thread of the test process,
which the agent frameworks are pointed at (their base URL). It plays a script the prompt carries: a user
message `CALL <tool> <JSON arguments>` is answered with that tool call; once the tool's result is in the
conversation, with a final text quoting it. It records every tool (function) name it was offered, so the
tests can hold them to OpenAI's rule, and every tool result, so they can read what reached the model. Offered
a tool with a strict schema (openai-agents' strict mode), it answers as a strict model must: every property
present, null for those the script leaves out."""

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OPENAI_FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
CALL = re.compile(r"CALL (\S+) (\{.*\})", re.S)
FINAL_PREFIX = "The tool answered: "


@dataclass
class StandInModel:
    base_url: str = ""
    tool_names: list[str] = field(default_factory=list)  # every name offered, in every request
    tool_results: list[str] = field(default_factory=list)  # what each tool call came back as
    strict_calls: list[dict] = field(default_factory=list)  # the arguments of each call to a strict tool
    requests: int = 0

    def bad_names(self) -> list[str]:
        return sorted({name for name in self.tool_names if not OPENAI_FUNCTION_NAME.match(name)})

    def answer(self, body: dict) -> dict:
        self.requests += 1
        self.tool_names += [tool["function"]["name"] for tool in body.get("tools") or []]
        messages = body["messages"]
        last_user = max(i for i, message in enumerate(messages) if message["role"] == "user")
        results = [message for message in messages[last_user:] if message["role"] == "tool"]
        if results:
            text = _text(results[-1])
            self.tool_results.append(text)
            return {"role": "assistant", "content": FINAL_PREFIX + text}
        called = CALL.search(_text(messages[last_user]))
        if not called:
            return {"role": "assistant", "content": "Nothing to do."}
        name, arguments = called.groups()
        offered = {tool["function"]["name"]: tool["function"] for tool in body.get("tools") or []}
        if offered.get(name, {}).get("strict"):
            completed = as_strict(json.loads(arguments), offered[name]["parameters"])
            self.strict_calls.append(completed)
            arguments = json.dumps(completed)
        call = {
            "id": f"call_{self.requests}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}


def as_strict(arguments: dict, schema: dict) -> dict:
    """The arguments a strict model sends: every property of every object, null where none was meant."""
    completed = {}
    for name, declared in schema.get("properties", {}).items():
        completed[name] = _strict_value(arguments.get(name), declared)
    return completed


def _strict_value(value, declared: dict):
    choices = [declared, *declared.get("anyOf", [])]
    objects = [choice for choice in choices if "properties" in choice]
    lists = [choice["items"] for choice in choices if isinstance(choice.get("items"), dict)]
    if objects and isinstance(value, dict):
        return as_strict(value, objects[0])
    if lists and isinstance(value, list):
        return [_strict_value(item, lists[0]) for item in value]
    return value


def _text(message: dict) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # parts: [{"type": "text", "text": …}]
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content


def _completion(message: dict) -> dict:
    reason = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-stand-in",
        "object": "chat.completion",
        "created": 0,
        "model": "stand-in",
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _chunks(message: dict) -> Iterator[dict]:
    """The same answer as server-sent chunks, for a client that asked to stream."""
    base = {"id": "chatcmpl-stand-in", "object": "chat.completion.chunk", "created": 0, "model": "stand-in"}
    delta: dict = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": 0, **call} for call in message["tool_calls"]]
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    reason = "tool_calls" if message.get("tool_calls") else "stop"
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}
    yield {**base, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@contextmanager
def stand_in_model() -> Iterator[StandInModel]:
    model = StandInModel()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            with lock:
                message = model.answer(body)
            if body.get("stream"):
                payload = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in _chunks(message))
                self._send(payload + "data: [DONE]\n\n", "text/event-stream")
            else:
                self._send(json.dumps(_completion(message)), "application/json")

        def _send(self, text: str, content_type: str):
            data = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    model.base_url = f"http://127.0.0.1:{server.server_port}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
