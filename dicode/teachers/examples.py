"""Choosing example levels for a prompt: the archive levels most similar to a description.

With an embedding endpoint configured (``/v1/embeddings``) similarity is the cosine of
embeddings, as in the paper; otherwise — or when that endpoint fails — a local TF-IDF cosine in
NumPy, which needs no network and no model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dicode.llm.client import LLMClient
from dicode.teachers.base import ExampleLevel

_TOKEN = re.compile(r"[a-z]+|\d+")


def tokenize(text: str) -> list[str]:
    """Lower-case words and numbers; numbers matter here ("4 lines", "well at 9")."""
    return _TOKEN.findall(text.lower())


def tfidf_matrix(texts: Sequence[str]) -> np.ndarray:
    """Rows = L2-normalised TF-IDF vectors of ``texts`` (smoothed idf, sublinear tf)."""
    docs = [Counter(tokenize(t)) for t in texts]
    vocab = sorted({w for d in docs for w in d})
    index = {w: i for i, w in enumerate(vocab)}
    counts = np.zeros((len(docs), len(vocab)), dtype=np.float64)
    for row, doc in enumerate(docs):
        for word, n in doc.items():
            counts[row, index[word]] = 1.0 + math.log(n)
    df = (counts > 0).sum(axis=0)
    idf = np.log((1 + len(docs)) / (1 + df)) + 1.0
    weighted = counts * idf
    norms = np.linalg.norm(weighted, axis=1, keepdims=True)
    return weighted / np.where(norms == 0, 1.0, norms)


def _top_k(similarity: np.ndarray, k: int) -> list[int]:
    # Stable: ties keep archive order, so retrieval is deterministic.
    order = np.argsort(-similarity, kind="stable")
    return [int(i) for i in order[:k]]


def lexical_similar(
    query: str, candidates: Sequence[ExampleLevel], k: int
) -> list[ExampleLevel]:
    """The ``k`` candidates whose descriptions are closest to ``query`` by TF-IDF cosine."""
    if not candidates or k <= 0:
        return []
    matrix = tfidf_matrix([query, *(c.description for c in candidates)])
    return [candidates[i] for i in _top_k(matrix[1:] @ matrix[0], k)]


@dataclass
class Retrieval:
    """Chosen examples and how they were chosen (recorded with the attempt)."""

    examples: list[ExampleLevel]
    method: str  # "embedding" or "lexical"
    note: str | None = None  # why the embedding path was not used, if it was configured


class ExampleRetriever:
    """Embedding similarity when the client has an embedding model, else lexical."""

    def __init__(self, client: LLMClient | None = None) -> None:
        self._client = client

    async def similar(
        self, query: str, candidates: Sequence[ExampleLevel], k: int
    ) -> Retrieval:
        if not candidates or k <= 0:
            return Retrieval([], "lexical")
        if self._client is None or self._client.config.embedding_model is None:
            return Retrieval(lexical_similar(query, candidates, k), "lexical")
        embedded = await self._client.embed([query, *(c.description for c in candidates)])
        if not embedded.ok or embedded.vectors is None:
            note = f"embedding endpoint failed, used lexical similarity: {embedded.error}"
            return Retrieval(lexical_similar(query, candidates, k), "lexical", note)
        vectors = np.asarray(embedded.vectors, dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms == 0, 1.0, norms)
        chosen = _top_k(vectors[1:] @ vectors[0], k)
        return Retrieval([candidates[i] for i in chosen], "embedding")
