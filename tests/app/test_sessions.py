"""Many sessions, one model: forward passes run one at a time, first come first served, and two
sessions scoring at once each get their own, correct scores."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import torch

from pfcore.errors import InputError
from pfcore.models import ModelSpec
from pfcore.names import ModelKind
from pfcore.scoring.factory import scorer_for
from pfcore.scoring.kinds import kind_of
from pfcore.scoring.models import MODELS
from pfcore.scoring.requests import Request
from pfcore.scoring.serial import FairLock

FIRST = [Request("", "You couldn't lift a tiny rock, let alone a huge one."),
         Request("You couldn't lift a tiny rock, let alone a huge one.", "Lifting a tiny rock is easier.")]
SECOND = [Request("", "We can't sing an ugly song, much less a beautiful one."),
          Request("We can't sing an ugly song, much less a beautiful one.", "Singing a beautiful song is harder.")]
HOLD_S = 1.0  # how long the first session stays inside the model while the second one tries to score


def test_the_lock_is_granted_in_the_order_it_was_asked_for() -> None:
    lock, order = FairLock(), []
    lock.acquire()
    threads = []
    for number in range(6):
        def take(number: int = number) -> None:
            with lock:
                order.append(number)
        threads.append(threading.Thread(target=take))
        threads[-1].start()
        while lock._issued < number + 2:  # this thread has its ticket before the next one starts
            threading.Event().wait(0.001)
    lock.release()
    for thread in threads:
        thread.join(timeout=10)
    assert order == list(range(6))


def test_the_lock_is_reentrant_and_only_its_holder_releases_it() -> None:
    lock = FairLock()
    with lock, lock:
        other = threading.Thread(target=lambda: pytest.raises(RuntimeError, lock.release))
        other.start()
        other.join()
    taken = threading.Event()
    threading.Thread(target=lambda: (lock.acquire(), taken.set(), lock.release())).start()
    assert taken.wait(5)


@contextmanager
def held_inside(model: torch.nn.Module, holder: threading.Event, release: threading.Event,
                overlaps: list[int]) -> Iterator[None]:
    """While active: the first thread to enter the model's first block stays there until `release`
    (it sets `holder` when it is in), and a thread that enters while another is inside is recorded."""
    block = next(m for m in model.modules() if isinstance(m, torch.nn.ModuleList))[0]
    inside: set[int] = set()
    first: list[int] = []

    def enter(_module: torch.nn.Module, _args: tuple) -> None:
        me = threading.get_ident()
        if inside - {me}:
            overlaps.append(me)
        inside.add(me)
        if not first:
            first.append(me)
        if first == [me] and not release.is_set():
            holder.set()
            release.wait(HOLD_S * 5)

    def leave(_module: torch.nn.Module, _args: tuple, _out: object) -> None:
        inside.discard(threading.get_ident())

    handles = [block.register_forward_pre_hook(enter), block.register_forward_hook(leave)]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


@pytest.mark.parametrize("kind", [ModelKind.CAUSAL, ModelKind.MASKED])
def test_two_sessions_scoring_at_once_get_their_own_correct_scores(
        kind: ModelKind, tiny_gpt2: Path, tiny_bert: Path, cache_dir: Path) -> None:
    """The second session asks while the first is inside the model: it waits for it (before, both
    ran in the model at once; the masked scorer's output-layer hook of one then read the other's)."""
    MODELS.clear()
    spec = ModelSpec(name=str(tiny_gpt2 if kind is ModelKind.CAUSAL else tiny_bert), kind=kind.value)
    scorer = scorer_for(spec, kind_of(kind).text_method)
    alone = [scorer.score(FIRST), scorer.score(SECOND)]
    results: dict[str, list] = {}
    holder, release, overlaps = threading.Event(), threading.Event(), []
    model = scorer.loaded.model  # type: ignore[attr-defined]
    with held_inside(model, holder, release, overlaps):
        first = threading.Thread(target=lambda: results.update(first=scorer.score(FIRST)))
        second = threading.Thread(target=lambda: results.update(second=scorer.score(SECOND)))
        first.start()
        assert holder.wait(30)
        second.start()
        second.join(HOLD_S)
        waited = second.is_alive()  # still waiting for the first session's pass
        release.set()
        first.join(30)
        second.join(30)
    assert not overlaps, "two sessions ran inside the model at once"
    assert waited
    for got, expected in zip((results["first"], results["second"]), alone):
        assert [s.token_ids for s in got] == [s.token_ids for s in expected]
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a.logprobs, b.logprobs, rtol=0, atol=1e-6)


def test_the_sessions_share_one_scorer_per_model_and_method(tiny_gpt2: Path, cache_dir: Path) -> None:
    MODELS.clear()
    spec = ModelSpec(name=str(tiny_gpt2))
    method = kind_of(ModelKind.CAUSAL).text_method
    assert scorer_for(spec, method) is scorer_for(spec, method)
    before = scorer_for(spec, kind_of(ModelKind.CAUSAL).text_method)
    MODELS.clear()  # the model is loaded again: its scorer is built again, on the new model
    after = scorer_for(spec, kind_of(ModelKind.CAUSAL).text_method)
    assert after is not before and after.loaded is not before.loaded  # type: ignore[attr-defined]


def sessions_at_once(scorer: object, sessions: dict[str, list[Request]]) -> tuple[dict[str, object], list[int]]:
    """Each session's results (or error) when all ask while the model is busy, and the sizes of
    the scoring calls made."""
    together = scorer._together  # type: ignore[attr-defined]
    calls: list[int] = []
    results: dict[str, object] = {}
    score = together.score  # each session's call, its scoring counted (the scorer hands it in at each call)
    together.score = lambda requests, score_now: score(
        requests, lambda batch: (calls.append(len(batch)), score_now(batch))[1])

    def session(name: str) -> None:
        try:
            results[name] = scorer.score(sessions[name])  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - a failing session's error is what is checked
            results[name] = exc

    try:
        with together._lock:  # the model is busy: the sessions queue behind it
            threads = [threading.Thread(target=session, args=(name,)) for name in sessions]
            for number, thread in enumerate(threads, start=1):
                thread.start()
                while len(together._waiting) < number:
                    threading.Event().wait(0.001)
        for thread in threads:
            thread.join(30)
    finally:
        del together.score
    return results, calls


@pytest.mark.parametrize("kind", [ModelKind.CAUSAL, ModelKind.MASKED])
def test_sessions_waiting_for_the_model_are_scored_together(
        kind: ModelKind, tiny_gpt2: Path, tiny_bert: Path, cache_dir: Path) -> None:
    """Sessions that ask while the model is busy are scored in one call, each getting its own
    results; a request that cannot be scored fails its own session only."""
    MODELS.clear()
    spec = ModelSpec(name=str(tiny_gpt2 if kind is ModelKind.CAUSAL else tiny_bert), kind=kind.value)
    scorer = scorer_for(spec, kind_of(kind).text_method)
    alone = {"first": scorer.score(FIRST), "second": scorer.score(SECOND)}
    results, calls = sessions_at_once(scorer, {"first": FIRST, "second": SECOND})
    assert calls == [len(FIRST) + len(SECOND)]
    for name, expected in alone.items():
        got = results[name]
        assert [s.token_ids for s in got] == [s.token_ids for s in expected]  # type: ignore[attr-defined]
        for a, b in zip(got, expected):  # type: ignore[call-overload]
            np.testing.assert_allclose(a.logprobs, b.logprobs, rtol=0, atol=1e-6)
    results, calls = sessions_at_once(scorer, {"first": FIRST, "bad": [Request("", "")], "second": SECOND})
    assert calls == [len(FIRST) + 1 + len(SECOND), len(FIRST), 1, len(SECOND)]  # together, then each alone
    assert isinstance(results["bad"], InputError)
    assert [s.token_ids for s in results["second"]] == [s.token_ids for s in alone["second"]]  # type: ignore[attr-defined]
