#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""A deterministic corpus of memorywire.v1.MemoryRecord documents for the benchmarks.

The records are generated from a seeded random number generator (no network, no
data files) and are in the JSON form of the specification: member names are the
proto field names, enums lowercase strings, timestamps RFC 3339 strings with up
to microsecond precision. Every record is a document of its own and carries
"specversion": "1.0".

The mix follows what agent frameworks store: mostly conversation messages (user,
assistant and tool roles, multi-part text, tool calls with JSON argument strings,
citations), then tool results, facts, episodes, summaries, memory blocks, and a
few tool calls, procedures, emotions and custom records. A typical record without
an embedding is 300 to 600 bytes of compact JSON.

Usage:

    python corpus.py -n 10000 [--embeddings 768] --format jsonl|msgpack|protobuf -o FILE
    python corpus.py -n 1000 --validate            # check every record, write nothing
    python corpus.py -n 1000 --stats               # sizes and kinds

Streams: JSON Lines (one compact JSON document a line), concatenated MessagePack
documents (memorywire.msgpack.encode), or varint-length-delimited Protobuf
messages (memorywire.protobuf.encode).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import math
import random
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

SPECVERSION = "1.0"
DEFAULT_SEED = 20260509
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas" / "v1"

# ---------------------------------------------------------------------------
# Vocabulary. Small on purpose: the text is plausible, not meaningful.

_TOPICS = {
    "billing": (
        "invoice",
        "refund",
        "subscription",
        "payment method",
        "credit card",
        "plan",
        "billing cycle",
        "receipt",
        "charge",
        "discount code",
        "annual plan",
        "tax ID",
    ),
    "travel": (
        "flight",
        "hotel",
        "itinerary",
        "booking",
        "layover",
        "passport",
        "check-in",
        "rental car",
        "boarding pass",
        "seat upgrade",
        "train ticket",
        "visa",
    ),
    "engineering": (
        "deployment",
        "pull request",
        "unit test",
        "stack trace",
        "database migration",
        "API key",
        "build pipeline",
        "memory leak",
        "feature flag",
        "latency",
        "cache",
        "dependency",
        "Kubernetes cluster",
        "log file",
    ),
    "research": (
        "paper",
        "dataset",
        "benchmark",
        "citation",
        "survey",
        "experiment",
        "baseline",
        "ablation",
        "preprint",
        "literature review",
        "figure",
        "appendix",
    ),
    "health": (
        "appointment",
        "prescription",
        "sleep schedule",
        "workout plan",
        "diet",
        "blood pressure",
        "step count",
        "allergy",
        "vitamin D",
        "physiotherapy",
    ),
}

_USER_TEMPLATES = (
    "Can you help me with my {a}? I think something is wrong with the {b}.",
    "What's the status of the {a} we discussed yesterday?",
    "Please compare the {a} and the {b} and tell me which one is better for me.",
    "I need to change the {a} before Friday. Is that still possible?",
    "Why did the {a} fail again? It worked fine last week.",
    "Remind me what we decided about the {a}.",
    "Could you summarise the {a} and list the open questions about the {b}?",
    "My {a} was updated but the {b} still shows the old value.",
    "How long does it usually take to process a {a}?",
    "Find everything related to the {a} from last month, please.",
    "ok thanks",
    "Yes, go ahead with the {a}.",
)

_ASSISTANT_TEMPLATES = (
    "I checked the {a} and everything looks correct. The {b} was updated on {d}.",
    "Here is what I found: the {a} is linked to the {b}, which changed on {d}. "
    "Would you like me to revert it?",
    "The {a} failed because the {b} was not available. I retried and it succeeded.",
    "You have two options. Keep the current {a}, or switch to a new {b}. "
    "The second one is cheaper over a year.",
    "Done. I updated the {a} and sent a confirmation to your email address.",
    "According to the documentation, a {a} takes three to five business days. "
    "Your {b} was submitted on {d}.",
    "I could not find a {a} matching that description. Could you give me the {b}?",
    "Summary so far: the {a} is resolved, the {b} is still open and waiting on review.",
)

_FACT_TEMPLATES = (
    ("User prefers {a} over {b}.", "user", "prefers", "preference"),
    ("User's {a} renews on {d}.", "user", "renews", "fact"),
    ("The {a} is handled by the {b} team.", "{a}", "handled_by", "fact"),
    ("User is allergic to {a}.", "user", "allergic_to", "fact"),
    ("User wants answers about the {a} to be short.", "user", "wants", "preference"),
    ("The {a} depends on the {b}.", "{a}", "depends_on", "fact"),
    ("User lives in {city}.", "user", "lives_in", "fact"),
    ("User likes {a} in the morning.", "user", "likes", "preference"),
)

