"""Prompts and answer schemas for LLM judges and the LLM player.

Boards go to the model either as characters (``#`` filled, ``.`` empty, ``@`` the piece just
placed; top row first) or as PNG images in ``image_url`` content parts (data URLs), for
vision-language models. Answers are JSON constrained by ``response_format``; three forms are
supported because servers differ: ``json_schema`` (OpenAI, vLLM), ``json_object`` with a
``schema`` field (llama-cpp-python's server) and ``none`` (schema only described in the prompt).
"""

from __future__ import annotations

import base64
import io
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from dicode.domains.tetris.judges.base import Outcome
from dicode.domains.tetris.render import ascii_board, board_image
from dicode.domains.tetris.schema import PIECE_NAMES
from dicode.llm.structured import STRUCTURED_FORMS
from dicode.llm.structured import StructuredOutput as Structured

View = Literal["text", "image"]


def structured_form(name: str) -> Structured:
    """Check a structured-output form given as text (CLI options)."""
    forms: dict[str, Structured] = {"json_schema": "json_schema", "json_object": "json_object",
                                    "none": "none"}  # fmt: skip
    if name in forms:
        return forms[name]
    raise ValueError(f"unknown structured-output form {name!r}; use one of {STRUCTURED_FORMS}")


RULES = (
    "You judge placements in Tetris on a board 10 columns wide and 20 rows high. "
    "Good placements keep the stack low and flat, leave no holes (empty cells under filled "
    "ones), avoid deep wells and clear lines. Bad placements bury holes, build towers and "
    "leave a jagged surface."
)
TEXT_LEGEND = (
    "Boards are drawn top row first: '#' is a filled cell, '.' an empty one, '@' the cells of "
    "the piece just placed, '|' the walls and '+--+' the floor."
)
IMAGE_LEGEND = "Boards are images: filled cells are blue squares, empty cells dark."
PLACEMENT_LEGEND = (
    "A placement is (rotation, column): rotation is the piece's rotation state 0-3, column the "
    "board column (0 = leftmost) of the piece's leftmost cell; the piece drops straight down."
)


class ScoreAnswer(BaseModel):
    """The absolute judgement: a score and a placement for the next piece."""

    model_config = ConfigDict(extra="forbid")

    score: float = Field(ge=-1.0, le=1.0, description="-1 terrible … 0 neutral … 1 excellent")
    suggested_rotation: int = Field(description="rotation state 0-3 for the next piece")
    suggested_column: int = Field(description="column of the next piece's leftmost cell")


class PairAnswer(BaseModel):
    """The pairwise judgement."""

    model_config = ConfigDict(extra="forbid")

    better: Literal["A", "B", "equal"] = Field(description="which result is better")


class ChoiceAnswer(BaseModel):
    """The player's pick among numbered placements."""

    model_config = ConfigDict(extra="forbid")

    choice: int = Field(description="the number of the chosen placement")


def json_instruction(example: str) -> str:
    return f"Answer with one JSON object only, like {example}."


def placed_cells(outcome: Outcome) -> np.ndarray | None:
    """Cells of the piece just placed; None when lines were cleared (the rows moved)."""
    if outcome.lines:
        return None
    return (np.asarray(outcome.after) > 0) & ~(np.asarray(outcome.before) > 0)


def png_data_url(board: np.ndarray) -> str:
    """The board as a PNG ``data:`` URL for an ``image_url`` content part."""
    buffer = io.BytesIO()
    board_image(board, cell=16).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _image_part(board: np.ndarray) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": png_data_url(board)}}


def _describe_move(outcome: Outcome) -> str:
    cleared = f", clearing {outcome.lines} line(s)" if outcome.lines else ""
    return f"The {outcome.piece_name} piece was placed at {outcome.placement.describe()}{cleared}."


def _system(view: View) -> dict[str, Any]:
    legend = TEXT_LEGEND if view == "text" else IMAGE_LEGEND
    return {"role": "system", "content": f"{RULES}\n{legend}\n{PLACEMENT_LEGEND}"}


def _shown_rows(*boards: np.ndarray) -> int:
    """Rows to draw: the tallest stack among ``boards`` plus two, at most the board."""
    height = boards[0].shape[0]
    return min(height, max(_stack_height(b) for b in boards) + 2)


def _rows_note(rows: int, height: int) -> str:
    if rows >= height:
        return f"all {height} rows"
    return f"bottom {rows} of {height} rows; the rows above are empty"


