"""The lesson as a handout: one self-contained HTML file with the class's sentences, every step's
numbers, charts (static SVG: the file opens offline, prints, and stays small), what to notice, the
questions and the glossary."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from datetime import date

from pfcore.glossary import GLOSSARY
from pfcore.lesson.steps import TABLE_NAMES, StepResult
from pfcore.lesson.svg import figure_svg

STYLE = """
body {font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em; line-height: 1.5}
h2 {margin-top: 2em; border-bottom: 1px solid #ccc}
table {border-collapse: collapse; margin: .5em 0; font-size: .85em}
td, th {border: 1px solid #ccc; padding: .2em .5em; text-align: left}
.notice {background: #e8f1fb; padding: .6em} .aside {background: #fff6e0; padding: .6em}
.problem {background: #fde8e8; padding: .6em} .question {font-weight: bold}
dt {font-weight: bold; margin-top: .6em} code {background: #f3f3f3; padding: 0 .2em}
figure.chart {margin: 1em 0}
"""
DIGITS = 3  # decimals of the numbers in the handout's tables


def inline(text: str) -> str:
    """Text for HTML: escaped, with the lesson's bits of markdown (`code`, *emphasis*, **bold**) kept."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    return re.sub(r"\*([^*\s][^*]*)\*", r"<em>\1</em>", out)


def _section(result: StepResult) -> str:
    """One step as HTML."""
    step = result.step
    parts = [f'<section id="step-{step.number}"><h2>Step {step.number}: {inline(step.title)}</h2>',
             f"<p>{inline(step.explanation)}</p>"]
    parts += [f"<p><strong>{inline(f.label)}:</strong> {inline(result.inputs[f.name])}</p>" for f in step.fields]
    if result.problem:
        parts.append(f'<p class="problem">{inline(result.problem)}</p>')
    parts += [f'<figure class="chart">{figure_svg(fig)}</figure>' for fig in result.figures]
    if result.notice:
        parts.append(f'<p class="notice"><strong>What to notice:</strong> {inline(result.notice)}</p>')
    if result.aside:
        parts.append(f'<p class="aside">{inline(result.aside)}</p>')
    for name, table in result.numbers.items():
        parts.append(f"<details><summary>The numbers: {inline(TABLE_NAMES[name])}</summary>"
                     + table.to_html(index=False, float_format=lambda v: f"{v:.{DIGITS}f}", na_rep="–") + "</details>")
    parts.append(f'<p class="question">Question for the class: {inline(step.question)}</p></section>')
    return "\n".join(parts)


def handout_html(results: Sequence[StepResult], *, model: str, made: date | None = None) -> str:
    """The whole lesson as one HTML page that needs no network to open."""
    when = (made or date.today()).isoformat()
    body = [f"<h1>The Paired-Focus lesson</h1><p>Every number below was computed by the model <strong>"
            f"{inline(model)}</strong> for the sentences the class chose, on {when}, with pfcore. Surprisal is in "
            "bits; a sentence's surprisal per token in bits per token.</p>"]
    body += [_section(result) for result in results]
    terms = "".join(f'<dt id="{t.key}">{inline(t.word)}</dt><dd>{inline(t.definition)}</dd>' for t in GLOSSARY)
    body.append(f'<section id="glossary"><h2>Glossary</h2><dl>{terms}</dl></section>')
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>The Paired-Focus lesson · '
            f"{inline(model)}</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>")