_CITIES = (
    "Berlin",
    "Lisbon",
    "Osaka",
    "Toronto",
    "Nairobi",
    "Santiago",
    "Melbourne",
    "Zürich",
    "São Paulo",
    "Kraków",
    "Hanoi",
    "Reykjavík",
)
_NAMES = (
    "Alice",
    "Bruno",
    "Chen",
    "Dana",
    "Emeka",
    "Farah",
    "Goran",
    "Hiro",
    "Ines",
    "Jonas",
    "Kavya",
    "Lena",
    "Mateo",
    "Nora",
    "Olu",
    "Priya",
)
_TENANTS = ("acme-corp", "globex", "initech", "umbrella-labs", "hooli", "stark-ind")
_AGENTS = (
    "support-agent",
    "planner",
    "researcher",
    "coder",
    "billing-bot",
    "travel-assistant",
    "triage",
    "reviewer",
)
_TOOLS: dict[str, Callable[[random.Random], Any]] = {
    "get_weather": lambda r: {
        "city": r.choice(_CITIES),
        "unit": r.choice(("celsius", "fahrenheit")),
    },
    "search_docs": lambda r: {"query": _phrase(r), "top_k": r.choice((3, 5, 10))},
    "lookup_invoice": lambda r: {"invoice_id": f"INV-{r.randrange(10000, 99999)}"},
    "create_ticket": lambda r: {
        "title": _phrase(r).capitalize(),
        "priority": r.choice(("low", "medium", "high")),
        "labels": r.sample(("bug", "billing", "urgent", "customer", "backend"), 2),
    },
    "run_sql": lambda r: {
        "query": f"SELECT id, status FROM orders WHERE customer_id = {r.randrange(1, 9999)} "
        f"ORDER BY created_at DESC LIMIT {r.choice((5, 10, 20))}",
    },
    "book_flight": lambda r: {
        "from": r.choice(("BER", "LIS", "KIX", "YYZ", "NBO")),
        "to": r.choice(("SCL", "MEL", "ZRH", "GRU", "KRK")),
        "date": f"2025-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d}",
        "passengers": r.randrange(1, 4),
    },
    "web_search": lambda r: {"q": _phrase(r)},
    "read_file": lambda r: {
        "path": f"src/{r.choice(('api', 'core', 'db', 'ui'))}/"
        f"{r.choice(('main', 'utils', 'models', 'handlers'))}.py"
    },
}
_SITES = (
    ("https://docs.example.com/guide/{s}", "Guide: {t}"),
    ("https://en.wikipedia.org/wiki/{s}", "{t} - Wikipedia"),
    ("https://arxiv.org/abs/24{n:02d}.{m:05d}", "{t}: a study"),
    ("https://support.example.org/kb/{n}{m}", "Knowledge base: {t}"),
)
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_EPOCH = _dt.datetime(1970, 1, 1)
_START_MICROS = 1_740_816_000_000_000  # 2025-03-01T08:00:00Z


def _phrase(r: random.Random) -> str:
    words = r.choice(tuple(_TOPICS.values()))
    return " ".join(r.sample(words, 2))


def _slug(text: str) -> str:
    return "_".join(w.capitalize() for w in text.split())


def _timestamp(micros: int) -> str:
    """RFC 3339 in the canonical form: no fraction when zero, else 3 or 6 digits."""
    t = _EPOCH + _dt.timedelta(microseconds=micros)
    base = t.strftime("%Y-%m-%dT%H:%M:%S")
    frac = micros % 1_000_000
    if frac == 0:
        return base + "Z"
    if frac % 1000 == 0:
        return f"{base}.{frac // 1000:03d}Z"
    return f"{base}.{frac:06d}Z"


def to_float32(values: list[float]) -> list[float]:
    """Round every value to the nearest IEEE 754 binary32, returned as Python floats."""
    n = len(values)
    return list(struct.unpack(f"<{n}f", struct.pack(f"<{n}f", *values)))


