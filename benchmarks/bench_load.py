"""Many students at once: N concurrent sessions of the Probe page against one fresh server (started
as `make app` starts it, on a fresh cache that shares only the converted models). The sessions open
the Probe and settle, one after another; then, together, each types its own sentence (a different
one of the shipped semantic contexts, none scored before) and presses Enter. Two real clients:

- browser (the default): each session a headless chromium context driven by Playwright, which
  types into the box and reads the drawn chart;
- websocket: each session speaks Streamlit's own protocol on /_stcore/stream, as the browser's page
  does (BackMsg rerun requests with the text box's value; ForwardMsg elements back), with no browser:
  on a machine of 2 cores, 20 browsers take most of the CPU the server would use.

Reported per N: seconds from Enter to that session's word chart (median, p95, max: for the browser,
drawn; for the websocket, received) and to the end of its page's run (the server's message that the
run is over, as the session received it: a page closed sooner would stop its run, and the server's
work with it), errors, the server's memory (RSS of its process tree: before, and the peak while the
sessions ran) and the CPU seconds it used for them (the browsers' are not counted: a closed
context's processes take their CPU time with them, so a difference of tree sums undercounts them).
A session that received another session's sentence in any message of its run (or, in a browser,
shows it) has a leak.

Run: .venv/bin/python benchmarks/bench_load.py [--sessions 1 5 10 20] [--client websocket] [--json]
The converted default model must already be in cache/models (any earlier load converts it)."""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass
from pathlib import Path

from live_app import CHROMIUM, CHROMIUM_ARGS, ROOT, LiveApp, fresh_cache, serve, tree_cpu, tree_rss

WAIT_MS = 600_000
SEED = 20261201


@dataclass
class Session:
    """What one session saw: its timings (None when it failed), its error, a leak if any."""

    sentence: str
    chart_s: float | None = None
    done_s: float | None = None
    error: str = ""
    leak: str = ""


def sentences(count: int) -> list[str]:
    """Sentences in the paper's frame (shipped semantic contexts with a construction), no two with
    the same frame and pronoun, so no session's sentence is a manipulation of another's."""
    from pfcore.items import default_items

    found: dict[tuple[str, str], set[str]] = {}
    for item in default_items("semantic"):
        if item.is_construction and item.frame != "lift rock (small-large)":  # the Probe's own example
            found.setdefault((item.frame, item.pronoun), set()).add(item.context)
    pick = random.Random(SEED)
    return [pick.choice(sorted(found[key])) for key in pick.sample(sorted(found), count)]


async def settle(page: object) -> None:
    """Wait until the page's model is ready, its first chart drawn and its script done."""
    from playwright.async_api import expect

    await expect(page.get_by_test_id("stSidebar").get_by_text(" ready: ")).to_be_visible(timeout=WAIT_MS)  # type: ignore[attr-defined]
    await expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=WAIT_MS)  # type: ignore[attr-defined]
    await expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=WAIT_MS)  # type: ignore[attr-defined]


def spread(text: str) -> re.Pattern[str]:
    """A pattern of the text as a chart title draws it: wrapped into lines, so its words may be
    joined by any space or none (plotly puts each line in a tspan of its own), or, in the figure
    itself, by a line break tag."""
    return re.compile(r"(?:\s|<br>)*".join(re.escape(word) for word in text.split()))


async def one_session(browser: object, url: str, mine: Session, others: list[str], turn: asyncio.Lock,
                      go: asyncio.Event, ready: list[int]) -> None:
    """Open the Probe and settle (one session after another: opening is not what is measured), wait
    for the common start, then submit this session's sentence."""
    from playwright.async_api import expect
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    context = await browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    frames: list[tuple[float, bytes]] = []  # what the page received from the server, when
    try:
        page = await context.new_page()
        page.on("websocket", lambda socket: socket.on(
            "framereceived", lambda data: frames.append((time.monotonic(), data)) if isinstance(data, bytes) else None))
        async with turn:
            await page.goto(f"{url}/Probe", timeout=WAIT_MS)
            await settle(page)
        ready.append(1)
        await go.wait()
        box = page.get_by_role("textbox", name="Your sentence")
        await box.fill(mine.sentence)
        key = "Control+Enter" if await box.evaluate("e => e.tagName") == "TEXTAREA" else "Enter"
        started = time.monotonic()
        await box.press(key)
        chart = page.locator(".js-plotly-plot").filter(has_text=spread("word by word")).filter(
            has_text=spread(mine.sentence))
        await expect(chart).to_be_visible(timeout=WAIT_MS)
        mine.chart_s = time.monotonic() - started
        messages: list[object] = []
        while not any(run_ended(m) for m in messages):  # the page's run ends: a closed page would stop it
            await asyncio.sleep(0.05)
            if time.monotonic() - started > WAIT_MS / 1000:
                raise TimeoutError("the run did not end")
            messages = [ForwardMsg.FromString(data) for at, data in list(frames) if at >= started]
        mine.done_s = max(at for at, _ in frames) - started
        shown = await page.get_by_test_id("stMain").inner_text()
        mine.leak = leaked(messages, others) or next((s for s in others if spread(s).search(shown)), "")
        mine.error = trouble(messages)
    except Exception as exc:  # noqa: BLE001 - a failed session is counted and reported, not fatal
        mine.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        alerts = page.get_by_test_id("stAlert").or_(page.get_by_test_id("stException"))
        if await alerts.count():
            mine.error += f" (the page says: {(await alerts.first.inner_text())[:300]})"
    finally:
        await context.close()


