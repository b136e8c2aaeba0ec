"""The Tetris level genome: AST-only reading, canonical writing, and bounded typed edits."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.tetris.builder import BOARD_WIDTH, PIECE_NAMES
from dicode.domains.tetris.genome import (
    GarbageBlock,
    Genome,
    Well,
    check_bounds,
    default_genome,
    describe,
    parse_level,
    read_genome,
    write_level,
)
from dicode.domains.tetris.genome_edits import (
    MAX_CELL_ROW,
    MUTATION_MAX_HOLES,
    MUTATION_MAX_STACK_ROWS,
    SKILL_MAX_STACK_ROWS,
    goal_reachable,
    min_pieces_for_lines,
    mutate,
    operators_for,
    target_genome,
    tighten_goal,
)
from dicode.domains.tetris.skills import rows_to_cells
from dicode.teachers.base import MutationInstruction

# (module code, set-up code) pairs a parent may carry verbatim.
KEPT_CODE = [
    ("", ""),
    ("", "for col in range(level.width):\n    if rng.random() < 0.3:\n        level.fill(0, col)"),
    ("import numpy as np\n\nSPREAD = 2", "level.column(int(rng.integers(0, 10)), SPREAD)"),
]


@st.composite
def genomes(draw: st.DrawFn) -> Genome:
    block = st.builds(
        GarbageBlock, st.integers(1, 4), st.integers(1, MUTATION_MAX_HOLES)
    ) | st.builds(Well, st.integers(0, BOARD_WIDTH - 1), st.integers(1, 4))
    blocks = draw(
        st.lists(block, max_size=3).filter(
            lambda bs: sum(b.rows for b in bs) <= MUTATION_MAX_STACK_ROWS
        )
    )
    cell = st.tuples(st.integers(0, MAX_CELL_ROW), st.integers(0, BOARD_WIDTH - 1))
    weights = st.none() | st.lists(
        st.floats(0, 10, allow_nan=False).map(lambda w: round(w, 3)), min_size=7, max_size=7
    ).filter(lambda ws: any(w > 0 for w in ws)).map(tuple)
    lines = draw(st.none() | st.integers(1, 20))
    pieces = draw(st.none() | st.integers(1, 400))
    kept = draw(st.sampled_from(KEPT_CODE))
    return Genome(
        description=draw(st.text(max_size=80)),
        module_code=kept[0],
        setup_code=kept[1],
        stack=tuple(blocks),
        filled=tuple(draw(st.lists(cell, max_size=6))),
        cleared=tuple(draw(st.lists(cell, max_size=4))),
        piece_weights=draw(weights),
        sequence=draw(st.text(alphabet=PIECE_NAMES, max_size=8)),
        goal_lines=lines,
        goal_pieces=pieces,
    ).normalized()


def _calls(source: str) -> list[str]:
    tree = ast.parse(source)
    return [
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "level"
    ]


@settings(max_examples=150, deadline=None)
@given(genomes())
def test_written_levels_read_back_to_the_same_genome(genome: Genome) -> None:
    source = write_level(genome)
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    assert reading.genome == genome
    # The contract: docstring first, one build(level, rng), only builder calls, no imports.
    tree = ast.parse(source)
    assert ast.get_docstring(tree) == genome.description or genome.description == ""
    assert type(tree.body[-1]).__name__ == "FunctionDef"
    allowed = {"garbage", "well", "fill", "clear", "column", "pieces", "sequence", "goal"}
    assert set(_calls(source)) <= allowed


def test_reader_follows_constants_loops_and_garbage_pushes() -> None:
    source = '''"""Dig down.

    Indented second paragraph."""
import numpy as np
DEPTH = 3

def build(level, rng):
    level.fill(0, 4)          # lifted by the 3 + 5 rows pushed below it
    level.well(9, DEPTH)
    level.garbage(5, holes=2)
    for row in range(1, 3):
        level.clear(row, 0)
    for col in (0, 1):
        level.fill(8, col)
    level.row(9, "##........")
    level.column(7, 2)
    level.pieces({"I": 1, "S": 2.5})
    level.sequence("IZ")
    level.goal(lines=4, pieces=40)
'''
    reading = read_genome(source)
    assert reading.exact
    g = reading.genome
    assert g.description == "Dig down.\n\nIndented second paragraph."
    assert g.stack == (Well(9, 3), GarbageBlock(5, 2))
    # row() writes empty cells too, but clears above the stack change nothing and are dropped.
    assert g.filled == ((0, 7), (1, 7), (8, 0), (8, 1), (8, 4), (9, 0), (9, 1))
    assert g.cleared == ((1, 0), (2, 0))
    assert g.piece_weights == (1.0, 0.0, 0.0, 2.5, 0.0, 0.0, 0.0)
    assert (g.sequence, g.goal_lines, g.goal_pieces) == ("IZ", 4, 40)


def _level(body: str, module: str = "") -> str:
    return f'"""x"""\n{module}def build(level, rng):\n' + textwrap.indent(body, "    ")


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (_level("pass\n", module="import os\n"), "'os'"),
        (_level("import subprocess\nlevel.fill(0, 0)\n"), "'subprocess'"),
        (_level("if rng.random() < 0.5:\n    level.goal(lines=1)\n"), "level.goal"),
        (_level("level._board[0] = 1\n"), "level._board"),
        (_level("helper(level)\n"), "passed around"),
        (_level("if rng.random() < 0.5:\n    return\nlevel.fill(0, 0)\n"), "return"),
        (_level("level = None\n"), "rebound"),
        ('"""x"""\ndef helper():\n    pass\nbuild = helper\n', "rebinds build"),
        ('"""x"""\ndef build(level, rng):\n    pass\ndef build(level, rng):\n    pass\n', "second"),
        ('"""x"""\n', "no build"),
        ('"""x"""\ndef build(level, rng, extra):\n    pass\n', "plain function"),
        (_level("level.garbage(19)\n"), "pushed rows"),
        (_level("level.fill(19, 0)\nlevel.garbage(1)\n"), "off the board"),
        ("def build(level, rng:\n", "parse"),
    ],
)
def test_code_outside_the_grammar_falls_back_to_the_standard_game(source: str, reason: str) -> None:
    reading = read_genome(source)
    assert not reading.exact
    assert reason in " ".join(reading.unsupported)
    fallback = reading.genome
    assert (fallback.stack, fallback.filled, fallback.piece_weights) == ((), (), None)
    assert (fallback.goal_lines, fallback.goal_pieces, fallback.setup_code) == (None, None, "")
    assert parse_level(source) == fallback


def test_unmodelled_leading_code_is_kept_verbatim_and_the_rest_modelled() -> None:
    source = '''"""Random rubble under a dig."""
import numpy as np

ROWS = 2


def helper(n):
    return n + 1


def build(level, rng):
    level.garbage(ROWS, holes=1)      # before kept code: kept too, to keep the order
    for col in range(level.width):
        if rng.random() < 0.3:
            level.fill(ROWS, col)
    level.goal(lines=2, pieces=30)    # setters are lifted out of kept code
    level.garbage(3, holes=2)         # after kept code: modelled (lifts the rubble)
    level.pieces({"S": 1, "Z": 1})
'''
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    g = reading.genome
    assert "import numpy as np" in g.module_code and "def helper(n):" in g.module_code
    assert g.setup_code.splitlines()[0] == "level.garbage(ROWS, holes=1)"
    assert "rng.random() < 0.3" in g.setup_code
    assert g.stack == (GarbageBlock(3, 2),)
    assert (g.goal_lines, g.goal_pieces) == (2, 30)
    written = write_level(g)
    assert read_genome(written).genome == g
    # The kept code runs first, then the modelled pushes, then the setters.
    assert written.index("rng.random()") < written.index("level.garbage(3, holes=2)")


def test_reading_never_executes_the_level(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = (
        f'"""Hostile."""\nimport pathlib\npathlib.Path({str(marker)!r}).write_text("x")\n'
        f"def build(level, rng):\n    pathlib.Path({str(marker)!r}).write_text('x')\n"
    )
    reading = read_genome(source)
    assert not reading.exact
    assert not marker.exists()
    # The fallback keeps the level's own docstring as its description.
    assert reading.genome.description == "Hostile."


def test_standard_game_round_trips_and_is_described() -> None:
    target = default_genome()
    source = write_level(target)
    assert parse_level(source) == target
    assert "standard game" in describe(target)


def test_docstring_with_quotes_and_backslashes_round_trips() -> None:
    genome = default_genome('He said """hi""" \\ and left "')
    assert parse_level(write_level(genome)).description == genome.description


@settings(max_examples=120, deadline=None)
@given(genomes(), st.sampled_from(list(MutationInstruction)), st.integers(0, 2**32 - 1))
def test_edits_stay_in_bounds_and_write_readable_levels(
    parent: Genome, instruction: MutationInstruction, seed: int
) -> None:
    mutation = mutate(parent, instruction, np.random.default_rng(seed))
    child = mutation.child
    check_bounds(child)
    assert 1 <= len(mutation.edits) <= 2
    holes = [b.holes for b in (*parent.stack, *child.stack) if isinstance(b, GarbageBlock)]
    assert max(holes, default=0) <= MUTATION_MAX_HOLES
    assert child.stack_rows <= max(MUTATION_MAX_STACK_ROWS, parent.stack_rows)
    assert all(r <= MAX_CELL_ROW for r, _ in child.filled)
    assert read_genome(write_level(child)).genome == child


@settings(max_examples=100, deadline=None)
@given(genomes(), st.integers(0, 2**32 - 1))
def test_tightened_goals_stay_plausible(parent: Genome, seed: int) -> None:
    result = tighten_goal(parent, np.random.default_rng(seed))
    if result is None:
        return
    child, note = result
    assert "goal" in note or "survive" in note
    if child.goal_lines is not None and child.goal_pieces is not None:
        # Never fewer pieces than the lines need (with the margin), unless the parent was.
        floor = min_pieces_for_lines(child, child.goal_lines)
        assert child.goal_pieces >= min(floor, parent.goal_pieces or floor)


def test_mutation_is_seeded() -> None:
    parent = Genome("p", stack=(GarbageBlock(4, 1),), goal_lines=3, goal_pieces=30)
    runs = [
        [mutate(parent, d, np.random.default_rng(7)) for d in MutationInstruction] for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_harder_and_easier_edits_move_the_fields_the_right_way() -> None:
    parent = Genome(
        "p",
        stack=(Well(3, 2), GarbageBlock(4, 2)),
        filled=((4, 0),),
        piece_weights=(1.0,) * 7,
        sequence="SZ",
        goal_lines=4,
        goal_pieces=60,
    ).normalized()
    rng = np.random.default_rng(0)
    s, z, i = PIECE_NAMES.index("S"), PIECE_NAMES.index("Z"), PIECE_NAMES.index("I")
    for _ in range(60):
        harder = mutate(parent, MutationInstruction.HARDER, rng)
        easier = mutate(parent, MutationInstruction.EASIER, rng)
        for edit in harder.edits:
            h = harder.child
            match edit.kind:
                case "add_garbage" | "deepen_well" | "remove_garbage" | "shallow_well":
                    raise AssertionError("stack edits are not harder/easier for line goals")
                case "harsher_pieces":
                    assert h.piece_weights is not None
                    assert h.piece_weights[s] > 1 and h.piece_weights[z] > 1
                    assert h.piece_weights[i] < 1
                case "tighten_goal":
                    assert h.goal_lines is not None and h.goal_pieces is not None
                    assert h.goal_lines > 4 or h.goal_pieces < 60
        for edit in easier.edits:
            e = easier.child
            match edit.kind:
                case "add_garbage" | "deepen_well" | "remove_garbage" | "shallow_well":
                    raise AssertionError("stack edits are not harder/easier for line goals")
                case "kinder_pieces":
                    assert e.piece_weights is not None and e.piece_weights[i] > 1
                case "loosen_goal":
                    assert e.goal_lines is not None and e.goal_pieces is not None
                    assert e.goal_lines < 4 or e.goal_pieces > 60
                case "kind_opening":
                    assert "S" not in e.sequence and "Z" not in e.sequence


def test_easier_from_the_standard_game_gives_it_a_finish_line_sometimes() -> None:
    rng = np.random.default_rng(3)
    children = [mutate(default_genome(), MutationInstruction.EASIER, rng) for _ in range(30)]
    kinds = {edit.kind for child in children for edit in child.edits}
    assert "loosen_goal" in kinds
    assert kinds <= {"kinder_pieces", "loosen_goal"}


def test_stack_edits_set_difficulty_only_for_survival_goals() -> None:
    stack = (Well(9, 3), GarbageBlock(3, 1))
    survive = Genome("s", stack=stack, goal_pieces=80)
    lines = Genome("l", stack=stack, goal_lines=4, goal_pieces=40)
    harder, easier = MutationInstruction.HARDER, MutationInstruction.EASIER
    vary = MutationInstruction.VARY
    more, fewer = {"add_garbage", "deepen_well"}, {"remove_garbage", "shallow_well"}
    # Survival: pushed rows only take room, so they are a difficulty lever.
    assert more <= set(operators_for(survive, harder))
    assert fewer <= set(operators_for(survive, easier))
    # Line goals: rows are free lines for a good player but less room for a weak one.
    assert not (more | fewer) & set(operators_for(lines, harder))
    assert not (more | fewer) & set(operators_for(lines, easier))
    assert (more | fewer) <= set(operators_for(lines, vary))


@settings(max_examples=100, deadline=None)
@given(genomes(), st.sampled_from(list(MutationInstruction)), st.integers(0, 2**32 - 1))
def test_edits_never_make_a_reachable_goal_unreachable(
    parent: Genome, instruction: MutationInstruction, seed: int
) -> None:
    if not goal_reachable(parent):
        return
    assert goal_reachable(mutate(parent, instruction, np.random.default_rng(seed)).child)


def test_the_reader_budget_covers_the_whole_level_not_each_statement() -> None:
    # 30 loops of 1,999 steps each: past the reader's budget, statements are kept verbatim
    # instead of being unrolled, so reading cost stays bounded however long the level is.
    loops = "".join(f"for i{k} in range(1999):\n    pass\n" for k in range(30))
    reading = read_genome(_level(loops + "level.goal(lines=1, pieces=10)\n"))
    assert reading.exact
    # Everything up to the last statement past the budget is kept, in order.
    assert reading.genome.setup_code.count("for i") == 30
    assert (reading.genome.goal_lines, reading.genome.goal_pieces) == (1, 10)


def test_absurdly_nested_code_falls_back_instead_of_crashing() -> None:
    reading = read_genome(_level("level.goal(lines=" + "+".join(["1"] * 50_000) + ")\n"))
    assert not reading.exact and reading.genome == default_genome()


def test_the_target_genome_is_the_standard_game_from_one_of_the_students_boards() -> None:
    low = ("...#......", "#.##.###.#")
    tall = tuple("#........." for _ in range(SKILL_MAX_STACK_ROWS + 1))  # no room left to play
    chosen = set()
    for seed in range(10):
        g = target_genome((low, tall, ("#.#.......",)), np.random.default_rng(seed))
        assert g is not None
        assert (g.goal_lines, g.goal_pieces, g.piece_weights, g.sequence) == (None, None, None, "")
        assert g.stack == () and read_genome(write_level(g)).genome == g
        chosen.add(frozenset(g.filled))
    assert chosen == {frozenset(rows_to_cells(list(low))), frozenset({(0, 0), (0, 2)})}
    assert target_genome((tall,), np.random.default_rng(0)) is None
    assert target_genome((), np.random.default_rng(0)) is None