def canonical_json(value: Any) -> bytes:
    """Canonical JSON (json-format.md section 7) for the values this generator produces.

    Python's json module matches the canonical form for sorted keys, string escaping
    and integers; floats match ECMAScript Number::toString for the magnitudes used
    here (0.01 <= |x| < 1e16). Used for provenance.content_hash.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# ---------------------------------------------------------------------------
# The generator.

KIND_WEIGHTS: tuple[tuple[str, float], ...] = (
    ("message", 0.52),
    ("tool_result", 0.11),
    ("fact", 0.10),
    ("episode", 0.06),
    ("summary", 0.05),
    ("block", 0.04),
    ("tool_call", 0.04),
    ("procedure", 0.03),
    ("emotion", 0.025),
    ("custom", 0.025),
)

_EMBED_MODELS = {
    384: "all-MiniLM-L6-v2",
    768: "nomic-embed-text-v1.5",
    1024: "mxbai-embed-large-v1",
    1536: "text-embedding-3-small",
    3072: "text-embedding-3-large",
}


class CorpusGenerator:
    """Generates records one by one; the same seed gives the same records."""

    def __init__(self, seed: int = DEFAULT_SEED, embeddings: int = 0) -> None:
        self.r = random.Random(seed)
        self.embeddings = embeddings
        self.embed_model = _EMBED_MODELS.get(embeddings, f"example-embed-{embeddings}")
        self.sequence = 0
        self.clock = _START_MICROS
        self.kinds = [k for k, _ in KIND_WEIGHTS]
        self.cum_weights = list(_cumulative(w for _, w in KIND_WEIGHTS))
        self.recent_ids: list[str] = []
        self.pending_calls: list[tuple[str, str]] = []
        self.users = [f"user_{self.r.randrange(1000, 99999)}" for _ in range(400)]
        self.sessions: list[dict[str, str]] = []
        self._new_session()

    # -- helpers -------------------------------------------------------------

    def _id(self, prefix: str = "mem_") -> str:
        # ULID-shaped: 10 characters of time, 16 of randomness.
        ms = self.clock // 1000
        t = "".join(_CROCKFORD[(ms >> s) & 31] for s in range(45, -1, -5))
        rnd = self.r.getrandbits(80)
        return prefix + t + "".join(_CROCKFORD[(rnd >> s) & 31] for s in range(75, -1, -5))

    def _call_id(self) -> str:
        alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        return "call_" + "".join(self.r.choice(alphabet) for _ in range(24))

    def _new_session(self) -> None:
        r = self.r
        tenant = r.choice(_TENANTS)
        self.session = {
            "tenant": tenant,
            "user": r.choice(self.users),
            "agent": r.choice(_AGENTS),
            "session": f"sess_{r.getrandbits(48):012x}",
            "topic": r.choice(tuple(_TOPICS)),
        }
        self.session_turns = r.randrange(4, 40)

    def _words(self) -> tuple[str, str]:
        a, b = self.r.sample(_TOPICS[self.session["topic"]], 2)
        return a, b

    def _fill(self, template: str) -> str:
        a, b = self._words()
        d = _timestamp(self.clock - self.r.randrange(1, 30) * 86_400_000_000)[:10]
        return template.format(a=a, b=b, d=d, city=self.r.choice(_CITIES))

    def _sentences(self, templates: tuple[str, ...], lo: int, hi: int) -> str:
        return " ".join(self._fill(self.r.choice(templates)) for _ in range(self.r.randint(lo, hi)))

    def _tick(self) -> int:
        # Mostly seconds apart within a session, sometimes a long pause.
        r = self.r
        gap = r.expovariate(1 / 4.0) if r.random() < 0.9 else r.expovariate(1 / 3600.0)
        self.clock += int(gap * 1_000_000) + r.randrange(1, 1000)
        if r.random() < 0.02:  # a few producers write millisecond precision
            self.clock -= self.clock % 1000
        return self.clock

    # -- one record ----------------------------------------------------------

    def record(self) -> dict[str, Any]:
        r = self.r
        self.session_turns -= 1
        if self.session_turns <= 0:
            self._new_session()
        self.sequence += 1
        created = self._tick()
        kind = r.choices(self.kinds, cum_weights=self.cum_weights)[0]
        s = self.session

        rec: dict[str, Any] = {"specversion": SPECVERSION, "id": self._id(), "kind": kind}
        scope: dict[str, Any] = {"tenant": s["tenant"], "user": s["user"]}
        if kind not in ("fact", "block") or r.random() < 0.5:
            scope["agent"] = s["agent"]
        if kind in ("message", "tool_call", "tool_result", "episode", "emotion"):
            scope["session"] = s["session"]
        if kind == "custom":
            scope["namespace"] = [s["user"], "memories"]
        rec["scope"] = scope
        rec["sequence"] = self.sequence
        revision = 1 if r.random() < 0.9 else r.randrange(2, 6)
        rec["revision"] = revision
        rec["created_at"] = _timestamp(created)
        if revision > 1:
            rec["updated_at"] = _timestamp(created + r.randrange(1_000_000, 86_400_000_000))

        payload_maker: Callable[[dict[str, Any]], Any] = getattr(self, "_" + kind)
        rec[kind] = payload_maker(rec)

        if (
            kind in ("message", "tool_call", "tool_result") and r.random() < 0.6
        ) or r.random() < 0.1:
            routing: dict[str, Any] = {"agent": s["agent"]}
            if r.random() < 0.25:
                routing["caller_agent"] = r.choice([a for a in _AGENTS if a != s["agent"]])
            if r.random() < 0.05:
                routing["trace_id"] = f"{r.getrandbits(128):032x}"
            rec["routing"] = routing

        if kind in ("summary",) or (self.recent_ids and r.random() < 0.08):
            link_type = {"summary": "summarizes"}.get(
                kind, r.choice(("responds_to", "derived_from", "references", "supersedes"))
            )
            targets = (
                rec["summary"]["covers"][:3] if kind == "summary" else [r.choice(self.recent_ids)]
            )
            rec["links"] = [{"type": link_type, "target": t} for t in targets]

        lifecycle: dict[str, Any] = {}
        if kind != "message" or r.random() < 0.3:
            lifecycle["importance"] = round(r.uniform(0.05, 1.0), 2)
        if kind in ("fact", "summary") and r.random() < 0.6:
            lifecycle["confidence"] = round(r.uniform(0.5, 1.0), 2)
        if r.random() < 0.3:
            lifecycle["access_count"] = r.randrange(1, 200)
            if r.random() < 0.5:
                lifecycle["last_accessed_at"] = _timestamp(created + r.randrange(1, 10**11))
        if r.random() < 0.05:
            lifecycle["status"] = r.choice(("archived", "pending_approval"))
        if kind == "block" and r.random() < 0.5:
            lifecycle["pinned"] = True
        if r.random() < 0.05:
            lifecycle["expires_at"] = _timestamp(created + 30 * 86_400_000_000)
        if lifecycle:
            rec["lifecycle"] = lifecycle

        origin = {
            "message": {"user": "user", "tool": "tool"}.get(
                rec["message"]["role"] if kind == "message" else "", "agent"
            ),
            "tool_result": "tool",
            "block": "system",
        }.get(kind, "agent")
        if r.random() < 0.5:
            prov: dict[str, Any] = {"origin": origin}
            prov["trust"] = {"user": "unverified", "tool": "untrusted", "system": "system"}.get(
                origin, r.choice(("unverified", "verified"))
            )
            if r.random() < 0.12:
                prov["content_hash"] = (
                    "sha256:" + hashlib.sha256(canonical_json(rec[kind])).hexdigest()
                )
            if kind in ("fact", "episode") and r.random() < 0.5:
                prov["actor"] = s["agent"]
            rec["provenance"] = prov

        if r.random() < 0.3:
            meta: dict[str, Any] = {}
            if r.random() < 0.6:
                meta["channel"] = r.choice(("web", "slack", "email", "api", "mobile"))
            if r.random() < 0.4:
                meta["turn"] = r.randrange(1, 60)
            if r.random() < 0.2:
                meta["lang"] = r.choice(("en", "de", "pt", "ja", "fr"))
            if r.random() < 0.15:
                meta["latency_ms"] = round(r.uniform(80, 4000), 1)
            if r.random() < 0.1:
                meta["flags"] = {"beta": r.random() < 0.5, "source": "import"}
            if meta:
                rec["metadata"] = meta
        if r.random() < 0.12:
            rec["tags"] = r.sample(
                ("important", "todo", "followup", s["topic"], "reviewed", "pii"), r.randint(1, 2)
            )
        if r.random() < 0.03:
            rec["extensions"] = {"example.com.priority": r.randrange(1, 5)}
        if kind == "message" and r.random() < 0.03:
            rec["native"] = {
                "framework": "agency-swarm",
                "framework_version": "1.0.2",
                "format": "responses",
                "record": {"type": "message", "agent": s["agent"], "timestamp": created // 1000},
            }

        if self.embeddings:
            rec["embeddings"] = [self._embedding(kind)]

        self.recent_ids.append(rec["id"])
        if len(self.recent_ids) > 50:
            del self.recent_ids[:25]
        return rec

    def _embedding(self, kind: str) -> dict[str, Any]:
        dim = self.embeddings
        gauss = self.r.gauss
        raw = [gauss(0.0, 1.0) for _ in range(dim)]
        norm = math.sqrt(sum(v * v for v in raw)) or 1.0
        values = to_float32([v / norm for v in raw])
        emb: dict[str, Any] = {"model": self.embed_model, "dimensions": dim, "values": values}
        field = {
            "fact": "/fact/text",
            "episode": "/episode/text",
            "summary": "/summary/text",
            "message": "/message/content",
        }.get(kind)
        if field:
            emb["field"] = field
        return emb

    # -- payloads ------------------------------------------------------------

    def _tool_call_obj(self) -> dict[str, Any]:
        r = self.r
        name = r.choice(tuple(_TOOLS))
        call_id = self._call_id()
        self.pending_calls.append((call_id, name))
        if len(self.pending_calls) > 20:
            del self.pending_calls[:10]
        call: dict[str, Any] = {
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps(_TOOLS[name](r), ensure_ascii=False),
        }
        if name == "web_search":
            call["tool_type"] = "web_search"
        if r.random() < 0.5:
            call["status"] = "completed"
        return call

    def _text_part(self, text: str) -> dict[str, Any]:
        return {"text": {"text": text}}

    def _message(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        role = r.choices(("user", "assistant", "tool", "system"), (0.42, 0.45, 0.1, 0.03))[0]
        msg: dict[str, Any] = {"role": role}
        content: list[dict[str, Any]] = []
        if role == "user":
            if r.random() < 0.3:
                msg["name"] = r.choice(_NAMES)
            content.append(
                self._text_part(self._sentences(_USER_TEMPLATES, 1, 1 if r.random() < 0.7 else 2))
            )
            if r.random() < 0.12:
                content.append(self._text_part(self._sentences(_USER_TEMPLATES, 1, 1)))
            if r.random() < 0.05:
                content.append(
                    {
                        "image": {
                            "uri": f"https://files.example.com/u/{r.getrandbits(48):012x}.png",
                            "media_type": "image/png",
                            "detail": "auto",
                        }
                    }
                )
        elif role == "assistant":
            msg["name"] = self.session["agent"]
            if r.random() < 0.5:
                msg["status"] = "completed"
            if r.random() < 0.03:
                content.append(
                    {"reasoning": {"summary": [self._fill("Check the {a} first, then the {b}.")]}}
                )
            if r.random() < 0.35:
                if r.random() < 0.4:
                    content.append(self._text_part(self._fill("Let me look up the {a} for you.")))
                for _ in range(1 if r.random() < 0.85 else 2):
                    content.append({"tool_call": self._tool_call_obj()})
            else:
                text = self._sentences(_ASSISTANT_TEMPLATES, 1, 1 if r.random() < 0.75 else 2)
                part = self._text_part(text)
                if r.random() < 0.12:
                    url, title = r.choice(_SITES)
                    a, _ = self._words()
                    start = r.randrange(0, max(1, len(text) - 20))
                    part["text"]["annotations"] = [
                        {
                            "type": "url_citation",
                            "url": url.format(
                                s=_slug(a), n=r.randrange(10, 99), m=r.randrange(10000)
                            ),
                            "title": title.format(t=a.capitalize()),
                            "start_index": start,
                            "end_index": min(len(text), start + r.randrange(10, 60)),
                        }
                    ]
                content.append(part)
                if r.random() < 0.1:
                    content.append(self._text_part(self._fill("Anything else about the {a}?")))
                if r.random() < 0.05:
                    msg["citations"] = [
                        {
                            "type": "file_citation",
                            "file_id": f"file-{r.getrandbits(64):016x}",
                            "filename": f"{self._words()[0].replace(' ', '_')}.pdf",
                            "index": 0,
                        }
                    ]
                if r.random() < 0.2:
                    msg["phase"] = "final_answer"
        elif role == "tool":
            call_id, name = self._take_call()
            tr: dict[str, Any] = {
                "call_id": call_id,
                "name": name,
                "output": self._tool_output(name),
            }
            if r.random() < 0.5:
                tr["status"] = "success"
            content.append({"tool_result": tr})
        else:
            content.append(
                self._text_part(
                    f"You are {self.session['agent']}, "
                    f"a helpful assistant for {self.session['tenant']}. "
                    f"Answer questions about {self.session['topic']} briefly and cite your sources."
                )
            )
        msg["content"] = content
        return msg

    def _take_call(self) -> tuple[str, str]:
        if self.pending_calls:
            return self.pending_calls.pop(self.r.randrange(len(self.pending_calls)))
        return self._call_id(), self.r.choice(tuple(_TOOLS))

    def _tool_output(self, name: str) -> str:
        r = self.r
        if name == "get_weather":
            out: Any = {
                "temperature": round(r.uniform(-10, 35), 1),
                "conditions": r.choice(("sunny", "rain", "cloudy")),
            }
        elif name in ("search_docs", "web_search"):
            out = [
                {"title": self._fill("About the {a}"), "score": round(r.uniform(0.2, 1.0), 3)}
                for _ in range(r.randint(1, 3))
            ]
        elif name == "lookup_invoice":
            out = {
                "status": r.choice(("paid", "open", "overdue")),
                "amount": round(r.uniform(5, 900), 2),
                "currency": r.choice(("EUR", "USD", "BRL")),
            }
        elif name == "run_sql":
            out = [
                [r.randrange(1, 10**6), r.choice(("shipped", "pending", "cancelled"))]
                for _ in range(r.randint(1, 4))
            ]
        else:
            out = {"ok": True, "id": f"{r.getrandbits(40):010x}"}
        return json.dumps(out, ensure_ascii=False)

    def _tool_call(self, rec: dict[str, Any]) -> dict[str, Any]:
        return self._tool_call_obj()

    def _tool_result(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        call_id, name = self._take_call()
        res: dict[str, Any] = {"call_id": call_id, "name": name}
        if r.random() < 0.9:
            res["output"] = self._tool_output(name)
            res["status"] = "success"
        else:
            res["status"] = "error"
            res["error"] = r.choice(
                (
                    "timeout after 30s",
                    "HTTP 503 Service Unavailable",
                    "permission denied",
                    "invalid arguments: missing field",
                )
            )
            if r.random() < 0.5:
                res["stderr"] = (
                    "Traceback (most recent call last):\n  ...\nRuntimeError: " + res["error"]
                )
        res["duration_micros"] = r.randrange(2_000, 5_000_000)
        if r.random() < 0.1:
            res["artifact"] = {"rows": r.randrange(0, 500), "cached": r.random() < 0.5}
        return res

    def _fact(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        template, subject, predicate, category = r.choice(_FACT_TEMPLATES)
        a, b = self._words()
        city = r.choice(_CITIES)
        text = template.format(a=a, b=b, d="2025-06-01", city=city)
        fact: dict[str, Any] = {"text": text}
        if r.random() < 0.6:
            fact["subject"] = subject.format(a=a)
            fact["predicate"] = predicate
            fact["object"] = city if "{city}" in template else (b if "{b}" in template else a)
        if r.random() < 0.8:
            fact["category"] = category
        if r.random() < 0.3:
            rec["key"] = f"{predicate}:{a.replace(' ', '_')}"
        return fact

    def _episode(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        start = self.clock - r.randrange(60, 86_400) * 1_000_000
        ep: dict[str, Any] = {
            "text": self._fill(
                r.choice(_NAMES) + " and the agent worked on the {a}; the {b} was fixed."
            ),
            "event_time": _timestamp(start),
        }
        if r.random() < 0.6:
            ep["end_time"] = _timestamp(start + r.randrange(60, 7200) * 1_000_000)
        ep["participants"] = [self.session["user"], self.session["agent"]]
        if r.random() < 0.3:
            ep["location"] = r.choice(_CITIES)
        if r.random() < 0.6:
            ep["outcome"] = r.choice(("resolved", "escalated", "waiting on the user", "abandoned"))
        return ep

    def _summary(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        k = r.randint(2, 4)
        covers = list(self.recent_ids[-k:]) or [self._id()]
        first = max(1, self.sequence - len(covers) - r.randrange(0, 10))
        return {
            "text": self._sentences(_ASSISTANT_TEMPLATES, 1, 1),
            "covers": covers,
            "first_sequence": first,
            "last_sequence": self.sequence - 1 if self.sequence > 1 else 1,
        }

    def _block(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        label = r.choice(("human", "persona", "system/persona", "project", "preferences"))
        if label == "human":
            value = f"Name: {r.choice(_NAMES)}. Lives in {r.choice(_CITIES)}. " + self._fill(
                "Interested in the {a} and the {b}."
            )
        elif label.endswith("persona"):
            value = (
                f"I am {self.session['agent']}. I am concise, friendly and I always cite sources."
            )
        else:
            value = self._fill("Current focus: the {a}. Known issue: the {b}.")
        block: dict[str, Any] = {
            "label": label,
            "value": value,
            "limit": r.choice((2000, 5000, 8000)),
        }
        if label.endswith("persona"):
            block["read_only"] = True
        if r.random() < 0.3:
            block["description"] = f"The {label} block of the agent's core memory."
        rec["key"] = f"block:{label}"
        return block

    def _procedure(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        a, _ = self._words()
        states = ["start", "collect_details", "verify", "execute", "done"]
        transitions = [
            {"trigger": "begin", "source": "start", "target": "collect_details"},
            {"trigger": "details_complete", "source": "collect_details", "target": "verify"},
            {"trigger": "verified", "source": "verify", "target": "execute"},
            {"trigger": "finished", "source": "execute", "target": "done"},
        ]
        if r.random() < 0.5:
            transitions.append({"trigger": "cancel", "source": "*", "target": "done"})
        return {
            "name": "handle_" + a.replace(" ", "_").replace("-", "_").lower(),
            "description": f"How to handle a request about the {a}.",
            "states": states,
            "initial_state": "start",
            "current_state": r.choice(states),
            "transitions": transitions,
        }

    def _emotion(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        sentiment = r.choice(("positive", "negative", "neutral", "mixed"))
        valence = {"positive": 0.6, "negative": -0.6, "neutral": 0.0, "mixed": 0.1}[sentiment]
        mood = "happy" if valence > 0.3 else "frustrated" if valence < -0.3 else "calm"
        a, _ = self._words()
        emo: dict[str, Any] = {
            "text": f"The user sounded {mood} about the {a}.",
            "sentiment": sentiment,
            "valence": round(max(-1.0, min(1.0, valence + r.uniform(-0.3, 0.3))), 2),
            "arousal": round(r.uniform(0.05, 0.95), 2),
            "target": a,
        }
        if r.random() < 0.6:
            emo["emotion"] = {
                "positive": "joy",
                "negative": "frustration",
                "neutral": "calm",
                "mixed": "ambivalence",
            }[sentiment]
        return emo

    def _custom(self, rec: dict[str, Any]) -> dict[str, Any]:
        r = self.r
        a, b = self._words()
        rec["key"] = f"{a.replace(' ', '-')}-{r.getrandbits(24):06x}"
        return {
            "type": "langgraph.item",
            "schema": "https://example.com/schemas/memory-item.json",
            "value": {
                "content": self._fill("Remember the {a} for later."),
                "importance": r.randrange(1, 6),
                "related": [b],
                "done": False,
            },
        }


def _cumulative(weights: Iterable[float]) -> Iterator[float]:
    total = 0.0
    for w in weights:
        total += w
        yield total


def generate(
    n: int = 10_000, *, seed: int = DEFAULT_SEED, embeddings: int = 0
) -> Iterator[dict[str, Any]]:
    """Yield n records; the same arguments give the same records."""
    gen = CorpusGenerator(seed=seed, embeddings=embeddings)
    for _ in range(n):
        yield gen.record()


def corpus(
    n: int = 10_000, *, seed: int = DEFAULT_SEED, embeddings: int = 0
) -> list[dict[str, Any]]:
    return list(generate(n, seed=seed, embeddings=embeddings))


# ---------------------------------------------------------------------------
# Encoding and validation.


def dumps_json(doc: dict[str, Any]) -> bytes:
    """Compact JSON (not necessarily canonical) of one document."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encoder_for(fmt: str) -> Callable[[dict[str, Any]], bytes]:
    """A function writing one document as it goes in a stream of the given format."""
    if fmt == "jsonl":
        return lambda doc: dumps_json(doc) + b"\n"
    if fmt == "msgpack":
        import memorywire.msgpack as mwmp  # type: ignore[import-not-found,unused-ignore]

        return mwmp.encode
    if fmt == "protobuf":
        import memorywire.protobuf as mwpb  # type: ignore[import-not-found,unused-ignore]

        def delimited(doc: dict[str, Any]) -> bytes:
            data: bytes = mwpb.encode(doc)
            return varint(len(data)) + data

        return delimited
    raise ValueError(f"unknown format {fmt!r}")


