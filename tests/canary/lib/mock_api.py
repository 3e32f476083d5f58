#!/usr/bin/env python3
"""A scripted model API on the loopback interface, for running real agent CLIs offline.

It speaks two wire protocols, chosen by the request path:
  POST .../messages      Anthropic Messages API (Claude Code), SSE or plain JSON
  POST .../responses     OpenAI Responses API (Codex CLI, Grok Build), SSE or plain JSON
plus the side endpoints the CLIs call (count_tokens, model lists); anything else gets 200 {}.

The replies come from a script (JSON) of rules, tried in order, the first match wins:
  {"global_rules": [RULE...], "scenarios": {"NAME": {"rules": [RULE...]}}}
  RULE = {"name": "r1",
          "when": {"last_user_text_contains": "[T1]",      # text of the last user message
                   "tool_result_for": ["@read"],           # the newest results answer these
                   "any_text_contains": "...",             # anywhere in the request body
                   "has_tools": true | false | "any"},
          "reply": {"blocks": [{"type": "thinking", "text": "..."},
                               {"type": "text", "text": "..."},
                               {"type": "tool_call", "id": "@read", "name": "Read",
                                "input": {...}}],
                    "usage": {"input": 0, "output": 0, "cache_read": 0, "cache_creation": 0,
                              "reasoning": 0}},
          "fail_first": N, "fail_always": true, "fail_with": {"status": 529, "type": "...",
                                                             "message": "..."},
          "delay_seconds": 0.0}
A rule keyed on the user's text only matches requests that offer tools (has_tools defaults to true),
so side requests that quote the prompt (titles, summaries) fall through to later rules.

Usage in the script is in Helix's convention (input excludes cache reads and writes; output
includes reasoning); each protocol reports it in its own shape. Every reply, its usage and the rule
that produced it are logged, one JSON line per request, so a test can compare what an agent
recorded with what it was sent.  "@name" tool ids become stable protocol-style ids; {{VAR}}
placeholders are filled from --var VAR=VALUE.
"""
import argparse
import hashlib
import json
import os
import string
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
MAX_RULE_USES = 12  # a rule answering more often means the CLI loops: the mock stops it
DEFAULT_USAGE = {"input": 40, "output": 10, "cache_read": 0, "cache_creation": 0, "reasoning": 0}
LOGGED_HEADERS = ("user-agent", "anthropic-version", "anthropic-beta", "x-app", "originator",
                  "x-stainless-retry-count", "version", "session_id", "x-client-request-id")


def stable_b62(seed, length):
    """Deterministic base62 text from a seed: ids that are the same on every run."""
    number = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        out.append(BASE62[digit])
    return "".join(out)


def pieces(text, width):
    """Split text into stream deltas of about `width` characters, on spaces."""
    out, current = [], ""
    for word in text.split(" "):
        part = word if not current else " " + word
        if current and len(current) + len(part) > width:
            out.append(current)
            current = part
        else:
            current += part
    out.append(current)
    return out


