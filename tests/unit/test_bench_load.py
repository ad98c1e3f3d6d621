"""The load benchmark's readings of Streamlit's messages (benchmarks/bench_load.py): which message ends
a run, which draws a session's word chart, which text box is the Probe's, what error a run showed, and
whether a session received another's sentence; on messages built as the server builds them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the benchmarks import as scripts
import bench_load  # noqa: E402

MINE = "They couldn't see a bright lamp, let alone a dim one."
OTHER = "We can't sing an ugly song, much less a beautiful one."


def element(kind: str, **fields: object) -> ForwardMsg:
    """A message that adds one element of this kind to the page."""
    message = ForwardMsg()
    body = getattr(message.delta.new_element, kind)
    for name, value in fields.items():
        setattr(body, name, value)
    return message


def chart(title: str) -> ForwardMsg:
    """A plotly chart element with this title."""
    return element("plotly_chart", spec=json.dumps({"data": [], "layout": {"title": {"text": title}}}))


def finished(status: int) -> ForwardMsg:
    """The message that ends a run with this status."""
    message = ForwardMsg()
    message.script_finished = status  # type: ignore[assignment]
    return message


def test_a_run_ends_with_its_finished_message_but_not_when_cut_short_for_a_rerun() -> None:
    assert bench_load.run_ended(finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert not bench_load.run_ended(finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert not bench_load.run_ended(chart("anything"))


def test_the_word_chart_of_a_sentence_is_known_by_its_title_even_wrapped() -> None:
    wrapped = "The sentence word by word: They couldn't see a bright lamp,<br>let alone a dim one."
    assert bench_load.word_chart_of(chart(wrapped), MINE)
    assert not bench_load.word_chart_of(chart(wrapped), OTHER)
    assert not bench_load.word_chart_of(chart("Verdict: " + MINE), MINE)
    assert not bench_load.word_chart_of(element("markdown", body="The sentence word by word: " + MINE), MINE)


@pytest.mark.parametrize("where", [
    lambda s: chart(s.replace(", ", ",<br>")),  # in a figure, wrapped
    lambda s: element("markdown", body=f"**{s}**"),
    lambda s: element("text_input", label="Your sentence", value=s),
])
def test_another_sessions_sentence_anywhere_in_a_run_is_a_leak(where) -> None:  # type: ignore[no-untyped-def]
    run = [chart("The sentence word by word: " + MINE), where(OTHER), finished(ForwardMsg.FINISHED_SUCCESSFULLY)]
    assert bench_load.leaked(run, [OTHER]) == OTHER
    assert bench_load.leaked([chart("The sentence word by word: " + MINE)], [OTHER]) == ""


def test_the_text_box_and_the_first_trouble_are_read_from_a_run() -> None:
    run = [element("text_input", id="box-1", label="Your sentence"), element("text_input", id="x", label="Other"),
           element("alert", body="fine", format=Alert.INFO), element("alert", body="it broke", format=Alert.ERROR)]
    assert bench_load.text_box(run, "Your sentence") == "box-1"
    with pytest.raises(LookupError):
        bench_load.text_box(run, "Missing")
    assert bench_load.trouble(run) == "error: it broke"
    assert bench_load.trouble(run[:3]) == ""
