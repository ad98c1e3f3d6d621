"""The manuals match the code: every relative link and #anchor in README.md and docs/*.md leads to
a file and a heading that exist (anchors as GitHub renders headings), the index and the README name
every manual and every page, every page of the app has its screenshot in its section of
docs/app.md, every `pfcore COMMAND --flag` the manuals show is an option of that command's parser,
nothing shipped cites a folder or file beside the repository, and every docs/ file the code names
exists."""
from __future__ import annotations

import argparse
import re
import shlex
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from pfcore.cli import COMMANDS, DEBUG_FLAG, build_parser
from pfcore.ui.page import PAGES, PageInfo

ROOT = Path(__file__).resolve().parents[2]
MANUALS = sorted([ROOT / "README.md", ROOT / "data" / "reference" / "README.md", *(ROOT / "docs").glob("*.md")])
FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*([^)\s]+)")
INLINE_CODE = re.compile(r"`[^`\n]+`")
SHELL = {"bash", "sh", "shell", "console"}
PYTHON = re.compile(r"^(?:\S*/)?python(?:3(?:\.\d+)?)?$")  # `python -m pfcore`, `.venv/bin/python -m pfcore`
WORD = re.compile(r"^[a-z][a-z-]*$")
VALUE = re.compile(r"^[\w.-]+$")  # an option's value as typed, not a placeholder such as `mean|sum]`
# Values the manuals show that the parser does not know yet: the suite docs/suites.md adds as its
# worked example of the registry.
EXAMPLES = {("--suite", "pairs")}
STOP = {"&&", "||", ";", ">", ">>", "2>", "2>&1"}  # where the shell starts another command or a redirect
FLAG = re.compile(r"^[\[(]*(--[A-Za-z0-9][\w-]*)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# What a user of the repository does not have: the development machine's reference folder and notes.
OUTSIDE = re.compile(r"\.\./shared|shared/(?:data|paper)|DESIGN\.md")
SHIPPED = ("pfcore", "pages", "app.py", "docs", "README.md", "data")
DOCS_PATH = re.compile(r"(?<![\w/])docs/[\w./-]+")


@dataclass(frozen=True)
class Manual:
    """A markdown file split into its prose lines (code spans kept) and its fenced blocks."""

    path: Path
    prose: list[tuple[int, str]]  # (line number, text) outside fences
    blocks: list[tuple[int, str, list[str]]]  # (first line number, language, lines) of each fence


@cache
def read_manual(path: Path) -> Manual:
    """The manual's prose and fenced blocks, in order."""
    prose: list[tuple[int, str]] = []
    blocks: list[tuple[int, str, list[str]]] = []
    fence: tuple[int, str, str, list[str]] | None = None  # (start, marker, language, lines)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = (number, match.group(1), match.group(2).lower(), [])
        elif fence is not None and match and line.strip() == fence[1]:
            blocks.append((fence[0], fence[2], fence[3]))
            fence = None
        elif fence is not None:
            fence[3].append(line)
        else:
            prose.append((number, line))
    assert fence is None, f"{path.relative_to(ROOT)}:{fence[0]}: a code fence that is never closed"
    return Manual(path, prose, blocks)


def heading_text(markdown: str) -> str:
    """A heading's text as GitHub renders it: links and images by their text, code and emphasis
    marks dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return text.replace("`", "").replace("*", "")


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading (github-slugger): lower case, only letters, marks,
    digits, spaces, hyphens and underscores kept, each space a hyphen."""
    kept = "".join(c for c in text.strip().lower() if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def headings(path: Path) -> list[tuple[int, int, str]]:
    """(line number, level, rendered text) of every heading outside code fences."""
    found = []
    for number, line in read_manual(path).prose:
        match = HEADING.match(line)
        if match:
            found.append((number, len(match.group(1)), heading_text(match.group(2))))
    return found


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every anchor of a manual's headings, repeats numbered -1, -2, ... as GitHub numbers them."""
    seen: dict[str, int] = {}
    out = set()
    for _number, _level, text in headings(path):
        slug = github_slug(text)
        out.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return frozenset(out)


def prose_text(path: Path) -> list[tuple[int, str]]:
    """The prose lines without their code spans (a link inside backticks is not a link)."""
    return [(number, INLINE_CODE.sub("", line)) for number, line in read_manual(path).prose]


def link_targets(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of every markdown link and image; alt texts may span lines."""
    lines = prose_text(path)
    text = "\n".join(line for _n, line in lines)
    starts = [number for number, _line in lines]
    return [(starts[text.count("\n", 0, match.start())], match.group(1)) for match in LINK.finditer(text)]


def link_problem(path: Path, target: str) -> str | None:
    """Why a relative link of a manual leads nowhere, or None."""
    if SCHEME.match(target):
        return None
    file_part, _, anchor = target.partition("#")
    dest = (path.parent / file_part).resolve() if file_part else path
    if not dest.is_relative_to(ROOT):
        return f"{target}: outside the repository"
    if not dest.exists():
        return f"{target}: no such file"
    if anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
        return f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}"
    return None


def shipped_text_files() -> list[Path]:
    """Every text file of the code, the manuals and the shipped data."""
    paths = [p for name in SHIPPED for p in ([ROOT / name] if (ROOT / name).is_file() else (ROOT / name).rglob("*"))]
    return sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts
                  and b"\0" not in p.read_bytes()[:8192] and not p.name.endswith((".gz", ".parquet", ".png")))


def test_the_repository_stands_alone() -> None:
    """Nothing shipped sends the user to a folder beside the repository or to a file it lacks."""
    cited = [f"{path.relative_to(ROOT)}:{number}: {match.group(0)}" for path in shipped_text_files()
             for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             for match in OUTSIDE.finditer(line)]
    assert not cited, "\n".join(cited)


def test_the_code_cites_only_manuals_and_plans_that_exist() -> None:
    """Every docs/ file the code, its messages or its placeholders name is there."""
    cited = {(path, match.group(0).rstrip(".")) for path in shipped_text_files() if path.suffix == ".py"
             for match in DOCS_PATH.finditer(path.read_text(encoding="utf-8"))}
    missing = sorted(f"{path.relative_to(ROOT)}: {name}" for path, name in cited if not (ROOT / name).exists())
    assert not missing, "\n".join(missing)


def test_the_slugs_are_githubs() -> None:
    assert github_slug(heading_text("Probe one sentence (`pfcore.probe`, `pfcore probe`)")) == \
        "probe-one-sentence-pfcoreprobe-pfcore-probe"
    assert github_slug(heading_text("Running the suites (`pfcore.suites`, `python -m pfcore run`)")) == \
        "running-the-suites-pfcoresuites-python--m-pfcore-run"
    assert github_slug(heading_text("Measured on this machine (2 CPU cores, no GPU)")) == \
        "measured-on-this-machine-2-cpu-cores-no-gpu"
    assert github_slug(heading_text("Spearman's ρ — *across* [models](x.md)")) == "spearmans-ρ--across-models"


def test_a_broken_link_is_found() -> None:
    readme = ROOT / "README.md"
    assert link_problem(readme, "docs/app.md#tests") is link_problem(readme, "https://x.org/a#b") is None
    assert link_problem(readme, "#a-first-result") is None
    assert link_problem(readme, "docs/app.md#no-such-heading") == \
        "docs/app.md#no-such-heading: no heading #no-such-heading in docs/app.md"
    assert link_problem(readme, "docs/none.md") == "docs/none.md: no such file"
    assert link_problem(readme, "../shared/data") == "../shared/data: outside the repository"
    assert link_targets(readme)[0][1] == "docs/development.md#why-these-versions"


@pytest.mark.parametrize("path", MANUALS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_leads_somewhere(path: Path) -> None:
    problems = [f"{path.relative_to(ROOT)}:{number}: {problem}" for number, target in link_targets(path)
                if (problem := link_problem(path, target))]
    assert not problems, "\n".join(problems)


def test_the_index_and_the_readme_link_every_manual() -> None:
    manuals = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    for path in (ROOT / "docs" / "index.md", ROOT / "README.md"):
        linked = {Path(target.partition("#")[0]).name for _n, target in link_targets(path)}
        assert manuals <= linked, f"{path.relative_to(ROOT)} links no {sorted(manuals - linked)}"


def paragraph(path: Path, start: str) -> str:
    """The paragraph (or list) of a manual that starts with the given text."""
    text = path.read_text(encoding="utf-8")
    assert start in text, f"{path.relative_to(ROOT)}: no paragraph starting {start!r}"
    return text[text.index(start):].split("\n\n")[0]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.title)
def test_the_index_and_the_readme_name_every_page(page: PageInfo) -> None:
    index = paragraph(ROOT / "docs" / "index.md", "[The explorer app](app.md)")
    assert page.title in index, f"docs/index.md's paragraph on the app leaves out {page.title}"
    readme = paragraph(ROOT / "README.md", "- **Home**")
    assert f"- **{page.title}**:" in readme, f"README.md's list of pages leaves out {page.title}"


def page_section(title: str) -> str:
    """The lines of docs/app.md under the page's heading ("Probe" or "The Probe page"), down to the
    next heading of the same or a higher level."""
    app = ROOT / "docs" / "app.md"
    found = headings(app)
    for i, (number, level, text) in enumerate(found):
        if text in (title, f"The {title} page"):
            end = next((n for n, lv, _t in found[i + 1:] if lv <= level), 10**9)
            return "\n".join(line for n, line in read_manual(app).prose if number <= n < end)
    raise AssertionError(f"docs/app.md has no section headed {title!r} or 'The {title} page'")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.title)
def test_each_page_has_its_screenshot_in_the_app_manual(page: PageInfo) -> None:
    name = page.title.lower()
    images = IMAGE.findall(page_section(page.title))
    own = [image for image in images if Path(image).name.startswith(name) and image.endswith(".png")]
    assert own, f"docs/app.md, section {page.title}: no screenshot screenshots/{name}*.png (images: {images})"
    for image in own:
        assert (ROOT / "docs" / image).is_file(), f"docs/app.md, section {page.title}: {image} does not exist"


def logical_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(offset, line) with backslash continuations joined."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for offset, line in enumerate(lines):
        start, text = (offset, line) if pending is None else (pending[0], pending[1] + " " + line.strip())
        if text.rstrip().endswith("\\"):
            pending = (start, text.rstrip()[:-1])
        else:
            out.append((start, text))
            pending = None
    if pending is not None:
        out.append(pending)
    return out


def is_pfcore(tokens: list[str], i: int) -> bool:
    """Whether token i calls pfcore: `pfcore`, `.venv/bin/pfcore`, or `pfcore` after `python -m`."""
    if tokens[i].endswith("/pfcore"):
        return True
    if tokens[i] != "pfcore":
        return False
    after_m = i >= 1 and tokens[i - 1] == "-m"
    return not after_m or (i >= 2 and PYTHON.match(tokens[i - 2]) is not None)


def invocations(line: str) -> list[list[str] | str]:
    """The arguments after each pfcore invocation on a shell line (comments dropped), or why the
    shell cannot read the line."""
    if "pfcore" not in line:
        return []
    try:
        tokens = shlex.split(line, comments=True)
    except ValueError as exc:
        return [f"{line.strip()}: the shell cannot read it ({exc})"]
    starts = [i + 1 for i in range(len(tokens)) if is_pfcore(tokens, i)]
    return [tokens[start:] for start in starts]


def shown_commands(path: Path) -> list[tuple[int, list[str] | str]]:
    """(line number, arguments) of every pfcore command a manual shows: each line of a shell
    block, each `$ ` line of another block, and each code span in the prose that calls pfcore or
    names a command with an option."""
    found = []
    for start, language, lines in read_manual(path).blocks:
        for offset, line in logical_lines(lines):
            if language in SHELL or line.lstrip().startswith("$ "):
                found += [(start + 1 + offset, args) for args in invocations(line.lstrip().removeprefix("$ "))]
    for number, line in read_manual(path).prose:
        for span in (span.strip("`") for span in INLINE_CODE.findall(line)):
            found += [(number, args) for args in invocations(span) or bare_command(span)]
    return found


def bare_command(span: str) -> list[list[str]]:
    """A code span that names a command and an option without the invocation (`run --suite
    syntaxgym`, `score --file`), as arguments; else nothing."""
    try:
        tokens = shlex.split(span)
    except ValueError:
        return []
    shown = len(tokens) > 1 and tokens[0] in COMMANDS and any(t.startswith("--") for t in tokens)
    return [tokens] if shown else []


def sub_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's sub-commands by name (empty when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


@cache
def command_parser(command: str) -> argparse.ArgumentParser:
    """The full parser of one command, as `pfcore COMMAND` builds it."""
    return sub_parsers(build_parser(command))[command]


def command_problem(args: list[str]) -> str | None:
    """Why `pfcore ARGS` is not a command line the parser knows (an unknown command, sub-command
    or option), or None. Placeholders (`COMMAND`, `...`) and what follows the shell's `&&`, `;` or
    a redirection are not checked."""
    stop = next((i for i, t in enumerate(args) if t in STOP), len(args))
    args = args[:stop]
    if not args or not WORD.match(args[0]):  # `pfcore --help`, `pfcore COMMAND`, `pfcore ...`
        return None
    if args[0] not in COMMANDS:
        return f"pfcore {args[0]}: no such command"
    chain = [command_parser(args[0])]
    for token in args[1:]:
        subs = sub_parsers(chain[-1])
        if token.startswith("-") or not subs:
            break
        if token in subs:
            chain.append(subs[token])
        elif WORD.match(token):
            return f"pfcore {' '.join(args[:len(chain) + 1])}: no such sub-command of {args[0]}"
    known = {flag: action for parser in chain for flag, action in parser._option_string_actions.items()}
    allowed = set(known) | {DEBUG_FLAG}
    wrong = [m.group(1) for token in args if (m := FLAG.match(token)) and m.group(1) not in allowed]
    if wrong:
        return f"{chain[-1].prog}: no option {', '.join(wrong)}"
    for flag, value in zip(args, args[1:]):
        choices = known[flag].choices if flag in known else None
        typed = bool(VALUE.match(value)) and not value.isupper() and (flag, value) not in EXAMPLES
        if choices is not None and typed and value not in choices:
            return f"{chain[-1].prog}: {flag} {value} is not one of {', '.join(map(str, choices))}"
    return None


def test_commands_are_found_in_every_form() -> None:
    lines = ["python -m pfcore probe 'X' --json", ".venv/bin/pfcore run --suite semantic  # pfcore proposes",
             "PFCORE_CACHE=c .venv/bin/python -m pfcore items check f", "python -m pfcore.ui.serve",
             "pfcore-fake-scorer", "a pfcore"]
    assert [args for line in lines for args in invocations(line)] == \
        [["probe", "X", "--json"], ["run", "--suite", "semantic"], ["items", "check", "f"], []]
    assert invocations("pfcore probe \"it's") == [
        "pfcore probe \"it's: the shell cannot read it (No closing quotation)"]
    for line in ("run --suite semantic [--limit-blocks N] [--json]", "COMMAND --help", "analyze ...",
                 "probe S [--propose | --auto] (--checkpoint-dir D | --revisions a,b)",
                 "items semantic --out x.csv && cmp --silent x y", "= pfcore.cli:main"):
        assert command_problem(line.split()) is None, line
    assert "no option --no-such" in str(command_problem(["run", "--no-such", "3"]))
    assert "no option --revision" in str(command_problem(["items", "check", "--revision", "x", "f"]))
    assert "no such command" in str(command_problem(["runn", "--suite", "semantic"]))
    assert "no such sub-command" in str(command_problem(["results", "imports", "x"]))
    assert "--suite semantik is not one of semantic," in str(command_problem(["run", "--suite", "semantik"]))
    assert command_problem(["run", "--suite", "NAME"]) is command_problem(["probe", "S", "--reduction", "mean|sum]"])
    assert bare_command("run --suite syntaxgym") == [["run", "--suite", "syntaxgym"]]
    assert bare_command("run") == bare_command("--suite") == bare_command("the run --x") == []


@pytest.mark.parametrize("path", MANUALS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_shown_exists_with_its_options(path: Path) -> None:
    problems = [f"{path.relative_to(ROOT)}:{number}: {problem}" for number, args in shown_commands(path)
                if (problem := args if isinstance(args, str) else command_problem(args))]
    assert not problems, "\n".join(problems)
