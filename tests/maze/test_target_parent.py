"""The maze aimed at its target: the genome reads and writes the target family's calls
(perfect mazes, far and near starts, openings), the edits step a start near the goal the way
the instruction asks, and the target-derived parent — the run's own target mazes with the
start a few moves from the goal — builds fresh mazes of the family in the real sandbox, never
an evaluation maze."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode import domains
from dicode.domains.maze.builder import MAX_DISTANCE, MAX_RANDOM_WALLS
from dicode.domains.maze.generate import DR_WALLS, LONG_PATH_MOVES
from dicode.domains.maze.genome import (
    MAZE_FREE_CELLS,
    Genome,
    NearGoal,
    default_genome,
    read_genome,
    solvable,
    write_level,
)
from dicode.domains.maze.genome_edits import (
    MAX_NEAR_GOAL,
    MAZE_SAFE,
    MUTATION_MAX_OPENINGS,
    NEAR_GOAL_START,
    goal_in_view,
    mutate,
    operators_for,
    target_genome,
    teach,
)
from dicode.domains.maze.grid import DIRECTIONS, distances, in_view
from dicode.domains.maze.heldout import HELD_OUT_SETS, held_out_pool
from dicode.domains.maze.student.config import MazePPOConfig
from dicode.levels.pipeline import Validator
from dicode.teachers.base import (
    TARGET_PARENT_LABEL,
    MutationInstruction,
    ParentKind,
    PerformanceProfile,
    TeacherRequest,
)
from dicode.teachers.genome_base import SkillTarget
from dicode.teachers.mutation import MutationTeacher

MAZE = domains.get("maze")
nodes = st.tuples(st.integers(0, 6), st.integers(0, 6)).map(lambda rc: (2 * rc[0], 2 * rc[1]))


@st.composite
def drawn_genomes(draw: st.DrawFn) -> Genome:
    """Genomes using the calls that draw per instance (any order the writer uses)."""
    maze = draw(st.sampled_from([None, "backtracker", "kruskal"]))
    start = draw(st.none() | st.tuples(nodes, st.sampled_from(DIRECTIONS)))
    goal = draw(st.none() | nodes)
    walls = () if maze else tuple(draw(st.sets(nodes, max_size=12)) - {goal, start and start[0]})
    least = None if start is not None else draw(st.none() | st.integers(1, MAX_DISTANCE))
    near = st.builds(NearGoal, st.integers(1, MAX_DISTANCE), st.booleans())
    return Genome(
        description="A drawn maze.",
        walls=walls,
        start=None if start is None else (*start[0], start[1]),
        goal=goal,
        random_walls=draw(st.integers(0, MAX_RANDOM_WALLS)),
        maze=maze,
        start_min_distance=least,
        near_goal=draw(st.none() | near),
        openings=draw(st.integers(0, MAX_RANDOM_WALLS)),
    )


@settings(max_examples=60, deadline=None)
@given(drawn_genomes())
def test_the_target_familys_calls_round_trip(genome: Genome) -> None:
    reading = read_genome(write_level(genome))
    assert reading.exact, reading.unsupported
    assert reading.genome == genome.normalized()


def test_the_calls_are_read_from_code() -> None:
    source = '''"""Far ends in a maze."""


def build(level, rng):
    level.perfect_maze("kruskal")
    level.random_start(min_distance=40)
    level.start_near_goal(5, goal_in_view=True)
    level.open_walls(2)
    level.random_walls(3)
'''
    reading = read_genome(source)
    assert reading.exact, reading.unsupported
    g = reading.genome
    assert (g.maze, g.start_min_distance, g.openings, g.random_walls) == ("kruskal", 40, 2, 3)
    assert g.near_goal == NearGoal(5, True) and g.walls == () and g.start is None


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("    level.perfect_maze()\n    level.wall(1, 1)\n", "after level.perfect_maze"),
        ("    level.perfect_maze()\n    level.perfect_maze()\n", "after level.perfect_maze"),
        ("    level.random_walls(2)\n    level.open_walls(2)\n", "after level.random_walls"),
        ("    level.open_walls(2)\n    level.goal(0, 0)\n", "after level.open_walls"),
        ("    level.start_near_goal(0)\n", "distance must be in 1..168"),
        ("    level.perfect_maze('prim')\n", "method must be one of"),
    ],
)  # fmt: skip
def test_calls_out_of_order_fall_back(body: str, reason: str) -> None:
    reading = read_genome(f'"""Odd maze."""\n\n\ndef build(level, rng):\n{body}')
    assert not reading.exact and reason in " ".join(reading.unsupported)
    assert reading.genome == default_genome("Odd maze.")


def test_a_start_near_the_goal_acts_wherever_it_stands() -> None:
    body = "    level.random_walls(4)\n    level.start_near_goal(3)\n"
    reading = read_genome(f'"""Late."""\n\n\ndef build(level, rng):\n{body}')
    assert reading.exact and reading.genome.near_goal == NearGoal(3)


def test_solvable_in_a_perfect_maze_needs_ends_on_the_lattice() -> None:
    maze = Genome("M.", maze="backtracker")
    assert solvable(maze) and solvable(Genome("M.", maze="backtracker", goal=(12, 12)))
    assert not solvable(Genome("M.", maze="backtracker", goal=(1, 1)))  # a wall in every maze
    assert not solvable(Genome("M.", maze="backtracker", start=(0, 0, "east"), goal=(0, 0)))
    assert not solvable(Genome("M.", maze="backtracker", random_walls=MAZE_FREE_CELLS - 1))


def target(k: int = 10, view: bool = True, openings: int = 3) -> Genome:
    return Genome(
        "Aimed.", maze="backtracker", start_min_distance=LONG_PATH_MOVES,
        near_goal=NearGoal(k, view), openings=openings,
    )  # fmt: skip


def test_easier_and_harder_step_the_start_near_the_goal_the_right_way() -> None:
    parent = target()
    moved = {MutationInstruction.EASIER: 0, MutationInstruction.HARDER: 0}
    for instruction in moved:
        for seed in range(40):
            mutation = mutate(parent, instruction, np.random.default_rng(seed), 2)
            child = mutation.child
            assert mutation.instruction is instruction
            assert {e.kind for e in mutation.edits} <= MAZE_SAFE
            assert child.maze == "backtracker" and child.walls == () and solvable(child)
            assert child.near_goal is not None
            k, view, opened = child.near_goal.distance, child.near_goal.goal_in_view, child.openings
            if instruction is MutationInstruction.EASIER:
                assert k <= 10 and view and opened >= 3 and (k, view, opened) != (10, True, 3)
            else:
                assert k >= 10 and opened <= 3 and (k, view, opened) != (10, True, 3)
            moved[instruction] += k != 10
            assert read_genome(write_level(child)).genome == child
    assert moved[MutationInstruction.EASIER] >= 10 and moved[MutationInstruction.HARDER] >= 10


def test_the_start_near_the_goal_stays_within_its_bounds() -> None:
    nearest = mutate(target(1, True, MUTATION_MAX_OPENINGS), MutationInstruction.EASIER,
                     np.random.default_rng(0), 2)  # fmt: skip
    assert nearest.instruction is MutationInstruction.VARY  # every easier field at its bound
    farthest = target(MAX_NEAR_GOAL, False, 0)
    for seed in range(10):
        child = mutate(farthest, MutationInstruction.HARDER, np.random.default_rng(seed), 2).child
        assert child.near_goal is not None and child.near_goal.distance <= MAX_NEAR_GOAL


def test_a_random_start_is_brought_near_the_goal_as_an_easier_edit() -> None:
    for genome in (default_genome(), Genome("Family.", maze="backtracker", start_min_distance=60)):
        near = []
        for seed in range(30):
            child = mutate(genome, MutationInstruction.EASIER, np.random.default_rng(seed), 1).child
            near += [child.near_goal.distance] if child.near_goal is not None else []
        assert near and all(NEAR_GOAL_START[0] <= k <= NEAR_GOAL_START[1] for k in near)


def test_goal_in_view_turns_a_fixed_start_to_face_the_goal() -> None:
    parent = Genome("Room.", start=(6, 2, "west"), goal=(6, 5))
    edit = goal_in_view(parent, np.random.default_rng(0))
    assert edit is not None
    child = edit[0]
    assert child.start is not None and in_view((6, 2), DIRECTIONS.index(child.start[2]), (6, 5))
    assert goal_in_view(child, np.random.default_rng(0)) is None  # it sees the goal already
    far = Genome("Room.", start=(0, 0, "west"), goal=(12, 12))
    assert goal_in_view(far, np.random.default_rng(0)) is None  # no facing sees it


def test_a_perfect_maze_is_offered_only_the_edits_that_do_not_read_its_walls() -> None:
    for instruction in MutationInstruction:
        assert set(operators_for(target(), instruction)) <= MAZE_SAFE
    assert "add_walls" in operators_for(default_genome(), MutationInstruction.HARDER)
    skill = SkillTarget("path_long", {}, {})
    assert teach(target(), skill, np.random.default_rng(0)) is None


def test_target_genome_is_the_runs_target_family_with_the_start_near_the_goal() -> None:
    rng = np.random.default_rng(0)
    long_paths = target_genome("long_paths", rng)
    assert long_paths.maze == "backtracker" and long_paths.start_min_distance == LONG_PATH_MOVES
    dr = target_genome("dr", rng)
    assert dr.maze is None and dr.random_walls == DR_WALLS and dr.start is None
    for g in (long_paths, dr):
        assert g.near_goal is not None and solvable(g)
        assert NEAR_GOAL_START[0] <= g.near_goal.distance <= NEAR_GOAL_START[1]


def test_the_world_writes_a_target_derived_parent() -> None:
    student = MazePPOConfig(target="long_paths")
    parent = MAZE.target_parent(student, PerformanceProfile(), np.random.default_rng(4))
    assert parent is not None and parent.kind is ParentKind.TARGET and parent.level_id is None
    assert parent.description.startswith(f"{TARGET_PARENT_LABEL}: The target game's own mazes")
    reading = read_genome(parent.code)
    assert reading.exact and reading.genome.maze == "backtracker"
    assert reading.genome.description == parent.description


def _perfect(walls: np.ndarray) -> bool:
    """A spanning tree's maze: as many free cells as one leaves, all joined."""
    reached = int((distances(walls, (0, 0)) >= 0).sum())
    return int((~walls).sum()) == MAZE_FREE_CELLS == reached


