"""The LLM player: the model chooses the placement itself (the field report's announced next step).

Each turn the model gets the enumerated legal placements of the current piece as a numbered list
(with the resulting board of each, or the board once and the moves) and answers
``{"choice": n}`` under structured output. When the answer is unusable — not JSON or not the
schema (``unparseable``), a number outside the list (``out_of_range``; every listed number is a
legal placement, so this is also what an illegal pick looks like), or a call that failed after
the client's retries (the client's kind: ``timeout``, ``server_error``, ``empty_answer``, …) — the
move is a **fallback**, counted with its kind and reason. The fallback rule is by default
``first_legal``: the first legal placement in action order, exactly ``--policy first_legal``
(``make_policy("first_legal")``), a deliberately dumb move, so that a model which never answers
usably scores what ``first_legal`` scores and the figure measures the model. ``bcts`` (the BCTS
planner's move) is available only when asked for explicitly; the report names the rule in its
policy label (``llm (fallback: first_legal)``) and splits the moves into the model's and the
fallback's.

Evaluation follows the target protocol of ``dicode.domains.tetris.evaluate`` (same keys per game
and step, same caps and metrics) but runs outside ``jax.jit``, one game step at a time, because
every move is a network call; games are played concurrently up to the client's concurrency.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris import engine
from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.evaluate import protocol_report
from dicode.domains.tetris.judges.benchmark import outcome_of
from dicode.domains.tetris.judges.candidates import (
    Candidates,
    bcts_action,
    enumerate_candidates,
    policy_action,
)
from dicode.domains.tetris.judges.prompts import ChoiceAnswer, choice_messages, choice_schema
from dicode.llm.client import ChatResult, LLMClient
from dicode.llm.structured import StructuredOutput as Structured
from dicode.llm.structured import parse_json_model
from dicode.llm.structured import response_format as make_response_format

Fallback = Literal["first_legal", "bcts"]
#: The rules an unusable answer can fall back to; the first is the default.
FALLBACK_RULES: tuple[Fallback, ...] = ("first_legal", "bcts")


def first_legal_action(board: np.ndarray, piece: int) -> int:
    """The first legal placement in action order (exactly what ``--policy first_legal`` plays)."""
    return policy_action("first_legal", board, piece)


def fallback_rule(name: str) -> Fallback:
    """Check a fallback rule given as text (CLI options)."""
    for rule in FALLBACK_RULES:
        if name == rule:
            return rule
    raise ValueError(f"unknown fallback rule {name!r}; use one of {', '.join(FALLBACK_RULES)}")


def policy_label(rule: str) -> str:
    """The report's policy name: the LLM player always names its fallback rule."""
    return f"llm (fallback: {rule})"


@dataclass(frozen=True)
class PlayerSettings:
    """How the LLM player asks and what it does with a bad answer."""

    show: Literal["afterstates", "moves"] = "afterstates"
    fallback: Fallback = "first_legal"
    structured: Structured = "json_schema"
    temperature: float = 0.0
    max_tokens: int = 24
    seed: int = 0


@dataclass(frozen=True)
class Decision:
    """One move: the action played, and whether (and why) it was a fallback."""

    action: int
    fallback: bool
    asked: bool = True  # False when no placement was legal (nothing to ask)
    error_kind: str | None = None
    error: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class LLMPlayer:
    """Chooses placements by asking a chat model to pick from the numbered legal ones."""

    def __init__(self, client: LLMClient, settings: PlayerSettings | None = None) -> None:
        self.client = client
        self.settings = settings or PlayerSettings()

    async def choose(self, board: np.ndarray, piece: int, next_piece: int | None) -> Decision:
        """The action for ``piece`` on ``board``; -1 only if no placement is legal."""
        candidates = enumerate_candidates(np.asarray(board), piece)
        if len(candidates) == 0:
            # Nothing to ask: the game is lost whatever we answer.
            return Decision(-1, False, asked=False)
        outcomes = [outcome_of(candidates, i, next_piece) for i in range(len(candidates))]
        settings = self.settings
        result = await self.client.chat(
            choice_messages(np.asarray(board), piece, next_piece, outcomes, settings.show),
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            response_format=make_response_format(
                settings.structured, "placement_choice", choice_schema(len(outcomes))
            ),
            seed=settings.seed,
        )
        if not result.ok:
            return self._fallback(candidates, result, result.error_kind, result.error)
        answer, error = parse_json_model(result.text, ChoiceAnswer, result.finish_reason, "choice")
        if answer is None:
            return self._fallback(candidates, result, "unparseable", error)
        if not 1 <= answer.choice <= len(outcomes):
            error = f"choice {answer.choice} is not in 1..{len(outcomes)}"
            return self._fallback(candidates, result, "out_of_range", error)
        return Decision(
            int(candidates.actions[answer.choice - 1]), False,
            latency_s=result.latency_s, prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )  # fmt: skip

    def _fallback(
        self, candidates: Candidates, result: ChatResult, kind: str | None, error: str | None
    ) -> Decision:
        if self.settings.fallback == "bcts":
            action = bcts_action(candidates.board, candidates.piece)
        elif self.settings.fallback == "first_legal":
            action = first_legal_action(candidates.board, candidates.piece)
        else:
            raise ValueError(f"unknown fallback rule {self.settings.fallback!r}")
        return Decision(
            action, True, error_kind=kind, error=error,
            latency_s=result.latency_s, prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )  # fmt: skip


