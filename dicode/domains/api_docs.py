"""Builder API documentation for prompts, rendered from a builder class's own docstrings.

Each domain's builder module exposes ``builder_api_docs()`` (the teachers' prompts embed it);
both build it here, so the prompts show exactly the methods, signatures and docstrings the
sandbox will run — never a hand-copied list. Standard library only: builder modules import this
inside the sandbox worker.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection


def render_builder_api(contract: str, cls: type, bounds: str, skip: Collection[str] = ()) -> str:
    """``contract`` text, then every public member of ``cls`` as ``level.<name><signature>`` with
    its docstring (properties marked read-only), then ``bounds``. Members in ``skip`` (e.g.
    what the runner calls after ``build``) are left out."""
    parts = [contract.strip(), "", f"class {cls.__name__}:", indent(docstring(cls))]
    for name, member in cls.__dict__.items():
        if name.startswith("_") or name in skip:
            continue
        if isinstance(member, property):
            parts.append(f"\n    level.{name}  (read-only)")
            parts.append(indent(docstring(member), 8))
        elif callable(member):
            parts.append(f"\n    level.{name}{call_signature(member)}")
            parts.append(indent(docstring(member), 8))
    parts += ["", bounds.strip()]
    return "\n".join(parts)


def call_signature(method: Callable[..., object]) -> str:
    """``method``'s signature as level code calls it: no ``self``, annotations unquoted."""
    signature = inspect.signature(method)
    parameters = [
        p.replace(annotation=_Shown(p.annotation)) if isinstance(p.annotation, str) else p
        for p in list(signature.parameters.values())[1:]
    ]
    returns = signature.return_annotation
    if isinstance(returns, str):
        returns = _Shown(returns)
    return str(signature.replace(parameters=parameters, return_annotation=returns))


class _Shown:
    """An annotation kept as text (postponed evaluation) that prints without quotes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def public_methods(cls: type, skip: Collection[str] = ()) -> list[str]:
    """Names of the public methods and properties ``render_builder_api`` documents."""
    return [
        name
        for name, member in cls.__dict__.items()
        if not name.startswith("_")
        and name not in skip
        and (isinstance(member, property) or callable(member))
    ]


def docstring(obj: object) -> str:
    """The object's docstring, dedented (empty when it has none)."""
    return inspect.cleandoc(getattr(obj, "__doc__", None) or "")


def indent(text: str, spaces: int = 4) -> str:
    """``text`` with every non-empty line indented by ``spaces``."""
    pad = " " * spaces
    return "\n".join(pad + line if line else line for line in text.splitlines())