def fill_vars(value, variables):
    if isinstance(value, str):
        for key, text in variables.items():
            value = value.replace("{{" + key + "}}", text)
        return value
    if isinstance(value, list):
        return [fill_vars(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: fill_vars(v, variables) for k, v in value.items()}
    return value


class RequestView:
    """What the rules look at, the same for every protocol."""

    def __init__(self, last_user_text, result_ids, has_tools, raw_text):
        self.last_user_text = last_user_text
        self.result_ids = result_ids
        self.has_tools = has_tools
        self.raw_text = raw_text


class Script:
    def __init__(self, path, scenario, variables):
        with open(path, encoding="utf-8") as f:
            script = fill_vars(json.load(f), variables)
        if scenario not in script.get("scenarios", {}):
            sys.exit("mock_api: scenario %r is not in %s" % (scenario, path))
        self.scenario = scenario
        self.rules = script.get("global_rules", []) + script["scenarios"][scenario].get("rules", [])
        self.failures = {}
        self.uses = {}
        self.lock = threading.Lock()

    def match(self, view, tool_id):
        for rule in self.rules:
            if rule_matches(rule.get("when", {}), view, tool_id):
                return rule
        return None

    def overused(self, rule):
        """True once a rule has answered more often than it may: the CLI is looping on it."""
        if not rule:
            return False
        with self.lock:
            self.uses[rule["name"]] = self.uses.get(rule["name"], 0) + 1
            return self.uses[rule["name"]] > int(rule.get("max_uses", MAX_RULE_USES))

    def should_fail(self, rule):
        if not rule or "fail_with" not in rule:
            return False
        with self.lock:
            done = self.failures.get(rule["name"], 0)
            if rule.get("fail_always") or done < int(rule.get("fail_first", 0)):
                self.failures[rule["name"]] = done + 1
                return True
        return False


def rule_matches(when, view, tool_id):
    has_tools = when.get("has_tools", True if "last_user_text_contains" in when else "any")
    if has_tools != "any" and bool(has_tools) != view.has_tools:
        return False
    wanted_text = when.get("last_user_text_contains")
    if wanted_text is not None and wanted_text not in view.last_user_text:
        return False
    if "tool_result_for" in when:
        wanted = when["tool_result_for"]
        wanted = [wanted] if isinstance(wanted, str) else wanted
        if not all(tool_id(w) in view.result_ids for w in wanted):
            return False
    if "any_text_contains" in when and when["any_text_contains"] not in view.raw_text:
        return False
    return True


def reply_usage(rule):
    usage = dict(DEFAULT_USAGE)
    usage.update(((rule or {}).get("reply") or {}).get("usage") or {})
    return usage


def reply_blocks(rule):
    if rule is None:
        return [{"type": "text", "text": "OK."}]
    return rule.get("reply", {}).get("blocks", [])


class Protocol:
    """What both wire protocols share: tool ids written "@name" become stable ids of their style."""
    id_prefix, id_length = "", 0

    def __init__(self, scenario):
        self.scenario = scenario

    def tool_id(self, symbol):
        if isinstance(symbol, str) and symbol.startswith("@"):
            return self.id_prefix + stable_b62(self.scenario + symbol, self.id_length)
        return symbol


# ----------------------------------------------------------------------------- Anthropic Messages
class Messages(Protocol):
    name = "messages"
    id_prefix, id_length = "toolu_01", 22

    @staticmethod
    def _text(content):
        if isinstance(content, str):
            return content
        return "\n".join(b.get("text", "") for b in content or []
                         if isinstance(b, dict) and b.get("type") == "text")

    def view(self, body, _history):
        users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
        last = users[-1].get("content") if users else None
        results = set()
        if isinstance(last, list):
            results = {b.get("tool_use_id") for b in last
                       if isinstance(b, dict) and b.get("type") == "tool_result"}
        return RequestView(self._text(last), results, bool(body.get("tools")),
                           json.dumps(body, ensure_ascii=False))

    def error_body(self, failure, request_id):
        return {"type": "error", "request_id": request_id,
                "error": {"type": failure.get("type", "api_error"),
                          "message": failure.get("message", "Internal server error")}}

    def respond(self, handler, body, blocks, usage, ids):
        model = body.get("model") or "claude-sonnet-4-5"
        content = []
        for block in blocks:
            if block["type"] == "thinking":
                content.append({"type": "thinking", "thinking": block["text"],
                                "signature": "Eq" + stable_b62(block["text"], 80) + "=="})
            elif block["type"] == "text":
                content.append({"type": "text", "text": block["text"]})
            elif block["type"] == "tool_call":
                content.append({"type": "tool_use", "id": self.tool_id(block["id"]),
                                "name": block["name"], "input": block.get("input", {})})
        stop = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
        wire_usage = {"input_tokens": usage["input"],
                      "cache_creation_input_tokens": usage["cache_creation"],
                      "cache_read_input_tokens": usage["cache_read"],
                      "cache_creation": {"ephemeral_5m_input_tokens": usage["cache_creation"],
                                         "ephemeral_1h_input_tokens": 0},
                      "output_tokens": usage["output"], "service_tier": "standard"}
        headers = {"request-id": ids["request_id"]}
        message = {"id": ids["message_id"], "type": "message", "role": "assistant", "model": model,
                   "content": content, "stop_reason": stop, "stop_sequence": None,
                   "usage": wire_usage}
        if not body.get("stream"):
            handler.send_json(200, message, headers)
            return
        sse = handler.start_sse(headers)
        sse("message_start", {"type": "message_start", "message": dict(
            message, content=[], stop_reason=None, usage=dict(wire_usage, output_tokens=1))})
        for i, block in enumerate(content):
            if block["type"] == "text":
                sse("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": {"type": "text", "text": ""}})
                for part in pieces(block["text"], 40):
                    sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": {"type": "text_delta", "text": part}})
            elif block["type"] == "thinking":
                sse("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": {"type": "thinking", "thinking": "",
                                                              "signature": ""}})
                for part in pieces(block["thinking"], 60):
                    delta = {"type": "thinking_delta", "thinking": part}
                    sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": delta})
                sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                            "delta": {"type": "signature_delta",
                                                      "signature": block["signature"]}})
            else:
                sse("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": dict(block, input={})})
                text = json.dumps(block["input"], ensure_ascii=False)
                step = max(1, len(text) // 3 + 1)
                for k in range(0, len(text), step):
                    sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": {"type": "input_json_delta",
                                                          "partial_json": text[k:k + step]}})
            sse("content_block_stop", {"type": "content_block_stop", "index": i})
        sse("message_delta", {"type": "message_delta",
                              "delta": {"stop_reason": stop, "stop_sequence": None},
                              "usage": {k: wire_usage[k] for k in (
                                  "input_tokens", "cache_creation_input_tokens",
                                  "cache_read_input_tokens", "output_tokens")}})
        sse("message_stop", {"type": "message_stop"})
        sse(None, None)


