"""The requirements of the specification and their stable ids.

A requirement is a sentence of a normative document of spec/v1 that uses one
of the key words MUST, MUST NOT, REQUIRED, SHALL or SHALL NOT in capitals
(RFC 2119, RFC 8174). Sentences inside code blocks, code spans, headings,
"Note (non-normative)" paragraphs, examples, the key-word boilerplate and the
Notational Conventions sections are not requirements.

Each requirement carries an id, an empty HTML anchor at the start of its
sentence, ``<a id="R-CORE-042"></a>``: invisible on GitHub, a link target
(``core.md#R-CORE-042``) and the same convention as the section anchors. The
prefix names the document (:data:`DOCUMENTS`), the number counts up within it.
Ids are never renumbered: a new requirement takes the next number above every
id in use or retired (:func:`assign_ids`), and a removed one is listed as
retired in the traceability file so that its number is not given again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DOCUMENTS",
    "KEYWORDS",
    "Requirement",
    "Sentence",
    "SpecRequirements",
    "assign_ids",
    "next_numbers",
    "parse_document",
    "read_spec",
]

#: The normative documents of spec/v1 and the prefix of their requirement ids.
#: primer.md and related-formats.md are informative and have none.
DOCUMENTS: Mapping[str, str] = {
    "core.md": "CORE",
    "operations.md": "OPS",
    "json-format.md": "JSON",
    "msgpack-format.md": "MSGPACK",
    "protobuf-format.md": "PROTO",
    "grpc-binding.md": "GRPC",
    "http-binding.md": "HTTP",
    "versioning.md": "VER",
    "security.md": "SEC",
    "adapters/README.md": "ADAPT",
    "adapters/agency-swarm.md": "ASWARM",
    "adapters/agentscope.md": "AGENTSCOPE",
    "adapters/aimem.md": "AIMEM",
    "adapters/autogen.md": "AUTOGEN",
    "adapters/langchain.md": "LANGCHAIN",
    "adapters/langgraph.md": "LANGGRAPH",
    "adapters/letta.md": "LETTA",
    "adapters/mem0.md": "MEM",
    "adapters/metagpt.md": "METAGPT",
    "adapters/mif.md": "MIF",
    "adapters/omi.md": "OMI",
    "adapters/openai.md": "OPENAI",
    "adapters/openai-agents.md": "OAGENTS",
    "adapters/pam.md": "PAM",
}
#: The key words that make a sentence a requirement, longest first.
KEYWORDS = ("MUST NOT", "MUST", "REQUIRED", "SHALL NOT", "SHALL")

ID_PATTERN = re.compile(r"^R-([A-Z]+)-([0-9]{3,})$")
_ID_ANCHOR = re.compile(r'<a id="(R-[A-Z]+-[0-9]+)"></a>')
_KEYWORD = re.compile(r"\b(MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL)\b")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_SECTION = re.compile(r'<a id="([0-9]+(?:\.[0-9]+)*)"></a>')
_ITEM = re.compile(r"[ \t]*(?:[-*+]|[0-9]+\.)\s+")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_QUOTED_KEYWORD = re.compile(r'"(?:MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|'
                             r'RECOMMENDED|NOT RECOMMENDED|MAY|OPTIONAL)"')
_ANY_TAG = re.compile(r"<[^>\n]*>")
#: A sentence ends at ".", "!" or "?" followed by white space and a capital,
#: a digit or an opening mark; "e.g." and "i.e." do not end one.
_BOUNDARY = re.compile(r"(?<!\b[a-z][.][a-z])(?<!\bvs)[.!?][)\"']?(?=\s+[A-Z0-9(`\"\[<*_\0])")


@dataclass(frozen=True)
class Sentence:
    """A sentence of a document: where it is and what it says."""

    document: str
    #: The number of the numbered section it stands in ("4.1"), "" before the first.
    section: str
    #: The unnumbered heading it stands under within the section (a field
    #: name such as "specversion"), "" if none.
    heading: str
    #: Offsets of the sentence in the document's text.
    start: int
    end: int
    #: The line (1-based) where the sentence starts.
    line: int
    #: The sentence, anchors removed and white space collapsed.
    text: str
    #: The key words it uses, in order of first use, each once.
    keywords: tuple[str, ...]
    #: The requirement ids anchored in it.
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Requirement:
    """A tagged requirement."""

    id: str
    sentence: Sentence

    @property
    def document(self) -> str:
        return self.sentence.document

    @property
    def section(self) -> str:
        return self.sentence.section

    @property
    def ref(self) -> str:
        """The section reference, as the vectors cite it: ``core.md#4.1``."""
        return f"{self.document}#{self.section}" if self.section else self.document


