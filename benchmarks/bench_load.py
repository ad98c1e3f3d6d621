"""Many students at once: N concurrent sessions of the Probe page against one fresh server (started
as `make app` starts it, on a fresh cache that shares only the converted models), each a headless
chromium context driven by Playwright. The sessions open the Probe and settle, one after another;
then, together, each types its own sentence (a different one of the shipped semantic contexts, none
scored before) and presses Enter (Ctrl+Enter in a text area). Reported per N: seconds from Enter to
that session's word chart (median, p95, max) and to its page being done, errors, the server's
memory (RSS of its process tree: before, and the peak while the sessions ran) and the CPU seconds
it used for them (the browsers' are not counted: a closed context's processes take their CPU time
with them, so a difference of tree sums undercounts them). A session
whose chart or page shows another session's sentence is a leak.

Run: .venv/bin/python benchmarks/bench_load.py [--sessions 1 5 10 20] [--json]
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
    joined by any space or none (plotly puts each line in a tspan of its own)."""
    return re.compile(r"\s*".join(re.escape(word) for word in text.split()))


async def one_session(browser: object, url: str, mine: Session, others: list[str], turn: asyncio.Lock,
                      go: asyncio.Event, ready: list[int]) -> None:
    """Open the Probe and settle (one session after another: opening is not what is measured), wait
    for the common start, then submit this session's sentence."""
    from playwright.async_api import expect

    context = await browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    try:
        page = await context.new_page()
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
        await expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=WAIT_MS)
        mine.done_s = time.monotonic() - started
        shown = await page.get_by_test_id("stMain").inner_text()
        charts = " ".join(await page.locator(".js-plotly-plot").all_text_contents())
        mine.leak = next((s for s in others if s in shown or s in charts), "")
        for what, found in (("exception", page.get_by_test_id("stException")),
                            ("error", page.get_by_test_id("stAlertContentError"))):
            if not mine.error and await found.count():
                mine.error = f"{what}: {(await found.first.inner_text())[:200]}"
    except Exception as exc:  # noqa: BLE001 - a failed session is counted and reported, not fatal
        mine.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        alerts = page.get_by_test_id("stAlert").or_(page.get_by_test_id("stException"))
        if await alerts.count():
            mine.error += f" (the page says: {(await alerts.first.inner_text())[:300]})"
    finally:
        await context.close()


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


async def one_round(browser: object, app: LiveApp, texts: list[str]) -> dict[str, object]:
    """N sessions at once; their figures and the server's memory."""
    sessions = [Session(t) for t in texts]
    turn, go, ready = asyncio.Lock(), asyncio.Event(), []
    tasks = [asyncio.create_task(one_session(browser, app.url, s, [t for t in texts if t != s.sentence], turn, go,
                                             ready)) for s in sessions]
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


async def run(counts: list[int], scratch: Path) -> list[dict[str, object]]:
    """Every round on one fresh server, each with sentences of its own."""
    from playwright.async_api import async_playwright

    texts = sentences(sum(counts))
    cache = fresh_cache(scratch / "cache", ROOT / "cache" / "models")
    results = []
    with serve(cache, scratch / "server.log") as app:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            for n in counts:
                results.append(await one_round(browser, app, texts[:n]))
                texts = texts[n:]
            await browser.close()
    return results


def main() -> int:
    """Run the rounds and print one line per N (and every session with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 10, 20])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-load-") as scratch:
        results = asyncio.run(run(args.sessions, Path(scratch)))
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