def score_messages(outcome: Outcome, view: View) -> list[dict[str, Any]]:
    """Messages asking for an absolute score of one outcome and a next-piece suggestion.

    The board before comes first so that a server's prompt cache serves every candidate of the
    same decision.
    """
    nxt = (
        f"The next piece is {PIECE_NAMES[outcome.next_piece]}."
        if outcome.next_piece is not None
        else "The next piece is unknown; suggest any placement."
    )
    # No concrete score in the example: small models copy it (SmolLM2-135M answered the old
    # example's -0.3 to every board).
    ask = (
        f"Rate the result with a score S from -1 (terrible) to 1 (excellent). {nxt} "
        + json_instruction('{"score": S, "suggested_rotation": R, "suggested_column": C}')
        + " R is the next piece's rotation (0-3), C its column (0-9)."
    )
    if view == "text":
        rows = _shown_rows(outcome.before, outcome.after)
        note = _rows_note(rows, outcome.before.shape[0])
        text = (
            f"Board before the move ({note}):\n{_cropped(outcome.before, None, rows)}\n\n"
            f"{_describe_move(outcome)} Board after:\n"
            f"{_cropped(outcome.after, placed_cells(outcome), rows)}\n\n{ask}"
        )
        return [_system(view), {"role": "user", "content": text}]
    content = [
        {"type": "text", "text": "Board before the move:"},
        _image_part(outcome.before),
        {"type": "text", "text": f"{_describe_move(outcome)} Board after:"},
        _image_part(outcome.after),
        {"type": "text", "text": ask},
    ]
    return [_system(view), {"role": "user", "content": content}]


def pair_messages(first: Outcome, second: Outcome, view: View) -> list[dict[str, Any]]:
    """Messages asking which of two outcomes of the same decision (shown as A, B) is better."""
    head = f"The same {first.piece_name} piece can be placed in two ways, A and B."
    ask = (
        "Which result is better for the rest of the game? "
        + json_instruction('{"better": "A"}')
        + ' Use "equal" only if they are equally good.'
    )
    if view == "text":
        rows = _shown_rows(first.before, first.after, second.after)
        note = _rows_note(rows, first.before.shape[0])
        text = (
            f"Board ({note}):\n{_cropped(first.before, None, rows)}\n\n{head}\n\n"
            f"A ({first.placement.describe()}):\n"
            f"{_cropped(first.after, placed_cells(first), rows)}\n\n"
            f"B ({second.placement.describe()}):\n"
            f"{_cropped(second.after, placed_cells(second), rows)}\n\n{ask}"
        )
        return [_system(view), {"role": "user", "content": text}]
    content = [
        {"type": "text", "text": "Board:"},
        _image_part(first.before),
        {"type": "text", "text": f"{head} A ({first.placement.describe()}):"},
        _image_part(first.after),
        {"type": "text", "text": f"B ({second.placement.describe()}):"},
        _image_part(second.after),
        {"type": "text", "text": ask},
    ]
    return [_system(view), {"role": "user", "content": content}]


def _stack_height(board: np.ndarray) -> int:
    """1 + the highest row holding a filled cell (0 for an empty board)."""
    filled_rows = np.flatnonzero(np.any(np.asarray(board) > 0, axis=1))
    return int(filled_rows[-1]) + 1 if filled_rows.size else 0


def _cropped(board: np.ndarray, highlight: np.ndarray | None, rows: int) -> str:
    """The bottom ``rows`` rows of a board as text (the empty rows above are left out)."""
    marks = None if highlight is None else highlight[:rows]
    return ascii_board(np.asarray(board)[:rows], marks)


def choice_schema(count: int) -> dict[str, Any]:
    """JSON schema of the player's answer with the choice bounded to 1..count."""
    schema = ChoiceAnswer.model_json_schema()
    schema["properties"]["choice"].update(minimum=1, maximum=count)
    return schema


def choice_messages(
    board: np.ndarray,
    piece: int,
    next_piece: int | None,
    placements: list[Outcome],
    show: Literal["afterstates", "moves"],
) -> list[dict[str, Any]]:
    """Messages asking the player to pick one of the numbered legal placements.

    ``afterstates`` draws each candidate's resulting board (cropped to the stack, so dozens of
    candidates stay within a small model's context); ``moves`` draws the board once and lists
    (rotation, column, lines cleared) per candidate.
    """
    rows = _shown_rows(board, *(o.after for o in placements))
    nxt = f" The next piece will be {PIECE_NAMES[next_piece]}." if next_piece is not None else ""
    lines = [
        f"You play Tetris. Place the {PIECE_NAMES[piece]} piece.{nxt}",
        f"Board now ({_rows_note(rows, board.shape[0])}):",
        _cropped(board, None, rows),
        "",
        "Legal placements:",
    ]
    for number, outcome in enumerate(placements, start=1):
        cleared = f", clears {outcome.lines} line(s)" if outcome.lines else ""
        lines.append(f"{number}. {outcome.placement.describe()}{cleared}")
        if show == "afterstates":
            lines.append(_cropped(outcome.after, placed_cells(outcome), rows))
    lines.append("")
    lines.append(
        "Pick the placement that is best for the rest of the game. "
        + json_instruction('{"choice": 1}')
        + f" The choice is a number from 1 to {len(placements)}."
    )
    legend = TEXT_LEGEND + " " + PLACEMENT_LEGEND
    return [
        {"role": "system", "content": f"{RULES}\n{legend}"},
        {"role": "user", "content": "\n".join(lines)},
    ]
