"""Visitor text is text (issue 28): markdown links and images, raw HTML, bare addresses and e-mail
addresses given to every page through its link parameters and uploads are shown as the text they are:
no element's markdown renders a link, an image or HTML from them, and no chart reads them as markup."""
from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest

from pfcore.ui.page import PAGES
from pfcore.ui.text import plain
from tests.app_helpers import page, read
from tests.unit.test_syntaxgym_suite import suite_data

markdown_it = pytest.importorskip("markdown_it")

EVIL = "evil.example"
PAYLOAD = (f"[login](https://{EVIL}) ![x](https://{EVIL}/x.png) <a href=\"https://{EVIL}\">here</a> "
           f"<img src=\"https://{EVIL}/y.png\"> <https://{EVIL}/z> https://{EVIL}/w www.{EVIL} phish@{EVIL} :red[x]")
NAME = f"[login](http:{EVIL}) ![x](http:{EVIL}) <img src=http:{EVIL}> www.{EVIL} me@{EVIL}"  # a name has no '/'
SENTENCE = f"He doesn't like shrimp, let alone {PAYLOAD}."
MARKDOWN_FIELDS = {"body", "label", "help", "text"}  # what streamlit renders as markdown (st.html's body aside)
# GitHub's autolink literals, as streamlit's markdown finds them in text after escapes are read
AUTOLINK = re.compile(r"(https?://|www(?=\.))[-.\w]+|[-.\w+]+@[-\w]+(\.[-\w]+)+", re.IGNORECASE)
PARSER = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])


def strings(message: Message, kind: str = "") -> list[tuple[str, str, str]]:
    """Every string of an element's message, with the element's kind and the field's name."""
    found = []
    for field, value in message.ListFields():
        values = value if isinstance(value, (list, tuple)) or type(value).__name__.startswith("Repeated") else [value]
        for item in values:
            if isinstance(item, str):
                found.append((kind or type(message).__name__, field.name, item))
            elif isinstance(item, Message):
                found += strings(item, kind or type(message).__name__)
    return found


