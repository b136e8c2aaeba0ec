"""Prompt templates per world (``dicode/prompts/<world>/*.md``) and the builder API section.

Templates use ``string.Template`` placeholders (``$name``) so that braces in code and JSON
need no escaping. The builder API section is rendered from the domain builder's docstrings at
run time — never copied into a template — so prompts follow the code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from dicode.teachers.base import MutationInstruction
from dicode.teachers.world import TeachingWorld

ENV_PROMPTS_DIR = "DICODE_PROMPTS_DIR"
STAGES = ("system", "description", "code", "repair")


def prompts_root() -> Path:
    """``$DICODE_PROMPTS_DIR`` if set, else the templates shipped in the package
    (``dicode/prompts/``): found through the package, so a wheel install needs no checkout."""
    override = os.environ.get(ENV_PROMPTS_DIR)
    if override:
        return Path(override)
    # Installed and editable packages are plain folders (no zip imports), so a Path is exact.
    return Path(str(resources.files("dicode").joinpath("prompts")))


class PromptError(ValueError):
    """A template is missing or a placeholder has no value."""


@dataclass(frozen=True)
class PromptTemplate:
    """One stage's template; :meth:`render` insists that every placeholder gets a value."""

    name: str
    text: str

    def render(self, **values: object) -> str:
        try:
            return Template(self.text).substitute({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            raise PromptError(f"prompt {self.name!r} needs a value for ${exc.args[0]}") from None
        except ValueError as exc:
            raise PromptError(f"prompt {self.name!r} is not a valid template: {exc}") from None


@dataclass(frozen=True)
class PromptSet:
    """The templates of one world, and the world that fills their placeholders."""

    world: TeachingWorld
    system: PromptTemplate
    description: PromptTemplate
    code: PromptTemplate
    repair: PromptTemplate
    instruction_hints: dict[MutationInstruction, str]


def load_prompts(world: TeachingWorld, root: Path | None = None) -> PromptSet:
    """Read ``{system,description,code,repair,instruction_*}.md`` from the world's own prompt
    folder (``world.prompt_folder()``), or from ``<root>/<world>/`` when a root is given."""
    folder = root / world.name if root is not None else world.prompt_folder()
    if not folder.is_dir():
        raise PromptError(f"no prompt templates for world {world.name!r} (looked in {folder})")

    def read(name: str) -> str:
        path = folder / f"{name}.md"
        if not path.is_file():
            raise PromptError(f"missing prompt template {path}")
        return path.read_text(encoding="utf-8").strip()

    stages = {stage: PromptTemplate(f"{world.name}/{stage}", read(stage)) for stage in STAGES}
    hints = {i: read(f"instruction_{i.value}") for i in MutationInstruction}
    return PromptSet(world=world, instruction_hints=hints, **stages)


def domain_prompt_values(world: TeachingWorld) -> dict[str, str]:
    """Values the world's system template needs: the builder API docs (from the builder's own
    docstrings) plus the game facts the world offers (read from its constants, never copied)."""
    facts = {key: str(value) for key, value in world.prompt_facts().items()}
    return {"builder_api": world.builder_api_docs()} | facts


def render_system_prompt(prompts: PromptSet) -> str:
    """The system message of every stage for ``prompts.world``."""
    return prompts.system.render(**domain_prompt_values(prompts.world))