def test_the_target_parent_builds_fresh_target_mazes_never_an_evaluation_maze(
    validator: Validator,
) -> None:
    student = MazePPOConfig(target="long_paths")
    parent = MAZE.target_parent(student, PerformanceProfile(), np.random.default_rng(1))
    assert parent is not None
    near = read_genome(parent.code).genome.near_goal
    assert near is not None
    verdict = validator.validate(parent.code, seed=11)
    assert verdict.accepted, verdict.error
    assert verdict.bundle is not None
    pool = MAZE.decode_pool(verdict.bundle)
    walls = np.asarray(pool.walls, bool)
    assert len({w.tobytes() for w in walls}) == len(walls)  # a new maze per instance
    evaluation = {w.tobytes() for name in HELD_OUT_SETS for w in held_out_pool(name).walls}
    for i, maze in enumerate(walls):
        assert _perfect(maze)
        assert maze.tobytes() not in evaluation
        goal = (int(pool.goal_pos[i][0]), int(pool.goal_pos[i][1]))
        start = (int(pool.start_pos[i][0]), int(pool.start_pos[i][1]))
        from_goal = distances(maze, goal)
        assert from_goal[start] == near.distance
        assert from_goal.max() >= 50  # the family's goal: one end of a long way


def test_children_of_the_target_parent_are_accepted(validator: Validator) -> None:
    teacher = MutationTeacher(validator.validate, MAZE.genome(), seed=2)
    for family in ("long_paths", "dr"):
        student = MazePPOConfig(target=family)
        parent = MAZE.target_parent(student, PerformanceProfile(), np.random.default_rng(3))
        assert parent is not None
        for seed in range(2):
            request = TeacherRequest(parent, parent.profile, MutationInstruction.EASIER, seed=seed)
            result = asyncio.run(teacher.propose(request))
            assert result.accepted, (family, result.title, result.error)
            assert result.parent_id is None and result.parent_kind is ParentKind.TARGET
            assert result.reasoning is not None
            assert result.reasoning.startswith(TARGET_PARENT_LABEL)
            assert result.description is not None
            assert "of a target-derived parent" in " ".join(result.description.split())