class StreamSession:
    """One session of the app over Streamlit's websocket protocol, as the browser's page speaks it:
    rerun requests out (the page, the widgets' values), the run's messages in."""

    def __init__(self, socket: object) -> None:
        self.socket, self.page_hash = socket, ""

    async def rerun(self, page_name: str = "", widgets: dict[str, str] | None = None) -> None:
        """Ask for a run of a page (by name the first time, then the page this session is on), with
        text widgets' values by id."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        message = BackMsg()
        state = message.rerun_script
        state.page_name, state.page_script_hash = page_name, self.page_hash
        state.widget_states.widgets.extend(WidgetState(id=i, string_value=v) for i, v in (widgets or {}).items())
        await self.socket.send(message.SerializeToString())  # type: ignore[attr-defined]

    async def run(self, seen: Callable[[object], None] | None = None) -> list[object]:
        """The messages of one complete run (runs cut short by a rerun go on to the next), each shown
        to `seen` as it comes."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        messages = []
        while True:
            message = ForwardMsg.FromString(await self.socket.recv())  # type: ignore[attr-defined]
            if message.WhichOneof("type") == "navigation" and message.navigation.page_script_hash:
                self.page_hash = message.navigation.page_script_hash
            messages.append(message)
            if seen:
                seen(message)
            if run_ended(message):
                return messages


def run_ended(message: object) -> bool:
    """Whether the message ends a whole run (not one cut short by a rerun)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    return bool(getattr(message, "WhichOneof", lambda _: "")("type") == "script_finished" and message.script_finished
                in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR))  # type: ignore[attr-defined]


def leaked(messages: list[object], others: list[str]) -> str:
    """Another session's sentence found anywhere in the messages a session received, else ''."""
    received = b" ".join(m.SerializeToString() for m in messages).decode("utf-8", "replace")  # type: ignore[attr-defined]
    return next((s for s in others if spread(s).search(received)), "")


def element_of(message: object) -> tuple[str, object] | None:
    """A run message's new element (its kind and body), or None for any other message."""
    delta = getattr(message, "delta", None)
    if getattr(message, "WhichOneof", lambda _: "")("type") != "delta" or delta.WhichOneof("type") != "new_element":
        return None
    element = delta.new_element
    kind = element.WhichOneof("type")
    return kind, getattr(element, kind)


def word_chart_of(message: object, sentence: str) -> bool:
    """Whether the message draws the word chart of this sentence (its title names both)."""
    found = element_of(message)
    if found is None or found[0] != "plotly_chart":
        return False
    title = json.loads(found[1].spec).get("layout", {}).get("title", {})  # type: ignore[attr-defined]
    text = title.get("text", "") if isinstance(title, dict) else str(title)
    return bool(spread("word by word").search(text) and spread(sentence).search(text))


def text_box(messages: list[object], label: str) -> str:
    """The id of the text box with this label, from a run's messages."""
    for message in messages:
        found = element_of(message)
        if found and found[0] == "text_input" and found[1].label == label:  # type: ignore[attr-defined]
            return str(found[1].id)  # type: ignore[attr-defined]
    raise LookupError(f"no text box labelled {label!r} on the page")


def trouble(messages: list[object]) -> str:
    """The first exception or error shown in a run, else ''."""
    from streamlit.proto.Alert_pb2 import Alert

    for message in messages:
        found = element_of(message)
        if found and found[0] == "exception":
            return f"exception: {found[1].message[:200]}"  # type: ignore[attr-defined]
        if found and found[0] == "alert" and found[1].format == Alert.ERROR:  # type: ignore[attr-defined]
            return f"error: {found[1].body[:200]}"  # type: ignore[attr-defined]
    return ""


