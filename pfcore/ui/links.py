"""Links that reopen a view: each page binds its state to the URL's query string. Opening a URL
puts its values into the page's widgets (unknown or malformed ones are ignored with a note); after
the widgets run, their values are written back, so the address bar always holds a link to the view.
Every value a link gives passes one parser (`read_link`) before any page reads it: it bounds the
names, the number of values, their length and their characters, so no value reaches a file name or
the page that a setting could not hold."""
from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from pfcore.errors import PfcoreError
from pfcore.names import odd_character
from pfcore.probe import MAX_CHARS
from pfcore.ui.text import plain

PUBLISHED = "_links_published"  # session key: the query each page last wrote
REFUSED = "_links_refused"  # session key: the parser's notes on the link this run opened
Query = dict[str, list[str]]
MAX_NAMES = 32  # settings one link may carry
MAX_VALUES = 64  # values of one setting (a list of series is the longest)
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


@dataclass(frozen=True)
class Rule:
    """What one setting's value in a link may be: at most `chars` characters, none a control or
    bidirectional-override character, and, where `allowed` is given, only characters it matches
    (`kind` says which, in the note)."""

    chars: int
    allowed: re.Pattern[str] | None = None
    kind: str = ""


TEXT = Rule(MAX_CHARS)  # any setting: a sentence is the longest value (the Probe's and the lesson's limit)
RULES = {
    "run": Rule(128, re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*"), "a run id (letters, digits, '.', '_', '-')"),
    "models": Rule(300, re.compile(r"[\w .@/~+-]+"),
                   "a model: a hub id, name@revision or a path (letters, digits, spaces and . _ - / @ ~ +)"),
}


def read_link(raw: Mapping[str, Sequence[str]]) -> tuple[Query, list[str]]:
    """A link's query as pages may read it: at most MAX_NAMES settings named like a setting, at
    most MAX_VALUES values each, every value within its rule (RULES, else TEXT); returns the values
    kept and a note for each one refused (the notes never repeat a refused value)."""
    kept: Query = {}
    notes: list[str] = []
    odd = [name for name in raw if not NAME.fullmatch(name)]
    if odd:
        notes.append(f"{len(odd)} setting(s) whose name is not a setting's (lowercase letters, digits and _)")
    names = [name for name in raw if NAME.fullmatch(name)]
    if len(names) > MAX_NAMES:
        notes.append(f"{len(names) - MAX_NAMES} setting(s) past the first {MAX_NAMES} (a link holds no more)")
    for name in names[:MAX_NAMES]:
        values = list(raw[name])
        if len(values) > MAX_VALUES:
            notes.append(f"{name}: {len(values) - MAX_VALUES} value(s) past the first {MAX_VALUES}")
        problems = [why for why in (_refusal(v, RULES.get(name, TEXT)) for v in values[:MAX_VALUES]) if why]
        if problems:
            notes.append(f"{name} ({problems[0]})")
            continue
        kept[name] = values[:MAX_VALUES]
    return kept, notes


def _refusal(value: str, rule: Rule) -> str:
    """Why a value breaks its rule ("" when it keeps it)."""
    if len(value) > rule.chars:
        return f"a value of {len(value):,} characters; at most {rule.chars:,} are read"
    odd = odd_character(value)
    if odd is not None:
        return f"a value with the control character U+{ord(odd):04X}, which no setting holds"
    if value and rule.allowed is not None and not rule.allowed.fullmatch(value):
        return f"a value that is not {rule.kind}"
    return ""


@dataclass(frozen=True)
class Param:
    """One setting of a view in the URL: its name, the widget it fills (a key, or a function of
    the state giving it), how to read its text (ValueError when malformed), whether it repeats,
    and how to turn the widget's value back into text."""

    name: str
    key: str | Callable[[], str]
    read: Callable[[str], object] = str
    many: bool = False
    write: Callable[[object], str] = str

    def widget_key(self) -> str:
        """The key of the widget this parameter fills, now."""
        return self.key() if callable(self.key) else self.key


def choice_of(options: Sequence[str]) -> Callable[[str], str]:
    """A reader that accepts only one of the options."""
    def read(text: str) -> str:
        if text not in options:
            raise ValueError(f"not one of {', '.join(options)}")
        return text
    return read


def opened_query(page: str) -> Query | None:
    """The URL's query, as `read_link` keeps it, when it is not the one this page last wrote (a link
    was opened or edited), else None (the widgets hold the view); the parser's notes wait for
    `show_link`."""
    raw = {name: st.query_params.get_all(name) for name in st.query_params}
    if raw == st.session_state.get(PUBLISHED, {}).get(page):
        st.session_state[REFUSED] = []
        return None
    query, st.session_state[REFUSED] = read_link(raw)
    return query


def apply(params: Sequence[Param], query: Mapping[str, list[str]], also_known: Sequence[str] = ()) -> list[str]:
    """Put the query's values into the widgets' state; a note for each parameter ignored (names
    in `also_known` are the page's own to handle)."""
    known = {p.name: p for p in params}
    notes = [f"{name} (not a setting of this page)" for name in query if name not in known and name not in also_known]
    for param in params:
        values = query.get(param.name)
        if not values:
            continue
        try:
            value = [param.read(v) for v in values] if param.many else param.read(values[-1])
        except (ValueError, KeyError, TypeError, OSError, PfcoreError) as exc:  # a run's record may be unreadable
            notes.append(f"{param.name}={values[-1][:40]!r} ({exc})")
            continue
        st.session_state[param.widget_key()] = value
    return notes


def current(params: Sequence[Param]) -> Query:
    """The widgets' values as a query (empty values left out)."""
    query: Query = {}
    for param in params:
        value = st.session_state.get(param.widget_key())
        if value is None or value == "" or value == []:
            continue
        query[param.name] = [param.write(v) for v in value] if param.many else [param.write(value)]
    return query


def publish(page: str, query: Query) -> str:
    """Write the view's query into the URL; returns the link to this view."""
    st.query_params.from_dict(query)
    st.session_state.setdefault(PUBLISHED, {})[page] = query
    base = (st.context.url or "").split("?")[0]
    return f"{base}?{urlencode(query, doseq=True)}" if query else base


COPIED = "Link copied"
# One click copies the link (the address bar's, which the page has just written, when the server
# knows no URL); where the browser refuses the clipboard API, a hidden text box is copied instead.
# Streamlit's sanitizer drops inline handlers (onclick), so a script binds the click.
COPY_BUTTON = """<button type="button" class="pf-copy-link" data-url="{url}" title="Copy a link that reopens
this view" style="font: inherit; font-size: 0.875rem; padding: 0.25rem 0.75rem; border-radius: 0.5rem;
border: 1px solid rgba(49, 51, 63, 0.2); background: transparent; color: inherit; cursor: pointer"
>Copy link</button>
<script>
document.querySelectorAll("button.pf-copy-link:not([data-bound])").forEach((button) => {{
  button.dataset.bound = "1";
  button.addEventListener("click", async () => {{
    const url = button.dataset.url || window.location.href;
    try {{ await navigator.clipboard.writeText(url); }} catch (error) {{
      const box = document.createElement("textarea");
      box.value = url; document.body.appendChild(box); box.select(); document.execCommand("copy"); box.remove();
    }}
    button.textContent = "{copied}";
    setTimeout(() => {{ button.textContent = "Copy link"; }}, 2000);
  }});
}});
</script>"""


def copy_button(url: str) -> str:
    """The 'Copy link' button's HTML: a click copies `url` (the address bar's link when empty)."""
    return COPY_BUTTON.format(url=html.escape(url, quote=True), copied=COPIED)


def show_link(url: str, notes: Sequence[str]) -> None:
    """The 'Copy link' button, which copies the link to this view at one click, and the ignored
    parameters (the parser's and the page's, each once, as text)."""
    notes = list(dict.fromkeys([*st.session_state.get(REFUSED, []), *notes]))
    if notes:
        st.caption("Ignored in the link: " + plain("; ".join(notes)))
    st.html(copy_button(url), unsafe_allow_javascript=True, width="content")
