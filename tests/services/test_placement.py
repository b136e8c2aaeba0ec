"""The placement setting: JSON in, Ray actor options out, mistakes refused (no Ray started)."""

from __future__ import annotations

import pytest

from services.placement import Placement


def test_empty_placement_asks_for_nothing() -> None:
    for text in (None, "", "  "):
        placement = Placement.parse(text)
        assert placement == Placement()
        assert placement.options("student") == {} and placement.custom_resources() == {}


def test_gpu_and_cpu_become_ray_arguments_and_the_rest_custom_resources() -> None:
    placement = Placement.parse(
        '{"student": {"student": 1, "GPU": 1}, "generator": {"generator": 1, "CPU": 2}}'
    )
    assert placement.options("student") == {"num_gpus": 1, "resources": {"student": 1}}
    assert placement.options("generator") == {"num_cpus": 2, "resources": {"generator": 1}}
    assert placement.options("evaluator") == {}
    # What one node must carry to host every role (dicode run's single local node).
    assert placement.custom_resources() == {"student": 1, "generator": 1}
    assert Placement.parse(placement.to_json()) == placement


@pytest.mark.parametrize(
    "text, word",
    [
        ('{"studnet": {"student": 1}}', "studnet"),  # a typo must not silently place nothing
        ('{"student": {"student": -1}}', "student.student"),
        ('{"student": {"student": "one"}}', "student.student"),
        ('{"student": 1}', "student"),
        ('["student"]', "object"),
        ("{student: 1}", "not JSON"),
    ],
)
def test_mistakes_are_refused_naming_them(text: str, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        Placement.parse(text)


def test_an_unknown_role_has_no_options() -> None:
    with pytest.raises(ValueError, match="api"):
        Placement().options("api")