@dataclass(frozen=True)
class SpecRequirements:
    """The requirements of a spec folder and what is wrong with their ids."""

    directory: Path
    requirements: tuple[Requirement, ...]
    #: Requirement sentences that carry no id.
    untagged: tuple[Sentence, ...]
    #: Problems with the ids themselves: duplicates, a wrong prefix, an id on
    #: a sentence that is no requirement.
    problems: tuple[str, ...]

    def by_id(self) -> dict[str, Requirement]:
        return {r.id: r for r in self.requirements}


def _blank(match: re.Match[str]) -> str:
    return "\0" * len(match.group(0))


def _mask(text: str) -> str:
    """The text with code spans, quoted key words and HTML tags overwritten
    (same length), so that only key words of the prose are found."""
    text = _CODE_SPAN.sub(_blank, text)
    text = _QUOTED_KEYWORD.sub(_blank, text)
    return _ANY_TAG.sub(_blank, text)


def _skipped_block(first_line: str) -> bool:
    """Informative blocks: notes, examples, the key-word boilerplate."""
    item = _ITEM.match(first_line)
    text = first_line[item.end() if item else 0:].lstrip("| ").lstrip()
    return (text.startswith("Note (non-normative)") or text.startswith("Example")
            or text.startswith('The key words "MUST"'))


def _blocks(text: str) -> Iterator[tuple[int, int, str, str, bool]]:
    """(start, end, section, heading, is_table_row) of every prose block of a
    document: a paragraph, a list item (without its nested items) or a table
    row, outside code blocks and informative parts."""
    section = ""
    heading = ""
    # The abstract and the table of contents, before the first numbered
    # section, state no rules.
    skip_section = True
    in_fence = False
    block_start: int | None = None
    block_end = 0
    block_skipped = False
    offset = 0

    def flush() -> Iterator[tuple[int, int, str, str, bool]]:
        if block_start is not None and not block_skipped and not skip_section:
            yield block_start, block_end, section, heading, False

    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        content = line.rstrip("\r\n")
        if _FENCE.match(content):
            yield from flush()
            block_start = None
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading_match = _HEADING.match(content)
        if heading_match:
            yield from flush()
            block_start = None
            number = _SECTION.search(heading_match.group(2))
            if number:
                section = number.group(1)
                heading = ""
                skip_section = "Notational Conventions" in heading_match.group(2)
            else:
                heading = _ANY_TAG.sub("", heading_match.group(2)).strip()
            continue
        if not content.strip():
            yield from flush()
            block_start = None
            continue
        if content.lstrip().startswith("|"):
            yield from flush()
            block_start = None
            if not skip_section and not set(content) <= set("|-: \t"):
                yield start, start + len(content), section, heading, True
            continue
        if block_start is None or _ITEM.match(content):
            yield from flush()
            block_start = start
            block_skipped = _skipped_block(content)
        block_end = start + len(content)
    yield from flush()


def _segments(masked: str, start: int, end: int, table_row: bool) -> Iterator[tuple[int, int]]:
    """The sentences of one block, as offsets; the cells of a table row are
    split first."""
    pieces: list[tuple[int, int]] = []
    if table_row:
        cell = start
        for i in range(start, end):
            if masked[i] == "|":
                pieces.append((cell, i))
                cell = i + 1
        pieces.append((cell, end))
    else:
        item = _ITEM.match(masked, start)
        pieces.append((item.end() if item else start, end))
    for piece_start, piece_end in pieces:
        sentence_start = piece_start
        for boundary in _BOUNDARY.finditer(masked, piece_start, piece_end):
            yield sentence_start, boundary.end()
            sentence_start = boundary.end()
        yield sentence_start, piece_end


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def parse_document(name: str, text: str) -> list[Sentence]:
    """The sentences of a document that use a key word or carry a requirement id."""
    masked = _mask(text)
    sentences = []
    for block_start, block_end, section, heading, table_row in _blocks(text):
        for start, end in _segments(masked, block_start, block_end, table_row):
            while start < end and (masked[start].isspace() or text[start] == ">"):
                start += 1
            # An anchor is masked but still starts the sentence it tags.
            keywords = tuple(dict.fromkeys(_KEYWORD.findall(masked, start, end)))
            ids = tuple(_ID_ANCHOR.findall(text, start, end))
            if not keywords and not ids:
                continue
            prose = " ".join(_ID_ANCHOR.sub("", text[start:end]).split())
            sentences.append(Sentence(document=name, section=section, heading=heading,
                                      start=start, end=end, line=_line_of(text, start),
                                      text=prose, keywords=keywords, ids=ids))
    return sentences


