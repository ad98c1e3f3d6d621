"""App cold start, in headless Debian chromium, over several fresh servers started as `make app` starts
them (`python -m pfcore.ui.serve`), each on a fresh cache that shares the converted models and what
a first start remembers (the weights' hash and the scorer's checks), but no scores. Seconds from
the server's start to:

- server_up: the server answers its health check;
- first_page: the Home page is usable: its text and links are drawn (while the model loads, the
  page's script stays in a loop that updates the sidebar's status twice a second, and each update
  lets a click through);
- model_ready: the sidebar says the default model is ready (the Home page, still open, shows it);
- probe_chart: after that, a click on Probe in the navigation draws the default sentence's word
  chart: the Probe has scored (nothing was scored before in this cache).

With each, the CPU seconds the server had used by then (its process tree): on a machine shared with
other work, a steadier figure than the wall clock.

Run: .venv/bin/python benchmarks/bench_startup.py [--runs 3] [--json]
The converted default model must already be in cache/models (any earlier load converts it)."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from live_app import CHROMIUM, CHROMIUM_ARGS, ROOT, fresh_cache, serve, tree_cpu

WAIT_MS = 180_000
MILESTONES = ("server_up_s", "first_page_s", "first_page_cpu_s", "model_ready_s", "model_ready_cpu_s",
              "probe_chart_s", "probe_chart_cpu_s")
READY = re.compile(r"\) ready: ")  # the sidebar's "**name** (kind) ready: ..." line


MEMOS = ("weight-hashes.json", "scorer-checks.json")  # what an earlier start leaves in the cache


def remembered(scratch: Path) -> Path:
    """A cache holding what a first start of the default model remembers: build its scorer once."""
    cache = fresh_cache(scratch / "first-start", ROOT / "cache" / "models")
    build = ("from pfcore.models import ModelSpec; from pfcore.scoring.factory import scorer_for; "
             "from pfcore.scoring.methods import ScoringMethod; scorer_for(ModelSpec(), ScoringMethod.CAUSAL)")
    subprocess.run([sys.executable, "-c", build], cwd=ROOT, env={**os.environ, "PFCORE_CACHE": str(cache)},
                   check=True, capture_output=True)
    return cache


def one_start(browser: object, scratch: Path, number: int, memos: Path) -> dict[str, float]:
    """Start a fresh server, open the home page and then the Probe; seconds to each milestone."""
    from playwright.sync_api import expect

    cache = fresh_cache(scratch / f"cache-{number}", ROOT / "cache" / "models")
    for name in MEMOS:
        shutil.copy(memos / name, cache / name)
    with serve(cache, scratch / f"server-{number}.log") as app:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # type: ignore[attr-defined]
        page.goto(app.url)

        found: dict[str, float] = {"server_up_s": round(app.server_up_s, 2)}

        def reached(milestone: str) -> None:
            found[milestone] = round(time.monotonic() - app.started, 2)
            found[milestone.replace("_s", "_cpu_s")] = round(tree_cpu(app.process.pid), 2)

        main, side = page.get_by_test_id("stMainBlockContainer"), page.get_by_test_id("stSidebar")
        expect(main.get_by_role("link").filter(has_text="Probe")).to_be_visible(timeout=WAIT_MS)
        reached("first_page_s")
        expect(side.get_by_text(READY)).to_be_visible(timeout=WAIT_MS)
        reached("model_ready_s")
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Probe").click()
        expect(page.locator(".js-plotly-plot").filter(has_text="word by word")).to_be_visible(timeout=WAIT_MS)
        reached("probe_chart_s")
        page.context.close()
        return found


def main() -> int:
    """Time several cold starts; print each and the median (and range) of each milestone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-startup-") as scratch, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        memos = remembered(Path(scratch))
        runs = [one_start(browser, Path(scratch), n, memos) for n in range(args.runs)]
        browser.close()
    summary = {m: {"median": statistics.median(r[m] for r in runs), "min": min(r[m] for r in runs),
                   "max": max(r[m] for r in runs)} for m in MILESTONES}
    if args.json:
        print(json.dumps({"runs": runs, "summary": summary}, indent=2))
        return 0
    for number, run in enumerate(runs, start=1):
        print(f"start {number}: " + ", ".join(f"{m[:-2].replace('_', ' ')} {run[m]} s" for m in MILESTONES))
    for m in MILESTONES:
        s = summary[m]
        print(f"{m[:-2].replace('_', ' ')}: median {s['median']} s ({s['min']}-{s['max']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
