"""Every relative link in README.md and docs/*.md resolves: the file exists
and, with ``#anchor``, the anchor is one of the target's headings as GitHub
spells it (lower case, punctuation dropped, spaces to hyphens, ``-N`` for a
repeated heading) or an explicit ``<a id="…">``/``<a name="…">``."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
EXPLICIT = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before making repeats unique)."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters, digits and _ of any script
    return text.replace(" ", "-")


def _lines_outside_code(path: Path) -> list[str]:
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """Every anchor a link to ``path`` may name."""
    found: set[str] = set()
    seen: Counter[str] = Counter()
    for line in _lines_outside_code(path):
        found.update(EXPLICIT.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(match[2])
            found.add(base if not seen[base] else f"{base}-{seen[base]}")
            seen[base] += 1
    return found


def links(path: Path) -> list[str]:
    """The relative link targets of ``path`` (no scheme, no mail, not code)."""
    found = []
    for line in _lines_outside_code(path):
        line = re.sub(r"`[^`]*`", "", line)
        for match in LINK.finditer(line):
            target = match[1] or match[2]
            if not re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                found.append(target)
    return found


def test_slug_is_githubs():
    assert slug("§11 SLA clocks") == "11-sla-clocks"
    assert slug("When a wall time does not exist — or happens twice") == (
        "when-a-wall-time-does-not-exist--or-happens-twice")
    assert slug("The HTTP/JSON port and browsers") == "the-httpjson-port-and-browsers"
    assert slug("`duetime serve` flags") == "duetime-serve-flags"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page):
    broken = []
    for target in links(page):
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with anchor #{anchor} in "
                          f"{linked.relative_to(ROOT)}")
    assert broken == []