async def one_stream_session(url: str, mine: Session, others: list[str], turn: asyncio.Lock,
                             go: asyncio.Event, ready: list[int]) -> None:
    """One session over the websocket: open the Probe and settle in turn, wait for the common start,
    then send this session's sentence as the text box's new value (what Enter sends)."""
    import websockets

    try:
        async with websockets.connect(f"ws{url[4:]}/_stcore/stream", subprotocols=["streamlit"], max_size=None,
                                      open_timeout=WAIT_MS / 1000, ping_interval=None) as socket:
            session = StreamSession(socket)
            async with turn:
                await session.rerun(page_name="Probe")
                box = text_box(await session.run(), "Your sentence")
            ready.append(1)
            await go.wait()
            started = time.monotonic()

            def seen(message: object) -> None:
                if mine.chart_s is None and word_chart_of(message, mine.sentence):
                    mine.chart_s = time.monotonic() - started

            await session.rerun(widgets={box: mine.sentence})
            messages = await asyncio.wait_for(session.run(seen), WAIT_MS / 1000)
            mine.done_s = time.monotonic() - started
            mine.leak, mine.error = leaked(messages, others), trouble(messages)
    except Exception as exc:  # noqa: BLE001 - a failed session is counted and reported, not fatal
        mine.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


class PeakMemory:
    """Samples the RSS of the server's process tree in a thread; `peak` is the largest seen."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, tree_rss(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, tree_rss(self.pid))

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-95 * len(ordered) // 100) - 1))]


async def one_round(browser: object | None, app: LiveApp, texts: list[str]) -> dict[str, object]:
    """N sessions at once (in browser contexts, or over the websocket without a browser); their
    figures and the server's memory."""
    sessions = [Session(t) for t in texts]
    turn, go, ready = asyncio.Lock(), asyncio.Event(), []
    tasks = [asyncio.create_task(
        one_session(browser, app.url, s, [t for t in texts if t != s.sentence], turn, go, ready) if browser else
        one_stream_session(app.url, s, [t for t in texts if t != s.sentence], turn, go, ready)) for s in sessions]
    while len(ready) < len(sessions) and not all(t.done() for t in tasks):
        await asyncio.sleep(0.1)
    before, cpu = tree_rss(app.process.pid), tree_cpu(app.process.pid)
    with PeakMemory(app.process.pid) as memory:
        go.set()
        await asyncio.gather(*tasks)
    cpu = tree_cpu(app.process.pid) - cpu
    charts = [s.chart_s for s in sessions if s.chart_s is not None]
    dones = [s.done_s for s in sessions if s.done_s is not None]
    return {"sessions": len(sessions), "chart_median_s": round(statistics.median(charts), 2) if charts else None,
            "chart_p95_s": round(p95(charts), 2) if charts else None,
            "chart_max_s": round(max(charts), 2) if charts else None,
            "done_median_s": round(statistics.median(dones), 2) if dones else None,
            "done_p95_s": round(p95(dones), 2) if dones else None,
            "errors": sum(1 for s in sessions if s.error or s.chart_s is None),
            "leaks": sum(1 for s in sessions if s.leak),
            "rss_before_mb": round(before / 2**20), "rss_peak_mb": round(memory.peak / 2**20),
            "server_cpu_s": round(cpu, 1),
            "details": [asdict(s) for s in sessions]}


async def chromium(stack: AsyncExitStack) -> object:
    """Debian's chromium under Playwright, closed with the stack."""
    from playwright.async_api import async_playwright

    playwright = await stack.enter_async_context(async_playwright())
    browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    stack.push_async_callback(browser.close)
    return browser


async def run(counts: list[int], scratch: Path, client: str) -> list[dict[str, object]]:
    """Every round on one fresh server, each with sentences of its own (a browser only for the
    browser client: the websocket client starts none)."""
    texts = sentences(sum(counts))
    cache = fresh_cache(scratch / "cache", ROOT / "cache" / "models")
    results = []
    with serve(cache, scratch / "server.log") as app:
        async with AsyncExitStack() as stack:
            browser = await chromium(stack) if client == "browser" else None
            for n in counts:
                results.append(await one_round(browser, app, texts[:n]))
                texts = texts[n:]
    return results


def main() -> int:
    """Run the rounds and print one line per N (and every session with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 10, 20])
    parser.add_argument("--client", choices=("browser", "websocket"), default="browser",
                        help="each session a chromium context, or Streamlit's websocket protocol without a browser")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-load-") as scratch:
        results = asyncio.run(run(args.sessions, Path(scratch), args.client))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print("N  chart median  p95   max   done median  p95   errors leaks  RSS before  peak   CPU server")
    for r in results:
        print(f"{r['sessions']:<3}{r['chart_median_s']!s:>10} {r['chart_p95_s']!s:>6}{r['chart_max_s']!s:>6}"
              f"{r['done_median_s']!s:>12}{r['done_p95_s']!s:>6}{r['errors']:>7}{r['leaks']:>6}"
              f"{r['rss_before_mb']:>9} MB{r['rss_peak_mb']:>6} MB{r['server_cpu_s']:>8} s")
        for s in r["details"]:  # type: ignore[attr-defined]
            if s["error"] or s["leak"]:
                print(f"   {s['sentence']!r}: {s['error'] or 'saw ' + repr(s['leak'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
