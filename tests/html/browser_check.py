#!/usr/bin/env python3
"""Opens HTML pages in headless Chromium and checks them the way a reader's browser sees them.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on
fd 3, events and replies on fd 4, NUL-terminated JSON), so no port is opened and no package
beyond Debian's chromium is needed.

  browser_check.py PAGE [--text T]... [--selector CSS]... [--min-svg N] [--links-exist]
                        [--sort-table] [--screenshot PNG [--first-screen]] [--pdf PDF]

Checks, each reported on stderr: the page loads; no console error, uncaught exception or
browser log error; no request other than the page itself (the page must be self-contained);
every --text is in the DOM; every --selector matches an element; at least --min-svg inline
<svg> elements with drawn shapes; with --links-exist every relative link points at a file that
exists; with --sort-table clicking the first sortable column header of each table reorders its
rows. Exit 0 when all pass, 1 when one fails, 77 when chromium is not installed.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

SKIP = 77


class DevTools:
    """One Chromium process and its DevTools pipe."""

    def __init__(self, chromium, profile_dir):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds():  # the browser reads commands on fd 3 and writes on fd 4
            read_end, write_end = os.dup(to_browser_r), os.dup(from_browser_w)  # off 3 and 4
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--mute-audio",
             f"--user-data-dir={profile_dir}", "about:blank"],
            preexec_fn=child_fds, pass_fds=(3, 4),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []  # every event received, in order: (session, method, params)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:  # the browser may be gone already
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)

    def _read_message(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"chromium closed its DevTools pipe: {err[-2000:]}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method, params=None, session=None):
        """Sends one command and returns its result; events met meanwhile are kept."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append((reply.get("sessionId"), reply["method"], reply.get("params", {})))

    def wait_for(self, method, session):
        for i, (s, m, _) in enumerate(self.events):
            if s == session and m == method:
                return self.events.pop(i)
        while True:
            reply = self._read_message()
            if "method" not in reply:
                continue
            event = (reply.get("sessionId"), reply["method"], reply.get("params", {}))
            if event[0] == session and event[1] == method:
                return event
            self.events.append(event)


def evaluate(dt, session, expression):
    result = dt.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                     session)
    if "exceptionDetails" in result:
        raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
    return result["result"].get("value")


# Clicks the first header of each sortable table twice and reports whether the first column's
# order changed each time (ascending then descending gives two different orders).
SORT_PROBE = """(() => {
  const tables = [...document.querySelectorAll('table[data-sortable]')];
  return tables.map(t => {
    const header = t.querySelector('th[data-sort]');
    const column = [...header.parentNode.children].indexOf(header);
    const order = () => [...t.tBodies[0].rows].map(r => r.cells[column].textContent).join('|');
    const before = order();
    const button = header.querySelector('button') || header;
    button.click(); const once = order();
    button.click(); const twice = order();
    return {rows: t.tBodies[0].rows.length, changed: once !== twice,
            first: before, once: once, twice: twice};
  });
})()"""


def check_page(dt, page, args):
    failures = []
    url = page.resolve().as_uri()
    target = dt.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = dt.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        dt.send(f"{domain}.enable", {}, session)
    dt.send("Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session)
    dt.send("Page.navigate", {"url": url}, session)
    dt.wait_for("Page.loadEventFired", session)
    evaluate(dt, session, "new Promise(r => setTimeout(r, 200))")  # late errors, if any

    if args.sort_table:
        for table in evaluate(dt, session, SORT_PROBE) or []:
            if table["rows"] > 1 and not table["changed"]:
                failures.append(f"clicking a sortable header did not reorder its table: {table}")
        if not evaluate(dt, session, "document.querySelectorAll('table[data-sortable]').length"):
            failures.append("no sortable table (table[data-sortable]) on the page")

    for session_id, method, params in dt.events:
        if session_id != session:
            continue
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            failures.append(f"console error: {text}")
        elif method == "Runtime.exceptionThrown":
            failures.append(f"uncaught exception: {params['exceptionDetails'].get('text')}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            failures.append(f"browser error: {params['entry']['text']}")
        elif method == "Network.requestWillBeSent" and params["request"]["url"] != url:
            failures.append(f"network request: {params['request']['url']}")

    dom_text = evaluate(dt, session, "document.documentElement.textContent")
    for text in args.text or []:
        if text not in dom_text:
            failures.append(f"text not in the DOM: {text!r}")
    for selector in args.selector or []:
        if not evaluate(dt, session, f"document.querySelectorAll({json.dumps(selector)}).length"):
            failures.append(f"nothing matches {selector}")
    svg_count = evaluate(dt, session, "[...document.querySelectorAll('svg')].filter(s => "
                         "s.querySelector('rect,path,line,circle,polyline')).length")
    if svg_count < args.min_svg:
        failures.append(f"{svg_count} drawn <svg> charts, expected at least {args.min_svg}")

    if args.links_exist:
        hrefs = evaluate(dt, session, "[...document.querySelectorAll('a[href]')]"
                         ".map(a => a.getAttribute('href'))")
        for href in hrefs:
            parsed = urllib.parse.urlparse(href)
            if parsed.scheme or href.startswith("#"):
                if parsed.scheme not in ("", "file"):
                    failures.append(f"link leaves the page set: {href}")
                continue
            target_file = page.parent / urllib.parse.unquote(parsed.path)
            if not target_file.is_file():
                failures.append(f"link to a missing file: {href}")

    if args.screenshot:
        shot = dt.send("Page.captureScreenshot",
                       {"format": "png", "captureBeyondViewport": not args.first_screen}, session)
        Path(args.screenshot).write_bytes(base64.b64decode(shot["data"]))
    if args.pdf:
        pdf = dt.send("Page.printToPDF", {"printBackground": False}, session)
        Path(args.pdf).write_bytes(base64.b64decode(pdf["data"]))
    dt.send("Target.closeTarget", {"targetId": target})
    return failures, svg_count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--text", action="append", help="text the DOM must hold (repeatable)")
    parser.add_argument("--selector", action="append",
                        help="a CSS selector that must match an element (repeatable)")
    parser.add_argument("--min-svg", type=int, default=0)
    parser.add_argument("--links-exist", action="store_true")
    parser.add_argument("--sort-table", action="store_true")
    parser.add_argument("--screenshot")
    parser.add_argument("--first-screen", action="store_true",
                        help="the screenshot shows the first 1280x900 only, not the whole page")
    parser.add_argument("--pdf")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    args = parser.parse_args()

    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"browser_check: {args.chromium} is not installed (scripts/bootstrap installs it); "
              "skipped", file=sys.stderr)
        return SKIP
    if not args.page.is_file():
        print(f"browser_check: no such page {args.page}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="helix-chromium-") as profile:
        dt = DevTools(chromium, profile)
        try:
            failures, svg_count = check_page(dt, args.page, args)
        finally:
            dt.close()
    for failure in failures:
        print(f"browser_check: {args.page.name}: {failure}", file=sys.stderr)
    print(f"browser_check: {args.page.name}: {len(failures)} problems, {svg_count} charts, "
          f"{len(args.text or [])} texts checked", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
