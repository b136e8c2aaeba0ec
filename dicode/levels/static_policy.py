"""Static checks on level source, run before any of it executes (defence in depth).

The process boundary of the sandbox is the real wall; these checks reject the obvious escape
routes early, with a message that tells a code model exactly what to change.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

ALLOWED_IMPORTS = frozenset({"math", "itertools", "functools", "collections", "numpy"})

MAX_SOURCE_CHARS = 64_000
MAX_DESCRIPTION_CHARS = 4_000

# Built-in names that open a way around the other rules (code from strings, attribute access
# by name, the interpreter's globals, files, the debugger, interactive input).
FORBIDDEN_NAMES = frozenset(
    {
        "exec", "eval", "compile", "open", "__import__", "getattr", "setattr", "delattr",
        "hasattr", "globals", "locals", "vars", "breakpoint", "input", "help", "memoryview",
        "exit", "quit", "copyright", "credits", "license", "type",
    }
)  # fmt: skip

# Attribute names reaching files, foreign code or interpreter internals through NumPy objects
# (including a bit generator's ctypes/cffi interfaces), generators, frames or string formatting.
FORBIDDEN_ATTRIBUTES = frozenset(
    {
        "ctypes", "ctypeslib", "load", "loadtxt", "save", "savez", "savez_compressed",
        "savetxt", "fromfile", "tofile", "genfromtxt", "memmap", "fromregex", "DataSource",
        "lib", "f2py", "distutils", "testing", "os", "sys", "core", "compat", "rec",
        "show_config", "show_runtime", "info", "lookfor", "source", "get_include", "dump",
        "dumps", "format", "format_map", "mro", "from_dlpack", "cffi", "capsule",
    }
)  # fmt: skip
FORBIDDEN_ATTRIBUTE_PREFIXES = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_")

_DUNDER_TEXT = re.compile(r"__\w+__")


class PolicyViolation(ValueError):
    """Level source breaks the static policy; the message names the line and the rule."""


@dataclass(frozen=True)
class LevelSource:
    """Level source that passed the static policy, with its description (the docstring)."""

    source: str
    description: str
    tree: ast.Module


def parse_level(source: str) -> ast.Module:
    """Parse level source; raises ``SyntaxError`` with line and column on failure."""
    if not isinstance(source, str):
        raise SyntaxError(f"level source must be text, got {type(source).__name__}")
    if len(source) > MAX_SOURCE_CHARS:
        raise SyntaxError(
            f"level source is {len(source)} characters; the limit is {MAX_SOURCE_CHARS}"
        )
    return ast.parse(source, filename="<level>", mode="exec")


def check_policy(tree: ast.Module, source: str) -> LevelSource:
    """Check a parsed level against the policy; raises ``PolicyViolation`` on the first break."""
    description = ast.get_docstring(tree, clean=True)
    if not description or not description.strip():
        raise PolicyViolation("the level has no docstring; its docstring is the description")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise PolicyViolation(
            f"the docstring is {len(description)} characters; the limit is {MAX_DESCRIPTION_CHARS}"
        )
    docstring_nodes = set(ast.walk(tree.body[0]))
    # Report the first violation in reading order (innermost first within an expression).
    nodes = sorted(
        (node for node in ast.walk(tree) if node not in docstring_nodes),
        key=lambda n: (
            getattr(n, "lineno", 0),
            getattr(n, "col_offset", 0),
            getattr(n, "end_lineno", 0),
            getattr(n, "end_col_offset", 0),
        ),
    )
    for node in nodes:
        _check_node(node)
    _check_build(tree)
    return LevelSource(source=source, description=description, tree=tree)


def _where(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _check_node(node: ast.AST) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            _check_import(alias.name, node)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            raise PolicyViolation(f"{_where(node)}: relative imports are not allowed")
        _check_import(node.module or "", node)
        for alias in node.names:
            if alias.name == "*":
                raise PolicyViolation(
                    f"{_where(node)}: 'from {node.module} import *' is not allowed"
                )
            _check_identifier(alias.name, node, "imported name")
            _check_attribute_name(alias.name, node)
    elif isinstance(node, ast.Attribute):
        _check_attribute_name(node.attr, node)
    elif isinstance(node, ast.Name):
        _check_identifier(node.id, node, "name")
        if node.id in FORBIDDEN_NAMES:
            raise PolicyViolation(f"{_where(node)}: '{node.id}' is not allowed in level code")
    elif isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncFor | ast.AsyncWith):
        raise PolicyViolation(f"{_where(node)}: async code is not allowed in level code")
    elif isinstance(node, ast.FunctionDef | ast.ClassDef):
        # A constructor is the one special method level code may define (helper classes).
        if node.name != "__init__":
            _check_identifier(node.name, node, "definition")
    elif isinstance(node, ast.arg):
        _check_identifier(node.arg, node, "argument")
    elif isinstance(node, ast.keyword) and node.arg is not None:
        _check_identifier(node.arg, node, "keyword")
    elif isinstance(node, ast.alias) and node.asname:
        _check_identifier(node.asname, node, "alias")
    elif isinstance(node, ast.Global | ast.Nonlocal):
        for name in node.names:
            _check_identifier(name, node, "name")
    elif isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
        dunder = _DUNDER_TEXT.search(text)
        if dunder:
            raise PolicyViolation(
                f"{_where(node)}: strings naming dunder attributes ({dunder[0]!r}) are not allowed"
            )


def _check_import(module: str, node: ast.AST) -> None:
    top = module.split(".")[0]
    if top not in ALLOWED_IMPORTS:
        allowed = ", ".join(sorted(ALLOWED_IMPORTS))
        raise PolicyViolation(
            f"{_where(node)}: import of '{module}' is not allowed; "
            f"level code may import only {allowed}"
        )
    for part in module.split(".")[1:]:
        _check_attribute_name(part, node)


def _check_identifier(name: str, node: ast.AST, kind: str) -> None:
    if name.startswith("__"):
        raise PolicyViolation(f"{_where(node)}: dunder {kind} '{name}' is not allowed")


def _check_attribute_name(name: str, node: ast.AST) -> None:
    if name.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES):
        raise PolicyViolation(
            f"{_where(node)}: access to private or internal attribute '{name}' is not allowed"
        )
    if name in FORBIDDEN_ATTRIBUTES:
        hint = " (use an f-string)" if name in ("format", "format_map") else ""
        raise PolicyViolation(
            f"{_where(node)}: attribute '{name}' is not allowed in level code{hint}"
        )


def _check_build(tree: ast.Module) -> None:
    builds = [
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "build"
    ]
    if not builds:
        raise PolicyViolation("the level must define a top-level function build(level, rng)")
    args = builds[-1].args
    positional = len(args.posonlyargs) + len(args.args)
    if positional != 2 or args.vararg or args.kwonlyargs:
        raise PolicyViolation(
            f"{_where(builds[-1])}: build must take exactly two arguments, build(level, rng)"
        )
