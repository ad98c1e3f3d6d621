"""The one checkpoint loop (issue "One way to do each thing": "The checkpoint loop, twice"): the CLI
and the Probe page score a sentence over checkpoints through `probe_checkpoints`, which passes the
word correction and the reduction and frees each checkpoint's model before the next one loads."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from pfcore.cli import main
from pfcore.models.spec import ModelSpec
from pfcore.names import Reduction
from pfcore.probe import FRAME_EXAMPLE, analyze_sentence
from pfcore.probe.checkpoints import CheckpointProbe, probe_checkpoints
from pfcore.runs.checkpoints import checkpoints
from pfcore.scoring.models import MODELS
from pfcore.store.results import load_results
from tests.app_helpers import frame_with, no_errors, page

FOCUS2 = ["focus2_construction_bits", "focus2_or_bits"]


def series(folder: Path, *, corrected: bool = True, reduction: Reduction = Reduction.MEAN) -> pd.DataFrame:
    """The frame sentence over the folder's checkpoints, with the given settings."""
    points = checkpoints(ModelSpec(), None, str(folder))
    return probe_checkpoints(points, analyze_sentence(FRAME_EXAMPLE), series="tiny-series", results=load_results(),
                             corrected=corrected, reduction=reduction).table


def flat(table: pd.DataFrame) -> list[float]:
    """The focus-2 surprisals of a series, row by row."""
    return [float(v) for v in table[FOCUS2].to_numpy().ravel()]


def test_the_loop_passes_the_correction_and_names_the_effect_unit(checkpoint_series: Path, cache_dir: Path) -> None:
    corrected = series(checkpoint_series)
    plain = series(checkpoint_series, corrected=False)
    summed = series(checkpoint_series, reduction=Reduction.SUM)
    assert "effect_bits_per_token" in corrected.columns and "effect" not in corrected.columns
    assert "effect_bits" in summed.columns
    assert (corrected[FOCUS2].to_numpy() != plain[FOCUS2].to_numpy()).all()  # the correction changes the words
    # the decisions do not depend on the word correction (its log-probabilities are the plain scorer's)
    assert corrected["effect_bits_per_token"].tolist() == pytest.approx(plain["effect_bits_per_token"].tolist(),
                                                                        abs=1e-6)
    assert summed["effect_bits"].tolist() != pytest.approx(corrected["effect_bits_per_token"].tolist(), abs=1e-6)


def test_each_checkpoint_is_freed_before_the_next_loads(checkpoint_series: Path, cache_dir: Path,
                                                        models_in_memory: Callable[[Path], int]) -> None:
    """Not only out of the model cache: out of memory, without a garbage collection (the loop ran a
    full one after each checkpoint, 0.2 s and more, since a scorer's reference cycles held its model)."""
    MODELS.clear()
    held: list[tuple[list[str], int]] = []

    def done(number: int, total: int, scored: CheckpointProbe) -> None:
        held.append(([spec.name for spec in MODELS.holding()], models_in_memory(checkpoint_series)))

    points = checkpoints(ModelSpec(), None, str(checkpoint_series))
    probe_checkpoints(points, analyze_sentence(FRAME_EXAMPLE), series="tiny-series", results=load_results(),
                      done=done)
    assert held == [([], 0)] * 3  # nothing of a scored checkpoint stays loaded, nor in memory


def test_the_cli_and_the_page_give_the_same_uncorrected_series(checkpoint_series: Path, cache_dir: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Before the one loop, the page's checkpoint table ignored the correction toggle."""
    assert main(["probe", FRAME_EXAMPLE, "--checkpoint-dir", str(checkpoint_series), "--no-corrected",
                 "--json"]) == 0
    cli = pd.DataFrame(json.loads(capsys.readouterr().out)["checkpoints"])
    at = page("pages/1_Probe.py", checkpoint_series / "step0")
    at.session_state["probe_corrected"] = False
    at.run()
    at.text_input(key="probe_ckpt_dir").input(str(checkpoint_series)).run()
    at.button(key="probe_ckpt_go").click().run()
    no_errors(at)
    shown = frame_with(at, "focus2_or_bits")
    assert "effect_bits_per_token" in shown.columns
    assert flat(shown) == pytest.approx(flat(cli), abs=1e-6)
    assert flat(shown) != pytest.approx(flat(series(checkpoint_series)), abs=1e-3)  # the corrected words differ
