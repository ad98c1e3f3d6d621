"""Timing the two sides of a benchmark so that one run can be trusted: the sides take turns in one
process, round after round, each pair of rounds in mirrored order (A B, B A, A B, ...), so a drift
in the machine's speed weighs on both alike. The report gives each side's median and the median of
the per-round ratios (each from two timings next to each other) with its range, min to max.
Used by bench_scoring.py, bench_words.py and bench_sweep.py."""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

MIN_ROUNDS = 3  # a median and a range need at least three


def rounds_option(parser: argparse.ArgumentParser, default: int = MIN_ROUNDS) -> None:
    """Add --rounds (at least 3) to a benchmark's options."""
    def at_least(text: str) -> int:
        value = int(text)
        if value < MIN_ROUNDS:
            raise argparse.ArgumentTypeError(f"at least {MIN_ROUNDS} rounds, for a median and a range")
        return value

    parser.add_argument("--rounds", type=at_least, default=default, metavar="N",
                        help=f"rounds, each timing both sides once, in turns (at least {MIN_ROUNDS}; "
                        f"default {default})")


@dataclass(frozen=True)
class Rounds:
    """Seconds of each side in each round (a side's list is in round order), and what each side's
    first call returned (to check the sides agree)."""

    seconds: dict[str, list[float]]
    first: dict[str, object]

    def median(self, side: str) -> float:
        """The side's median seconds."""
        return statistics.median(self.seconds[side])

    def rates(self, side: str, work: float) -> list[float]:
        """The side's rate in each round: `work` (items, sentences) per second."""
        return [work / s for s in self.seconds[side]]

    def ratios(self, top: str, bottom: str) -> list[float]:
        """Per round, the seconds of `top` over those of `bottom`."""
        return [a / b for a, b in zip(self.seconds[top], self.seconds[bottom], strict=True)]

    def ratio(self, top: str, bottom: str) -> dict[str, object]:
        """The median per-round ratio with its range, and the ratios themselves (JSON fields)."""
        found = self.ratios(top, bottom)
        return {"ratio": statistics.median(found), "ratio_min": min(found), "ratio_max": max(found),
                "ratios": found, "rounds": len(found)}


def order(sides: list[str], rounds: int) -> list[list[str]]:
    """The sides' order in each round: as given, then mirrored, and so on."""
    return [sides if r % 2 == 0 else sides[::-1] for r in range(rounds)]


def alternate(sides: dict[str, Callable[[], object]], rounds: int, *, warm_up: bool = False) -> Rounds:
    """Call each side once per round in `order`, timing each call with a monotonic clock; with
    `warm_up`, call each once untimed first, so one-time costs (the first forward passes, lazy
    set-up) weigh on neither side's rounds."""
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    first: dict[str, object] = {name: run() for name, run in sides.items()} if warm_up else {}
    for names in order(list(sides), rounds):
        for name in names:
            start = time.perf_counter()
            result = sides[name]()
            seconds[name].append(time.perf_counter() - start)
            first.setdefault(name, result)
    return Rounds(seconds, first)


def ratio_line(label: str, fields: dict[str, object]) -> str:
    """'label: median 3.10 (2.95-3.40) over 3 rounds' for the printed table."""
    return (f"{label}: median {fields['ratio']:.2f} ({fields['ratio_min']:.2f}-{fields['ratio_max']:.2f}) "
            f"over {fields['rounds']} rounds")