# ----------------------------------------------------------------------------- OpenAI Responses
class Responses(Protocol):
    name = "responses"
    id_prefix, id_length = "call_", 24

    @staticmethod
    def _items(body, history):
        """The whole conversation: a stateful request names its predecessor instead of resending."""
        items = body.get("input")
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": items}]
        previous = history.get(body.get("previous_response_id") or "", [])
        return previous + list(items or [])

    @staticmethod
    def _text(content):
        if isinstance(content, str):
            return content
        return "\n".join(p.get("text") or p.get("encrypted_content") or ""
                         for p in content or [] if isinstance(p, dict))

    def view(self, body, history):
        items = self._items(body, history)
        last_user = ""  # as in Messages: empty once tool results follow the user's message
        for item in items:
            if item.get("role") == "user" and item.get("type", "message") == "message":
                last_user = self._text(item.get("content"))
            elif item.get("type") == "agent_message":  # Codex: a task or answer between agents
                last_user = self._text(item.get("content"))
            elif str(item.get("type", "")).endswith("_output"):
                last_user = ""
        # the newest results: the outputs at the end of the input, back to the first other item
        results = set()
        for item in reversed(items):
            if not str(item.get("type", "")).endswith("_output"):
                break
            results.add(item.get("call_id"))
        return RequestView(last_user, results, bool(self._tools(body, items)),
                           json.dumps(body, ensure_ascii=False))

    @staticmethod
    def _tools(body, items):
        """name -> (type, namespace) of every tool offered: in `tools`, or (Codex 0.16x) in
        `additional_tools` input items, grouped in namespaces."""
        found = {}

        def walk(tools, namespace):
            for tool in tools or []:
                if tool.get("type") == "namespace":
                    walk(tool.get("tools"), tool.get("name"))
                elif tool.get("name"):
                    found[tool["name"]] = (tool.get("type"), namespace)

        walk(body.get("tools"), None)
        for item in items:
            if item.get("type") == "additional_tools":
                walk(item.get("tools"), None)
        return found

    def error_body(self, failure, request_id):
        return {"error": {"message": failure.get("message", "Internal server error"),
                          "type": failure.get("type", "server_error"), "param": None,
                          "code": failure.get("code")}}

    def _items_out(self, body, blocks, ids, history):
        tools = self._tools(body, self._items(body, history))
        out = []
        for n, block in enumerate(blocks):
            item_id = lambda prefix: "%s_%s" % (prefix, stable_b62(ids["response_id"] + str(n), 32))
            if block["type"] == "thinking":
                out.append({"id": item_id("rs"), "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": block["text"]}],
                            "encrypted_content": "gAAAAB" + stable_b62(block["text"], 120)})
            elif block["type"] == "text":
                out.append({"id": item_id("msg"), "type": "message", "status": "completed",
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": block["text"],
                                         "annotations": [], "logprobs": []}]})
            else:
                kind, namespace = tools.get(block["name"], ("function", None))
                if kind == "custom":
                    text = block["input"] if isinstance(block["input"], str) \
                        else json.dumps(block["input"])
                    call = {"id": item_id("ctc"), "type": "custom_tool_call", "input": text}
                else:
                    call = {"id": item_id("fc"), "type": "function_call",
                            "arguments": json.dumps(block.get("input", {}), ensure_ascii=False)}
                call.update(status="completed", call_id=self.tool_id(block["id"]),
                            name=block["name"])
                if namespace and namespace != "functions":
                    call["namespace"] = namespace
                out.append(call)
        return out

    def respond(self, handler, body, blocks, usage, ids):
        output = self._items_out(body, blocks, ids, handler.history())
        prompt = usage["input"] + usage["cache_read"] + usage["cache_creation"]
        wire_usage = {"input_tokens": prompt,
                      "input_tokens_details": {"cached_tokens": usage["cache_read"]},
                      "output_tokens": usage["output"],
                      "output_tokens_details": {"reasoning_tokens": usage["reasoning"]},
                      "total_tokens": prompt + usage["output"]}
        response = {"id": ids["response_id"], "object": "response", "created_at": int(time.time()),
                    "status": "completed", "model": body.get("model") or "gpt-5", "output": output,
                    "usage": wire_usage, "error": None, "incomplete_details": None}
        handler.remember(ids["response_id"], self._items(body, handler.history()) + output)
        headers = {"x-request-id": ids["request_id"]}
        if not body.get("stream"):
            handler.send_json(200, response, headers)
            return
        sse = handler.start_sse(headers)
        seq = iter(range(1 << 30))

        def event(kind, **fields):
            sse(kind, dict({"type": kind, "sequence_number": next(seq)}, **fields))

        pending = dict(response, status="in_progress", output=[], usage=None)
        event("response.created", response=pending)
        event("response.in_progress", response=pending)
        for index, item in enumerate(output):
            self._stream_item(event, index, item)
        event("response.completed", response=response)
        sse(None, None)

    @staticmethod
    def _stream_item(event, index, item):
        kind, item_id = item["type"], item["id"]
        where = {"item_id": item_id, "output_index": index}
        if kind == "reasoning":
            event("response.output_item.added", output_index=index, item=dict(item, summary=[]))
            text = item["summary"][0]["text"]
            part = {"type": "summary_text", "text": ""}
            event("response.reasoning_summary_part.added", summary_index=0, part=part, **where)
            for delta in pieces(text, 60):
                event("response.reasoning_summary_text.delta", summary_index=0, delta=delta,
                      **where)
            event("response.reasoning_summary_text.done", summary_index=0, text=text, **where)
            event("response.reasoning_summary_part.done", summary_index=0,
                  part=dict(part, text=text), **where)
        elif kind == "message":
            text = item["content"][0]["text"]
            event("response.output_item.added", output_index=index,
                  item=dict(item, status="in_progress", content=[]))
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            event("response.content_part.added", content_index=0, part=part, **where)
            for delta in pieces(text, 40):
                event("response.output_text.delta", content_index=0, delta=delta, logprobs=[],
                      **where)
            event("response.output_text.done", content_index=0, text=text, logprobs=[], **where)
            event("response.content_part.done", content_index=0, part=dict(part, text=text),
                  **where)
        elif kind == "function_call":
            event("response.output_item.added", output_index=index,
                  item=dict(item, status="in_progress", arguments=""))
            event("response.function_call_arguments.delta", delta=item["arguments"], **where)
            event("response.function_call_arguments.done", arguments=item["arguments"], **where)
        else:  # custom_tool_call
            event("response.output_item.added", output_index=index,
                  item=dict(item, status="in_progress", input=""))
            event("response.custom_tool_call_input.delta", delta=item["input"], **where)
            event("response.custom_tool_call_input.done", input=item["input"], **where)
        event("response.output_item.done", output_index=index, item=item)


