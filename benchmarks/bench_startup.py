"""App cold start: seconds from starting the server as `make app` does (`python -m pfcore.ui.serve`)
to the home page showing the default model "ready" in the sidebar, in headless Debian chromium, over
several fresh server processes.

Run: .venv/bin/python benchmarks/bench_startup.py [--runs 3] [--json]
The converted default model must already be in cache/models (any earlier load converts it)."""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_S = 180


def _free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str) -> None:
    """Block until the server answers its health check."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError("streamlit did not start")


def one_start(browser: object) -> dict[str, float]:
    """Start a fresh server, open the home page, wait for 'ready'; seconds to each milestone."""
    from playwright.sync_api import expect

    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "pfcore.ui.serve", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port),
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url)
        healthy = time.monotonic() - started
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # type: ignore[attr-defined]
        page.goto(url)
        expect(page.get_by_test_id("stSidebar").get_by_text("ready")).to_be_visible(timeout=TIMEOUT_S * 1000)
        ready = time.monotonic() - started
        page.context.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"server_up_s": round(healthy, 2), "ready_s": round(ready, 2)}


def main() -> int:
    """Time several cold starts and print each and the median."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        runs = [one_start(browser) for _ in range(args.runs)]
        browser.close()
    result = {"runs": runs, "median_ready_s": statistics.median(r["ready_s"] for r in runs)}
    print(json.dumps(result, indent=2) if args.json else
          "\n".join(f"start {i + 1}: server up {r['server_up_s']} s, ready {r['ready_s']} s"
                    for i, r in enumerate(runs)) + f"\nmedian to ready: {result['median_ready_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