def write_stream(docs: Iterable[dict[str, Any]], fmt: str, out: BinaryIO) -> int:
    enc = encoder_for(fmt)
    count = 0
    for doc in docs:
        out.write(enc(doc))
        count += 1
    return count


def schema_validator(schema_dir: Path = SCHEMA_DIR) -> Any:
    """A precompiled Draft 2020-12 validator of the record-document schema."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]
    from referencing import Registry, Resource

    resources = []
    for path in sorted(schema_dir.glob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    registry: Registry[Any] = Registry().with_resources(resources)
    root = json.loads((schema_dir / "record-document.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(root, registry=registry)


def memorywire_validate() -> Callable[[dict[str, Any]], None] | None:
    """memorywire.validate per the API contract (or, failing that, memorywire.validate.validate)."""
    try:
        import memorywire
    except ImportError:
        return None
    fn = getattr(memorywire, "validate", None)
    if fn is None:
        try:
            import memorywire.validate as fn  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            return None
    if not callable(fn):  # the submodule, not the function
        fn = getattr(fn, "validate", None)
    return fn  # type: ignore[no-any-return,unused-ignore]


def validate_all(
    docs: Iterable[dict[str, Any]], *, use: str = "auto"
) -> tuple[str, int, list[str]]:
    """Validate every document; returns (validator used, count, error strings)."""
    mw = memorywire_validate() if use in ("auto", "memorywire") else None
    if use == "memorywire" and mw is None:
        raise SystemExit("memorywire.validate is not available")
    errors: list[str] = []
    count = 0
    if mw is not None:
        name = "memorywire.validate"
        for i, doc in enumerate(docs):
            count += 1
            try:
                mw(doc)
            except Exception as exc:  # noqa: BLE001 - report whatever the validator raises
                errors.append(f"record {i} ({doc.get('kind')}): {exc!r}")
    else:
        name = "jsonschema Draft202012Validator(record-document)"
        v = schema_validator()
        for i, doc in enumerate(docs):
            count += 1
            for err in v.iter_errors(doc):
                errors.append(
                    f"record {i} ({doc.get('kind')}): /{'/'.join(map(str, err.absolute_path))}: "
                    f"{err.message[:200]}"
                )
    return name, count, errors


def _stats(docs: list[dict[str, Any]]) -> None:
    import statistics
    from collections import Counter

    sizes = [len(dumps_json(d)) for d in docs]
    kinds = Counter(d["kind"] for d in docs)
    roles = Counter(d["message"]["role"] for d in docs if d["kind"] == "message")
    q = statistics.quantiles(sizes, n=20) if len(sizes) > 1 else sizes * 19
    print(
        f"records: {len(docs)}  JSON bytes: total {sum(sizes)}, "
        f"mean {statistics.fmean(sizes):.0f}, "
        f"median {statistics.median(sizes):.0f}, p5 {q[0]:.0f}, p95 {q[-1]:.0f}, max {max(sizes)}"
    )
    in_range = sum(300 <= s <= 600 for s in sizes)
    print(f"300..600 bytes: {in_range / len(sizes):.0%}")
    for k, c in kinds.most_common():
        ks = [s for s, d in zip(sizes, docs, strict=True) if d["kind"] == k]
        print(f"  {k:12s} {c:7d} {c / len(docs):6.1%}  median {statistics.median(ks):.0f} B")
    print("  message roles:", dict(roles.most_common()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-n", type=int, default=10_000, help="number of records (default 10000)")
    p.add_argument(
        "--embeddings",
        type=int,
        default=0,
        metavar="DIM",
        help="add one embedding of DIM float32 values to every record",
    )
    p.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})"
    )
    p.add_argument("--format", choices=("jsonl", "msgpack", "protobuf"), default="jsonl")
    p.add_argument("-o", "--output", help="output file (default: standard output)")
    p.add_argument(
        "--validate",
        choices=("auto", "memorywire", "jsonschema"),
        nargs="?",
        const="auto",
        help="validate every record (memorywire.validate if it exists, else jsonschema) "
        "and write nothing unless -o is given",
    )
    p.add_argument("--stats", action="store_true", help="print sizes and kinds, write nothing")
    args = p.parse_args(argv)
    if args.embeddings < 0 or args.embeddings > 65536:
        p.error("--embeddings must be in 0..65536")

    if args.stats or args.validate:
        docs = corpus(args.n, seed=args.seed, embeddings=args.embeddings)
        if args.stats:
            _stats(docs)
        if args.validate:
            name, count, errors = validate_all(docs, use=args.validate)
            print(f"validated {count} records with {name}: {len(errors)} errors", file=sys.stderr)
            for e in errors[:20]:
                print("  " + e, file=sys.stderr)
            if errors:
                return 1
        if not args.output:
            return 0

    docs_iter = generate(args.n, seed=args.seed, embeddings=args.embeddings)
    if args.output:
        with open(args.output, "wb") as out:
            count = write_stream(docs_iter, args.format, out)
        print(f"wrote {count} records ({args.format}) to {args.output}", file=sys.stderr)
    else:
        write_stream(docs_iter, args.format, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