# ----------------------------------------------------------------------------- HTTP
class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, script, log_path, log_bodies, delay):
        super().__init__(address, Handler)
        self.script = script
        self.log_path = log_path
        self.log_bodies = log_bodies
        self.delay = delay
        self.lock = threading.Lock()
        self.counter = 0
        self.conversations = {}  # Responses: response id -> the items of the whole conversation

    def next_number(self):
        with self.lock:
            self.counter += 1
            return self.counter

    def log(self, record):
        with self.lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "helix-canary-mock/1"

    def log_message(self, *_):
        pass

    def history(self):
        return self.server.conversations

    def remember(self, response_id, items):
        with self.server.lock:
            self.server.conversations[response_id] = items

    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self, headers):
        """Starts a chunked event stream: returns send(event, data); send(None, None) ends it."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

        def send(event, data):
            if event is None:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return
            text = json.dumps(data, ensure_ascii=False)
            chunk = ("event: %s\ndata: %s\n\n" % (event, text)).encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
            if self.server.delay:
                time.sleep(self.server.delay)
        return send

    def _headers_logged(self):
        return {k: self.headers[k] for k in LOGGED_HEADERS if self.headers.get(k) is not None}

    def _body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("content-encoding") == "zstd":
            return {"_undecoded": "zstd", "_bytes": len(raw)}
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        path = self.path.split("?")[0].rstrip("/")
        self.server.log({"t": time.time(), "method": "GET", "path": self.path,
                         "headers": self._headers_logged()})
        if path.endswith("/models") and "anthropic-version" in self.headers:
            ids = ("claude-sonnet-4-5", "claude-haiku-4-5")
            self.send_json(200, {"has_more": False, "data": [
                {"id": i, "type": "model", "display_name": i, "created_at": "2025-01-01T00:00:00Z"}
                for i in ids]})
            return
        if path.endswith("/models"):
            # A model list would replace the CLI's built-in catalog (Grok Build takes the models
            # it lists as chat-completions models); without one each CLI keeps its defaults.
            self.send_json(404, {"error": {"message": "no model list here", "type": "not_found"}})
            return
        self.send_json(200, {})

    def do_POST(self):
        body = self._body()
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/messages/count_tokens"):
            self.server.log({"t": time.time(), "method": "POST", "path": self.path,
                             "kind": "count_tokens"})
            self.send_json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
            return
        if path.endswith("/messages"):
            protocol = Messages(self.server.script.scenario)
        elif path.endswith("/responses"):
            protocol = Responses(self.server.script.scenario)
        else:
            self.server.log({"t": time.time(), "method": "POST", "path": self.path, "kind": "other",
                             "headers": self._headers_logged(), "body": body})
            self.send_json(200, {})
            return
        self._answer(protocol, body)

    def _answer(self, protocol, body):
        script = self.server.script
        n = self.server.next_number()
        view = protocol.view(body, self.history())
        rule = script.match(view, protocol.tool_id)
        seed = "%s:%d:%f" % (script.scenario, n, time.time())
        ids = {"message_id": "msg_01" + stable_b62(seed + "m", 22),
               "request_id": "req_011C" + stable_b62(seed + "r", 20),
               "response_id": "resp_" + stable_b62(seed + "p", 40)}
        record = {"t": time.time(), "method": "POST", "path": self.path, "kind": protocol.name,
                  "n": n, "stream": bool(body.get("stream")), "model": body.get("model"),
                  "matched": rule.get("name") if rule else None, "unmatched": rule is None,
                  "headers": self._headers_logged(),
                  "tools": [t.get("name") or t.get("type") for t in body.get("tools") or []]}
        if self.server.log_bodies:
            record["body"] = body
        if rule and rule.get("delay_seconds"):
            time.sleep(float(rule["delay_seconds"]))
        if script.overused(rule):
            record.update(status=400, looping=True)
            self.server.log(record)
            self.send_json(400, protocol.error_body(
                {"type": "invalid_request_error",
                 "message": "mock: rule %s answered too often; the CLI is looping" % rule["name"]},
                ids["request_id"]))
            return
        if script.should_fail(rule):
            failure = rule["fail_with"]
            record.update(status=failure.get("status", 500), injected_error=failure)
            self.server.log(record)
            self.send_json(int(failure.get("status", 500)),
                           protocol.error_body(failure, ids["request_id"]),
                           {"request-id": ids["request_id"], "x-request-id": ids["request_id"],
                            "retry-after": "0"})
            return
        usage = reply_usage(rule)
        blocks = reply_blocks(rule)
        record.update(status=200, usage=usage, ids=ids, blocks=[b["type"] for b in blocks],
                      texts=[b["text"] for b in blocks if b["type"] == "text"],
                      calls=[protocol.tool_id(b["id"]) for b in blocks if b["type"] == "tool_call"])
        self.server.log(record)
        protocol.respond(self, body, blocks, usage, ids)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--script", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--log", required=True, help="JSONL file: one line per request")
    parser.add_argument("--log-bodies", action="store_true", help="also log each request body")
    parser.add_argument("--port-file", required=True, help="written with the port once listening")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--delay", type=float, default=0.002, help="seconds between stream events")
    parser.add_argument("--var", action="append", default=[], help="VAR=VALUE for {{VAR}}")
    args = parser.parse_args()
    if args.host not in ("127.0.0.1", "::1", "localhost"):
        sys.exit("mock_api: refusing to listen on %s: loopback only" % args.host)
    variables = dict(v.split("=", 1) for v in args.var)
    script = Script(args.script, args.scenario, variables)
    server = Server((args.host, 0), script, args.log, args.log_bodies, args.delay)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