def shown_strings(at: AppTest) -> list[tuple[str, str, str]]:
    """Every string the page sends, main area and sidebar."""
    out: list[tuple[str, str, str]] = []

    def walk(node: Any) -> None:
        if getattr(node, "proto", None) is not None:
            out.extend(strings(node.proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def markdown_links(text: str) -> list[str]:
    """What markdown would make of `text` that points at the evil host: links, images, HTML, autolinks."""
    found: list[str] = []

    def walk(tokens: list[Any]) -> None:
        nonlocal found
        for token in tokens:
            target = str((token.attrs or {}).get("href") or (token.attrs or {}).get("src") or "")
            if token.type in ("link_open", "image") and EVIL in target and _leaves_the_site(target):
                found.append(f"{token.type}: {target}")
            if token.type in ("html_inline", "html_block") and EVIL in token.content:
                found.append(f"html: {token.content}")
            if token.type == "text":
                found += [f"autolink: {m.group(0)}" for m in AUTOLINK.finditer(token.content) if EVIL in m.group(0)]
            walk(token.children or [])

    walk(PARSER.parse(text))
    return found


def _leaves_the_site(target: str) -> bool:
    """Whether a link or image address points at another site (not a path of this one, as the
    lesson's link into the Probe is, whatever its query holds)."""
    parsed = urlparse(target)
    return bool(parsed.scheme or parsed.netloc)


class Tags(HTMLParser):
    """The links, images and frames of an HTML fragment that point at the evil host."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Keep a tag that fetches or links the evil host."""
        if tag in ("a", "img", "iframe", "script", "link") and any(EVIL in (v or "") for _, v in attrs):
            self.found.append(tag)


def chart_markup(spec: str) -> list[str]:
    """The strings of a plotly figure that plotly would read as a link or an image of the evil host."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str) and re.search(rf"<(a|img)\b[^>]*{re.escape(EVIL)}", value, re.IGNORECASE):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(json.loads(spec))
    return found


def rendered(at: AppTest) -> list[str]:
    """Every link, image or piece of HTML of the evil host the page would show."""
    problems = []
    for kind, field, text in shown_strings(at):
        if kind == "Html" and field == "body":
            tags = Tags()
            tags.feed(text)
            problems += [f"st.html {t}" for t in tags.found]
        elif kind == "PlotlyChart" and field == "spec":
            problems += [f"chart: {s[:80]}" for s in chart_markup(text)]
        elif field in MARKDOWN_FIELDS and EVIL in text:
            problems += [f"{kind}.{field}: {p}" for p in markdown_links(text)]
    return problems


def visible(at: AppTest) -> str:
    """The markdown the page shows, as a reader reads it."""
    return "\n".join(read(text) for kind, field, text in shown_strings(at) if field in MARKDOWN_FIELDS)


def check(at: AppTest, *, shows: str | None) -> None:
    """No exception, nothing rendered from the payload; `shows` (what the page should show as text) is there."""
    assert not at.exception, [e.value for e in at.exception]
    assert not rendered(at)
    if shows is not None:
        assert shows in visible(at)


def test_the_helper_escapes_what_markdown_would_read() -> None:
    """The unit under every page: links, images, HTML, autolinks and streamlit's own directives stay text."""
    for text in (PAYLOAD, NAME, "# heading\n- item\n1. one\n\n    code", "a | b\n--- | ---", "$x$ ~~y~~ `z`"):
        assert not markdown_links(plain(text))
        assert read(plain(text)) == "  \n".join(line.strip() for line in text.splitlines() if line.strip())
    html = PARSER.render(plain("# heading\n- item\n:red[x] *b* <b>c</b>"))
    assert "<h1>" not in html and "<li>" not in html and "<em>" not in html and "<b>" not in html


LINKS: dict[str, dict[str, object]] = {
    "pages/0_Home.py": {"sentence": SENTENCE, "models": PAYLOAD},
    "pages/1_Probe.py": {"sentence": SENTENCE, "entailed": PAYLOAD, "contradicted": PAYLOAD, "construction": PAYLOAD,
                         "reduction": PAYLOAD, "models": PAYLOAD, "colour": PAYLOAD},
    "pages/2_Items.py": {"suite": "semantic", "block": PAYLOAD, "construction": PAYLOAD},
    "pages/3_Run.py": {"run": PAYLOAD, "models": PAYLOAD},
    "pages/4_Models.py": {"table": PAYLOAD},
    "pages/5_Trajectories.py": {"model": PAYLOAD, "series": PAYLOAD},
    "pages/6_Stimuli.py": {"file": PAYLOAD},
    "pages/7_Lesson.py": {"step": "8", "sentence": SENTENCE, "term": PAYLOAD},
}
SHOWN = {"pages/1_Probe.py": "let alone [login](https", "pages/2_Items.py": "block='[login](https",
         "pages/5_Trajectories.py": "model='[login](https", "pages/7_Lesson.py": "[login](https"}


def test_every_page_has_a_case() -> None:
    assert set(LINKS) == {p.path for p in PAGES}


@pytest.mark.parametrize("script", list(LINKS))
def test_a_link_plants_nothing_on_any_page(fake_model: str, bundled_cache: Path, script: str) -> None:
    at = page(script, fake_model)
    for name, value in LINKS[script].items():
        at.query_params[name] = value
    at.run(timeout=240)
    check(at, shows=SHOWN.get(script))


def test_the_lessons_first_step_shows_the_class_words_as_text(fake_model: str, cache_dir: Path) -> None:
    at = page("pages/7_Lesson.py", fake_model)
    at.query_params["step"] = "1"
    at.query_params["prefix"] = f"I drank a cup of {PAYLOAD}"
    at.run()
    check(at, shows="I drank a cup of [login](https")


def upload(at: AppTest, name: str, data: bytes, mime: str = "text/csv") -> AppTest:
    """Upload a file on the Stimuli page and run it."""
    at.file_uploader(key="stimuli_upload").set_value((name, data, mime))
    return at.run(timeout=240)


@pytest.mark.parametrize("content", ["sentences", "not stimuli"])
def test_an_uploaded_csv_and_its_name_plant_nothing(fake_model: str, cache_dir: Path, content: str) -> None:
    rows = ([["sentence", "note"], [f"The key {PAYLOAD} is here.", "x"], [f"{PAYLOAD} again, the same.", "y"]]
            if content == "sentences" else [[PAYLOAD], ["1"]])
    data = io.StringIO()
    csv.writer(data).writerows(rows)
    at = page("pages/6_Stimuli.py", fake_model)
    at.session_state["stimuli_path"] = f"folder {PAYLOAD}"  # the path box is named beside the upload
    at.run()
    at = upload(at, f"{NAME}.csv", data.getvalue().encode())
    check(at, shows=f"{NAME}.csv")
    if content == "sentences":
        assert at.get("plotly_chart")  # the per-word chart, its panels titled by the sentences


def test_an_uploaded_suites_names_plant_nothing(fake_model: str, cache_dir: Path) -> None:
    """Region and condition names of a SyntaxGym suite reach the chart's axis, legend and note."""
    data = suite_data()
    data["region_meta"] = {"1": f"intro {PAYLOAD}", "2": f"verb {PAYLOAD}", "3": "rest"}
    for item in data["items"]:
        for condition in item["conditions"]:
            first, *rest = condition["regions"][0]["content"].split()
            condition["regions"][0]["content"] = first  # region 1 is one word, never scored: named in a note
            condition["regions"][1]["content"] = " ".join([*rest, condition["regions"][1]["content"]])
            condition["condition_name"] = f"{condition['condition_name']} {PAYLOAD}"
    data["predictions"] = []
    at = upload(page("pages/6_Stimuli.py", fake_model).run(), f"{NAME}.json", json.dumps(data).encode(),
                "application/json")
    check(at, shows="Not drawn: region 1: intro [login](https")
    assert at.get("plotly_chart")


def test_an_uploaded_summarys_name_plants_nothing_in_public_mode(fake_model: str, cache_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PFCORE_PUBLIC", "1")
    monkeypatch.setenv("PFCORE_MODELS_ALLOWED", f"{fake_model}:fake")
    at = page("pages/5_Trajectories.py", fake_model).run()
    at.file_uploader(key="traj_uploads").set_value([(f"{NAME}.tsv", b"not\ta summary\n", "text/tab-separated-values")])
    at.run()
    at.text_input(key="traj_upload_model").input("ORG/tiny")
    at.button(key="traj_add_uploads").click().run()
    check(at, shows=f"{NAME}.tsv")


def test_a_typed_model_name_plants_nothing_in_the_sidebar(cache_dir: Path) -> None:
    """A model name that is no model: the sidebar's load error shows the name as typed, as text."""
    at = page("pages/0_Home.py", NAME).run()
    assert at.sidebar.error, "the unknown model gives a load error"
    check(at, shows="[login](http:evil.example)")
