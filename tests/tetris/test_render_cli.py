"""Renderers (row 0 drawn at the bottom) and the `dicode tetris` commands end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image
from typer.testing import CliRunner

from dicode.domains.tetris.render import ascii_board, save_png
from services.cli import app

runner = CliRunner()


def test_ascii_draws_row_zero_at_the_bottom() -> None:
    board = np.zeros((3, 4), np.uint8)
    board[0, 0] = 1
    board[2, 3] = 1
    assert ascii_board(board).splitlines() == ["|...#|", "|....|", "|#...|", "+----+"]


def test_png_has_the_board_shape_and_row_zero_at_the_bottom(tmp_path: Path) -> None:
    board = np.zeros((20, 10), np.uint8)
    board[0, 0] = 1
    path = save_png(board, tmp_path / "board.png", cell=10)
    image = Image.open(path).convert("RGB")
    assert image.size == (101, 201)
    bottom_left = image.getpixel((5, 195))
    top_left = image.getpixel((5, 5))
    assert bottom_left != top_left


def test_placements_json_reports_162_and_the_legacy_gap() -> None:
    result = runner.invoke(app, ["tetris", "placements", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["total"] == 162
    assert report["per_piece"] == {"I": 17, "O": 9, "T": 34, "S": 17, "Z": 17, "J": 34, "L": 34}
    assert report["legacy"]["reachable"] == 162 - len(report["legacy"]["missing"]) == 157


def test_eval_json_has_the_documented_shape() -> None:
    args = ["tetris", "eval", "--policy", "random", "--games", "3", "--max-pieces", "5", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["policy"] == "random" and report["games"] == 3 and report["max_pieces"] == 5
    assert set(report["lines"]) == {"mean", "median", "min", "max"}
    assert report["pieces"]["max"] <= 5
    # Random play never dies within 5 pieces on an empty board, so every game is capped.
    assert report["pieces"]["min"] == 5 and report["capped"] == 3


def test_eval_rejects_an_unknown_policy_with_a_clear_message() -> None:
    result = runner.invoke(app, ["tetris", "eval", "--policy", "greedy", "--games", "1"])
    assert result.exit_code != 0
    assert "unknown policy 'greedy'" in result.output


def test_show_renders_a_game_and_writes_a_png(tmp_path: Path) -> None:
    png = tmp_path / "final.png"
    result = runner.invoke(
        app, ["tetris", "show", "--policy", "random", "--max-pieces", "10", "--png", str(png)]
    )
    assert result.exit_code == 0, result.output
    assert "+----------+" in result.output and png.exists()
