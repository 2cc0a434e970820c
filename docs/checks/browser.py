"""Load every page of the built site in headless Chromium and fail on any console error.

Usage: python docs/checks/browser.py SITE_DIR [--chromium PATH]

The site is served on 127.0.0.1; Chromium is driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`), so only the standard library is needed. A page fails if it throws an
uncaught exception, logs an error to the console, fails to load a resource or gets an HTTP error
for one, or renders no article text. A deliberately broken canary page is loaded first and must
fail: that proves the check can see errors at all.
"""

from __future__ import annotations

import argparse
import fcntl
import functools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CANARY_PATH = "/__canary__.html"
CANARY_PAGE = b"<title>canary</title><article>text</article><script>no_such()</script>"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]
PAGE_TIMEOUT = 30.0
SETTLE_SECONDS = 0.5


class _Handler(SimpleHTTPRequestHandler):
    """Serves the site, plus the canary page."""

    def do_GET(self) -> None:
        if self.path == CANARY_PATH:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(CANARY_PAGE)))
            self.end_headers()
            self.wfile.write(CANARY_PAGE)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve `site` on a free port of 127.0.0.1; yield the base URL."""
    handler = functools.partial(_Handler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class DevTools:
    """A DevTools protocol connection over Chromium's pipe (fd 3 in, fd 4 out, NUL-separated)."""

    def __init__(self, chromium: str, profile: Path) -> None:
        to_browser_read, self._write = os.pipe()
        self._read, from_browser_write = os.pipe()

        def wire_pipes() -> None:
            # Move both ends above 3 and 4 first, so that neither dup2 overwrites the other.
            high_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            high_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire_pipes,
            close_fds=False,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._read, 65536)
            if not chunk:
                raise ConnectionError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and return its result; events met meanwhile are kept."""
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            command["sessionId"] = session
        os.write(self._write, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + PAGE_TIMEOUT
        while True:
            message = self._receive(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, method: str, session: str) -> None:
        """Wait until an event `method` has arrived for `session`."""
        deadline = time.monotonic() + PAGE_TIMEOUT
        while not any(
            e.get("method") == method and e.get("sessionId") == session for e in self.events
        ):
            self.events.append(self._receive(deadline))

    def close(self) -> None:
        with suppress(ConnectionError, TimeoutError, OSError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read)
        os.close(self._write)


def page_errors(events: list[dict[str, Any]]) -> list[str]:
    """The errors among one page's DevTools events."""
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            description = details.get("exception", {}).get("description", details.get("text"))
            errors.append(f"uncaught exception: {description}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            texts = [str(arg.get("value", arg.get("description"))) for arg in params["args"]]
            errors.append("console error: " + " ".join(texts))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            errors.append(f"log error: {params['entry']['text']} ({params['entry'].get('url')})")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            errors.append(f"resource failed: {params.get('errorText')}")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            response = params["response"]
            errors.append(f"HTTP {response['status']} for {response['url']}")
    return errors


def check_page(tools: DevTools, url: str) -> list[str]:
    """Load `url` in a fresh tab; return its errors (an empty list when it rendered cleanly)."""
    target = tools.call("Target.createTarget", url="about:blank")["targetId"]
    session = tools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        tools.call(f"{domain}.enable", session)
    tools.events.clear()
    tools.call("Page.navigate", session, url=url)
    tools.wait_for("Page.loadEventFired", session)
    time.sleep(SETTLE_SECONDS)
    rendered = tools.call(
        "Runtime.evaluate",
        session,
        expression="(document.querySelector('article') || {innerText: ''}).innerText.length",
        returnByValue=True,
    )
    tools.call("Target.closeTarget", targetId=target)
    errors = page_errors([e for e in tools.events if e.get("sessionId") == session])
    if not rendered.get("result", {}).get("value"):
        errors.append("no article text rendered")
    return errors


def site_pages(site: Path) -> list[str]:
    """URL paths of every page of the site except the 404 page."""
    return sorted(
        "/" + path.relative_to(site).as_posix().removesuffix("index.html")
        for path in site.rglob("*.html")
        if path.name != "404.html"
    )


def run(site: Path, chromium: str) -> int:
    pages = site_pages(site)
    with tempfile.TemporaryDirectory() as profile:
        tools = DevTools(chromium, Path(profile))
        try:
            with serve(site) as base:
                if not check_page(tools, base + CANARY_PATH):
                    print("the canary page's error was not detected", file=sys.stderr)
                    return 1
                failures = {page: check_page(tools, base + page) for page in pages}
        finally:
            tools.close()
    bad = {page: errors for page, errors in failures.items() if errors}
    for page, errors in bad.items():
        for error in errors:
            print(f"{page}: {error}", file=sys.stderr)
    print(f"{len(pages)} pages loaded in Chromium, {len(bad)} with errors")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--chromium", default="chromium")
    args = parser.parse_args(argv)
    return run(args.site.resolve(), args.chromium)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
