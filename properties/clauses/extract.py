"""Find the normative sentences of a specification text.

The catalogue (``<spec>.yaml`` beside this module) is the source of truth for
clause ids; this extractor only *proposes* clauses.  ``merge`` keeps every id
already given (matched by text) and numbers new clauses after the highest id
of their section, so re-running it never renumbers a cited clause.

What counts as a clause, in a normative section:

* a sentence containing an RFC 2119 keyword (MUST, MUST NOT, SHOULD,
  SHOULD NOT, SHALL, SHALL NOT, REQUIRED, RECOMMENDED, NOT RECOMMENDED,
  OPTIONAL, MAY) — the sentence;
* a bullet (``•``) or numbered item (``1.``) — the whole item, including any
  ``Testably:`` sentence it carries;
* a prose paragraph carrying a ``Testably:`` sentence — the whole paragraph;
* a table row (a line with a tab, except a table's header row) — the whole
  row, kind ``row``: the field, its type, whether it is required and its
  description, or an enumeration's values.  Its keyword sentences and extras
  are clauses of their own as well;
* a titled rule paragraph (``Join once. A step with …``) in a section listed
  under ``titled`` — the whole paragraph;
* a sentence listed under ``extra`` in the spec's config (normative text
  without a keyword).

A section marked ``informative`` ("What is deliberately unspecified") still
yields its keyword sentences, and only those; a section whose code is None
yields nothing.

Run ``python -m wforacle.properties.clauses.extract w6w SPEC.txt`` to print
the merged catalogue.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import yaml

from wforacle.properties.clauses import CONFIGS, catalogue_path
from wforacle.properties.clauses.configs import Section, SpecConfig

KEYWORDS = re.compile(
    r"\b(MUST NOT|MUST|SHOULD NOT|SHOULD|SHALL NOT|SHALL"
    r"|NOT RECOMMENDED|RECOMMENDED|REQUIRED|OPTIONAL|MAY)\b"
)
BULLET = re.compile(r"^\s*(•|\d+\.)\s+")
TITLED = re.compile(r"^(?!Why )[A-Z][^.:]{2,70}\.\s+\S")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z“\"{(])")
YAML_KEY_LINE = re.compile(r"[a-z_]+:(\s.*)?")


@attrs.frozen
class Proposed:
    """A clause the extractor found, before it has an id."""

    code: str
    section: str
    line: int
    kind: str
    text: str


def _kind(text: str) -> str:
    if "Testably:" in text:
        return "testably"
    match = KEYWORDS.search(text)
    if match:
        return match.group(1).lower().replace(" ", "-")
    return "rule"


def sentences(paragraph: str, starts: tuple[str, ...] = ()) -> list[str]:
    """The sentences of one paragraph, each stripped.

    A sentence begins with a capital, or with one of ``starts``: the
    lowercase key names a specification begins sentences with
    (``SpecConfig.sentence_starts``).
    """
    pieces = SENTENCE_END.split(paragraph)
    if starts:
        lower = re.compile(
            r"(?<=[.!?])\s+(?=(?:" + "|".join(re.escape(s) for s in starts) + r")\s)"
        )
        pieces = [part for piece in pieces for part in lower.split(piece)]
    return [s.strip() for s in pieces if s.strip()]


def _joined(text: str) -> Iterator[tuple[int, str]]:
    """Numbered lines, a bullet's indented continuation (after a blank line) joined to it.

    The Harness chapter wraps long bullets: "• it is named by … has", a blank
    line, then "  routed elsewhere;".  The clause is the whole bullet.
    """
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        number = k + 1
        k += 1
        if BULLET.match(line):
            while (
                k + 1 < len(lines)
                and not lines[k].strip()
                and lines[k + 1].startswith("  ")
                and lines[k + 1].strip()
                and not BULLET.match(lines[k + 1])
            ):
                line = f"{line.rstrip()} {lines[k + 1].strip()}"
                k += 2
        yield number, line


def propose(config: SpecConfig, text: str) -> Iterator[Proposed]:
    """Yield the normative clauses of ``text`` in document order."""
    # Headings are matched in the configured order, so a sub-heading that
    # repeats a top-level one ("Shape" inside an amendment) is not mistaken
    # for it.
    pending = list(config.sections)
    current: Section | None = None
    previous = ""  # the line before: a table's first row is its header
    numbered = _joined(text) if config.wrapped_bullets else enumerate(text.splitlines(), start=1)
    for number, raw in numbered:
        line = raw.strip()
        header = "\t" not in previous
        previous = raw
        if pending and line == pending[0].heading:
            current = pending.pop(0)
            continue
        if current is None or current.code is None or not line:
            continue
        if config.yaml_examples and _in_example(raw):
            continue
        for text_, kind in _line_clauses(config, current, line, header=header):
            yield Proposed(current.code, current.heading, number, kind, text_)


def _in_example(raw: str) -> bool:
    """Whether a line belongs to a YAML example (``SpecConfig.yaml_examples``).

    An indented line, or an unindented ``key:`` / ``key: value`` line that
    does not end a sentence: "final: true declares a terminal state, … ." is
    prose, "initial: awaiting_approval" is the example's.
    """
    if raw[:1].isspace():
        return True
    line = raw.rstrip()
    return bool(YAML_KEY_LINE.fullmatch(line)) and not line.endswith(".")


def _keyword_sentences(
    paragraph: str, extras: list[str], starts: tuple[str, ...] = ()
) -> Iterator[tuple[str, str]]:
    for sentence in sentences(paragraph, starts):
        if KEYWORDS.search(sentence) and not any(sentence in e for e in extras):
            yield sentence, _kind(sentence)


def _line_clauses(
    config: SpecConfig, section: Section, line: str, *, header: bool
) -> Iterator[tuple[str, str]]:
    """The clauses of one paragraph (one line of the file), as ``(text, kind)``."""
    if section.informative:
        yield from _keyword_sentences(line, [], config.sentence_starts)
        return
    extras = [extra for extra in config.extra if extra in line]
    row = "\t" in line
    if row and not header:
        yield line, "row"  # a table row: field, type, requiredness, description
    for extra in extras:
        yield extra, _kind(extra)
    if row:
        # The description cell's keyword sentences are clauses of their own.
        yield from _keyword_sentences(line.rsplit("\t", 1)[1], extras, config.sentence_starts)
        return
    if line.startswith(("{", "}", "//", "interface ")):
        return  # code blocks
    if BULLET.match(line) or (section.titled and not extras and TITLED.match(line)):
        yield line, _kind(line)
        return
    if "Testably:" in line:
        yield line, "testably"  # a prose rule with its test: the whole paragraph
    if config.every_sentence:
        for sentence in sentences(line, config.sentence_starts):
            yield sentence, _kind(sentence)
        return
    yield from _keyword_sentences(line, extras, config.sentence_starts)


def merge(
    config: SpecConfig, text: str, existing: list[dict[str, object]]
) -> list[dict[str, object]]:
    """Give every proposed clause an id, keeping the ids ``existing`` gave."""
    by_text = {str(c["text"]): c for c in existing}
    next_number: dict[str, int] = {}
    for clause in existing:
        prefix, _, number = str(clause["id"]).rpartition("-")
        next_number[prefix] = max(next_number.get(prefix, 0), int(number))
    merged: list[dict[str, object]] = []
    seen: set[str] = set()
    for proposed in propose(config, text):
        if proposed.text.endswith("MUST:") or (
            proposed.text.endswith(":") and len(proposed.text) < 60
        ):
            continue  # a lead-in ("A host … MUST:", "3. Otherwise:"): its bullets are the clauses
        if proposed.text in seen:
            continue
        seen.add(proposed.text)
        prefix = f"{config.prefix}-{proposed.code}"
        old = by_text.get(proposed.text)
        if old is not None:
            clause_id = str(old["id"])
        else:
            next_number[prefix] = next_number.get(prefix, 0) + 1
            clause_id = f"{prefix}-{next_number[prefix]}"
        merged.append(
            {
                "id": clause_id,
                "section": proposed.section,
                "line": proposed.line,
                "kind": proposed.kind,
                "text": proposed.text,
            }
        )
    return merged


def main(argv: list[str]) -> int:
    """Print the merged catalogue for ``argv = [spec, spec-file]``."""
    spec, spec_file = argv
    config = CONFIGS[spec]
    path = catalogue_path(spec)
    existing = yaml.safe_load(path.read_text("utf-8"))["clauses"] if path.exists() else []
    clauses = merge(config, Path(spec_file).read_text("utf-8"), existing)
    document = {"spec": spec, "file": Path(spec_file).name, "clauses": clauses}
    sys.stdout.write(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
