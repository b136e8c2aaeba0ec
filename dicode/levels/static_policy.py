"""Static checks on level source, run before any of it executes (a courtesy, not the wall).

The sandbox's process boundary (bubblewrap, seccomp, rlimits) is the wall: it assumes level code
reaches ``os`` anyway. These checks reject the known escape routes early, with a message that
tells a code model exactly what to change.

``ALLOWED_MODULES`` is the project's one allow-list: the static check, the genome readers and the
sandbox worker (which receives it on its command line) all use it.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import types
from dataclasses import dataclass

# What level code may import, or reach as a module through an allowed module's attributes.
ALLOWED_MODULES = frozenset(
    {"math", "itertools", "functools", "collections", "numpy", "numpy.random", "numpy.linalg"}
)

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
        # attribute access by a name computed at run time, and modules that are never allowed
        "operator", "attrgetter", "methodcaller", "builtins", "importlib", "subprocess",
        "shutil", "pathlib", "pickle", "marshal", "socket", "inspect", "gc",
    }
)  # fmt: skip
FORBIDDEN_ATTRIBUTE_PREFIXES = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_")

_DUNDER_TEXT = re.compile(r"__\w+__")
_MAX_FOLDED_CHARS = 10_000  # a folded string longer than this is not followed further


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
    modules = _module_names(tree)
    for node in nodes:
        _check_node(node, modules)
    _check_build(tree)
    return LevelSource(source=source, description=description, tree=tree)


def is_allowed_module(name: str) -> bool:
    """May level code import ``name`` (a dotted module name)?"""
    return name in ALLOWED_MODULES


def allowed_modules_text() -> str:
    """The allow-list as a sentence fragment for messages and prompts."""
    return ", ".join(sorted(ALLOWED_MODULES))


def _where(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _check_node(node: ast.AST, modules: dict[str, str]) -> None:
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
            _check_reached_module(f"{node.module}.{alias.name}", node, alias.name)
    elif isinstance(node, ast.Attribute):
        _check_attribute_name(node.attr, node)
        _check_module_attribute(node, modules)
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
    if isinstance(node, ast.BinOp | ast.JoinedStr | ast.Call):
        _check_built_string(node)


def _check_import(module: str, node: ast.AST) -> None:
    if not is_allowed_module(module):
        raise PolicyViolation(
            f"{_where(node)}: import of '{module}' is not allowed; "
            f"level code may import only {allowed_modules_text()}"
        )


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


# --- modules reached through attributes --------------------------------------------------------


def _submodule(module: str, attribute: str) -> str | None:
    """The module that ``module.attribute`` names, or None when it names something else.

    Looks only at the trusted allowed modules (imported here in the parent, never in level
    code): their namespace, then whether a submodule of that name exists on disk.
    """
    try:
        namespace = vars(importlib.import_module(module))
    except ImportError:
        return None
    value = namespace.get(attribute)
    if isinstance(value, types.ModuleType):
        return value.__name__
    if value is not None:
        return None
    try:
        found = importlib.util.find_spec(f"{module}.{attribute}")
    except (ImportError, ValueError):
        return None
    return None if found is None else f"{module}.{attribute}"


def _check_reached_module(module: str, node: ast.AST, shown: str) -> None:
    """``module`` is reached from level code as ``shown``: refuse it unless allowed."""
    if not is_allowed_module(module) and _is_module(module):
        raise PolicyViolation(
            f"{_where(node)}: '{shown}' is the module '{module}', which level code may not "
            f"reach; allowed modules: {allowed_modules_text()}"
        )


def _is_module(dotted: str) -> bool:
    parent, _, attribute = dotted.rpartition(".")
    return bool(parent) and is_allowed_module(parent) and _submodule(parent, attribute) == dotted


def _dotted(node: ast.expr) -> tuple[str, list[str]] | None:
    """``a.b.c`` as ("a", ["b", "c"]); None for anything that is not a plain name chain."""
    attributes: list[str] = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, attributes[::-1]


def _resolve_module(node: ast.expr, modules: dict[str, str]) -> str | None:
    """The module an expression names (through imports and aliases), when it is one."""
    chain = _dotted(node)
    if chain is None or chain[0] not in modules:
        return None
    module: str | None = modules[chain[0]]
    for attribute in chain[1]:
        if module is None or not is_allowed_module(module):
            return None
        module = _submodule(module, attribute)
    return module


def _check_module_attribute(node: ast.Attribute, modules: dict[str, str]) -> None:
    owner = _resolve_module(node.value, modules)
    if owner is None or not is_allowed_module(owner):
        return
    reached = _submodule(owner, node.attr)
    if reached is not None and not is_allowed_module(reached):
        shown = ".".join(part for part in _flatten(node))
        raise PolicyViolation(
            f"{_where(node)}: '{shown}' is the module '{reached}', which level code may not "
            f"reach; allowed modules: {allowed_modules_text()}"
        )


def _flatten(node: ast.expr) -> list[str]:
    chain = _dotted(node)
    return [] if chain is None else [chain[0], *chain[1]]


def _module_names(tree: ast.Module) -> dict[str, str]:
    """Names bound to modules anywhere in the level: imports, then plain aliases (``m = np``)."""
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    modules[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    assignments = [
        (target.id, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    for _ in range(3):  # aliases of aliases, a few levels deep
        for name, value in assignments:
            module = _resolve_module(value, modules)
            if module is not None:
                modules[name] = module
    return modules


# --- strings built at run time ------------------------------------------------------------------


def _check_built_string(node: ast.expr) -> None:
    text = _fold_string(node)
    if text is not None and "__" in text:
        raise PolicyViolation(
            f"{_where(node)}: a string built at run time contains '__' ({text[:40]!r}); "
            "level code may not name dunder attributes, however it spells them"
        )


def _fold_string(node: ast.expr) -> str | None:
    """The value of a string expression made of literals (``'_' * 2 + 'x'``, f-strings, joins,
    ``chr``), or None when it depends on anything else."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Add):
            left, right = _fold_string(node.left), _fold_string(node.right)
            return None if left is None or right is None else _capped(left + right)
        if isinstance(node.op, ast.Mult):
            for text_node, count_node in ((node.left, node.right), (node.right, node.left)):
                text = _fold_string(text_node)
                if text is not None and isinstance(count_node, ast.Constant):
                    count = count_node.value
                    if isinstance(count, int) and 0 <= count <= _MAX_FOLDED_CHARS:
                        return _capped(text * count)
        return None
    if isinstance(node, ast.JoinedStr):
        parts = [
            _fold_string(part.value if isinstance(part, ast.FormattedValue) else part)
            for part in node.values
        ]
        return None if any(p is None for p in parts) else _capped("".join(map(str, parts)))
    if isinstance(node, ast.Call):
        return _fold_call(node)
    return None


def _fold_call(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name) and func.id == "chr" and len(node.args) == 1:
        code = node.args[0]
        if isinstance(code, ast.Constant) and isinstance(code.value, int):
            return chr(code.value) if 0 <= code.value < 0x110000 else None
    if isinstance(func, ast.Attribute) and func.attr == "join" and len(node.args) == 1:
        separator = _fold_string(func.value)
        items = node.args[0]
        if separator is not None and isinstance(items, ast.List | ast.Tuple):
            parts = [_fold_string(item) for item in items.elts]
            if all(p is not None for p in parts):
                return _capped(separator.join(map(str, parts)))
    return None


def _capped(text: str) -> str | None:
    return text if len(text) <= _MAX_FOLDED_CHARS else None


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