def read_spec(directory: str | Path) -> SpecRequirements:
    """The requirements of every normative document of a spec/v1 folder."""
    directory = Path(directory)
    requirements: list[Requirement] = []
    untagged: list[Sentence] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for name, prefix in DOCUMENTS.items():
        path = directory / name
        if not path.is_file():
            problems.append(f"{path}: no such document")
            continue
        text = path.read_text("utf-8")
        sentences = parse_document(name, text)
        placed = {(m.start(), m.group(1)) for m in _ID_ANCHOR.finditer(text)}
        within = {(text.index(f'<a id="{i}"></a>', s.start), i)
                  for s in sentences for i in s.ids}
        for offset, stray in sorted(placed - within):
            problems.append(f"{name}:{_line_of(text, offset)}: the id {stray} is not in a "
                            "sentence of the prose (a heading, a code block or an "
                            "informative part)")
        for sentence in sentences:
            where = f"{name}:{sentence.line}"
            if not sentence.keywords:
                problems.append(f"{where}: {', '.join(sentence.ids)} tags a sentence without "
                                "a requirement key word; retire the id or restore the key word")
                continue
            if not sentence.ids:
                untagged.append(sentence)
                continue
            if len(sentence.ids) > 1:
                problems.append(f"{where}: one sentence has several ids "
                                f"({', '.join(sentence.ids)}); keep one, or split the sentence")
            for rid in sentence.ids:
                match = ID_PATTERN.match(rid)
                if match is None or match.group(1) != prefix:
                    problems.append(f"{where}: the id {rid} does not have the form "
                                    f"R-{prefix}-NNN of {name}")
                if rid in seen:
                    problems.append(f"{where}: the id {rid} is also used at {seen[rid]}")
                    continue
                seen[rid] = where
                requirements.append(Requirement(rid, sentence))
    return SpecRequirements(directory, tuple(requirements), tuple(untagged), tuple(problems))


def next_numbers(used: Iterable[str]) -> dict[str, int]:
    """The next free number of every prefix, above every id used or retired."""
    numbers = {prefix: 1 for prefix in DOCUMENTS.values()}
    for rid in used:
        match = ID_PATTERN.match(rid)
        if match and match.group(1) in numbers:
            numbers[match.group(1)] = max(numbers[match.group(1)], int(match.group(2)) + 1)
    return numbers


def assign_ids(directory: str | Path, taken: Iterable[str] = ()) -> list[Requirement]:
    """Give every untagged requirement of a spec folder the next free id of
    its document, in document order, and write the documents back. ``taken``
    are ids that may not be given (the retired ones). The new requirements."""
    directory = Path(directory)
    spec = read_spec(directory)
    numbers = next_numbers([*(r.id for r in spec.requirements), *taken])
    added: list[Requirement] = []
    by_document: dict[str, list[Sentence]] = {}
    for sentence in spec.untagged:
        by_document.setdefault(sentence.document, []).append(sentence)
    for name, sentences in by_document.items():
        prefix = DOCUMENTS[name]
        path = directory / name
        text = path.read_text("utf-8")
        inserts: list[tuple[int, str]] = []
        for sentence in sentences:
            rid = f"R-{prefix}-{numbers[prefix]:03d}"
            numbers[prefix] += 1
            inserts.append((sentence.start, rid))
            added.append(Requirement(rid, sentence))
        for start, rid in sorted(inserts, reverse=True):
            text = f'{text[:start]}<a id="{rid}"></a>{text[start:]}'
        path.write_text(text, "utf-8")
    return added