async def _play_game(
    player: LLMPlayer, params: EnvParams, game: int, max_pieces: int, seed: int,
    step_fn: Any,
) -> tuple[int, int, bool, list[Decision]]:  # fmt: skip
    """One game of the protocol; returns lines, pieces, game over and the move log."""
    game_key = jax.random.fold_in(jax.random.key(seed), game)
    reset_key, play_key = jax.random.split(game_key)
    _, state = engine.reset(reset_key, params)
    log: list[Decision] = []
    for t in range(max_pieces):
        if bool(state.done):
            break
        _, key_env = jax.random.split(jax.random.fold_in(play_key, t))
        decision = await player.choose(
            np.asarray(state.board), int(state.piece), int(state.next_piece)
        )
        log.append(decision)
        # An action of -1 (no legal placement) is illegal for the engine: it ends the game.
        action = decision.action if decision.action >= 0 else 0
        _, state, _, _, _ = step_fn(key_env, state, jnp.int32(action), params)
    return int(state.lines), int(state.pieces), bool(state.game_over), log


async def evaluate_player(
    player: LLMPlayer, games: int, max_pieces: int, seed: int, seven_bag: bool = False
) -> dict[str, Any]:
    """The target protocol for the LLM player; the same report shape as ``evaluate``."""
    if games < 1 or max_pieces < 1:
        raise ValueError(f"games and max_pieces must be positive, got {games} and {max_pieces}")
    params = EnvParams(seven_bag=seven_bag)
    step_fn = jax.jit(engine.step)
    started = time.perf_counter()
    results = await asyncio.gather(
        *(_play_game(player, params, g, max_pieces, seed, step_fn) for g in range(games))
    )
    asked = [[d for d in r[3] if d.asked] for r in results]
    moves = [d for game in asked for d in game]
    fallbacks = [d for d in moves if d.fallback]

    def share(count: int) -> float:
        return count / len(moves) if moves else 0.0

    examples = list(dict.fromkeys(f"{d.error_kind}: {d.error}" for d in fallbacks))
    rule = player.settings.fallback
    report = protocol_report(
        policy_label(rule),
        np.array([r[0] for r in results]),
        np.array([r[1] for r in results]),
        np.array([r[2] for r in results]),
        max_pieces=max_pieces,
        seed=seed,
        legacy_actions=False,
        seven_bag=seven_bag,
        started=started,
    )
    return report | {
        "llm": {
            "model": player.client.config.model,
            "settings": asdict(player.settings),
            "fallback_rule": rule,
            # Moves with legal placements to choose among: each is the model's or a fallback.
            "moves": len(moves),
            "model_moves": len(moves) - len(fallbacks),
            "fallbacks": len(fallbacks),
            "model_share": share(len(moves) - len(fallbacks)),
            "fallback_share": share(len(fallbacks)),
            "per_game_fallbacks": [sum(d.fallback for d in game) for game in asked],
            # Turns with no legal placement at all (nothing asked; the game is lost anyway).
            "no_legal_placement": sum(len(r[3]) for r in results) - len(moves),
            "errors": dict(sorted(Counter(str(d.error_kind) for d in fallbacks).items())),
            "error_examples": examples[:5],
            "mean_latency_s": float(np.mean([d.latency_s for d in moves])) if moves else 0.0,
            "prompt_tokens": sum(d.prompt_tokens for d in moves),
            "completion_tokens": sum(d.completion_tokens for d in moves),
        },
    }
