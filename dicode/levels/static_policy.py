"""Static checks on level source, run before any of it executes (a courtesy, not the wall).

The sandbox's process boundary (bubblewrap, seccomp, rlimits) is the wall: it assumes level code
reaches ``os`` anyway. These checks reject the known escape routes early, with a message that
tells a code model exactly what to change.

``ALLOWED_MODULES`` is the project's one allow-list: the static check, the genome readers and the
sandbox worker (which receives it on its command line) all use it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import pkgutil
import re
import types
from collections.abc import Callable
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
        # attribute access by a name computed at run time (functools copies attributes named
        # by strings), and modules that are never allowed
        "operator", "attrgetter", "methodcaller", "builtins", "importlib", "subprocess",
        "shutil", "pathlib", "pickle", "marshal", "socket", "inspect", "gc", "wraps",
        "update_wrapper", "WRAPPER_ASSIGNMENTS", "WRAPPER_UPDATES",
    }
)  # fmt: skip
FORBIDDEN_ATTRIBUTE_PREFIXES = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_")
# A format field that reads an attribute or an item ("{0.x}", "{0[k]}"): str.format's way of
# reaching attributes by a name written in a string.
_FORMAT_FIELD_ACCESS = re.compile(r"\{\s*\w*\s*(?:\.\s*\w|\[)")

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
    strings = _string_names(tree)
    # Inner links of a + b + c chains are folded with the whole chain, once.
    chained = {
        id(node.left)
        for node in nodes
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
    }
    for node in nodes:
        _check_node(node, modules, strings if id(node) not in chained else None)
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


def _check_node(node: ast.AST, modules: dict[str, str], strings: _StringNames | None) -> None:
    """One node against the rules; ``strings`` is None where a string built around this node
    is checked from its outer expression."""
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
            _check_module_name(alias.name, node)
    elif isinstance(node, ast.Attribute):
        _check_attribute_name(node.attr, node)
        _check_module_attribute(node, modules)
        _check_module_name(node.attr, node)
    elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            _check_module_change(target, modules)
    elif isinstance(node, ast.MatchClass):
        # ``case C(attr=x)`` reads ``attr`` from the subject like ``subject.attr`` would.
        for attribute in node.kwd_attrs:
            _check_attribute_name(attribute, node)
            _check_module_name(attribute, node)
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name is not None:
        _check_identifier(node.name, node, "name")
    elif isinstance(node, ast.MatchMapping) and node.rest is not None:
        _check_identifier(node.rest, node, "name")
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
        field = _FORMAT_FIELD_ACCESS.search(text)
        if field:
            raise PolicyViolation(
                f"{_where(node)}: format fields that read attributes or items ({field[0]!r}) "
                "are not allowed; use an f-string with plain names"
            )
    if strings is not None and (
        isinstance(node, ast.BinOp | ast.JoinedStr | ast.Call | ast.Subscript)
        or (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load))
    ):
        _check_built_string(node, strings)


def _check_import(module: str, node: ast.AST) -> None:
    if not is_allowed_module(module):
        raise PolicyViolation(
            f"{_where(node)}: import of '{module}' is not allowed; "
            f"level code may import only {allowed_modules_text()}"
        )


def _check_identifier(name: str, node: ast.AST, kind: str) -> None:
    if name.startswith("__"):
        raise PolicyViolation(f"{_where(node)}: dunder {kind} '{name}' is not allowed")
    # Private names too ('_' alone is the usual throw-away name): in a namespace borrowed from
    # a module (a class body, a function's globals) they would read the module's internals.
    if name.startswith("_") and name != "_":
        raise PolicyViolation(
            f"{_where(node)}: private {kind} '{name}' is not allowed; "
            f"name it without the leading underscore"
        )


def _check_attribute_name(name: str, node: ast.AST) -> None:
    if name.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES):
        raise PolicyViolation(
            f"{_where(node)}: access to private or internal attribute '{name}' is not allowed"
        )
    if name in FORBIDDEN_ATTRIBUTES or name in FORBIDDEN_NAMES:
        hint = " (use an f-string)" if name in ("format", "format_map") else ""
        raise PolicyViolation(
            f"{_where(node)}: attribute '{name}' is not allowed in level code{hint}"
        )


def _check_module_name(name: str, node: ast.AST) -> None:
    if name in _forbidden_module_attributes():
        raise PolicyViolation(
            f"{_where(node)}: attribute '{name}' names a module that level code may not reach "
            f"(whatever object it is read from); allowed modules: {allowed_modules_text()}"
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


@functools.cache
def _forbidden_module_attributes() -> frozenset[str]:
    """Attribute names that, on some allowed module, name a module level code may not reach
    (and name no allowed one): refused on any object, since what an expression holds at run
    time (``[np.random][0].mtrand``) cannot be followed statically."""
    reached: dict[str, set[str]] = {}
    for name in ALLOWED_MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if isinstance(value, types.ModuleType):
                reached.setdefault(attribute, set()).add(value.__name__)
        for found in pkgutil.iter_modules(getattr(module, "__path__", [])):
            reached.setdefault(found.name, set()).add(f"{name}.{found.name}")
    return frozenset(
        attribute
        for attribute, modules in reached.items()
        if not attribute.startswith("_") and not any(is_allowed_module(m) for m in modules)
    )


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


def _check_module_change(target: ast.expr, modules: dict[str, str]) -> None:
    """Refuse ``np.stack = ...``: modules are shared with the code that runs after the level."""
    for node in ast.walk(target):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            owner = _resolve_module(node.value, modules)
            if owner is not None:
                raise PolicyViolation(
                    f"{_where(node)}: level code may not change the module '{owner}' "
                    f"('{'.'.join(_flatten(node))}')"
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

# Name → the strings it may hold, from every assignment whose value folds to literals.
_StringNames = dict[str, set[str]]
_MAX_CANDIDATES = 64  # strings followed per expression; beyond that, the expression is dropped


def _check_built_string(node: ast.expr, strings: _StringNames) -> None:
    for text in _fold_string(node, strings) or ():
        if "__" in text:
            raise PolicyViolation(
                f"{_where(node)}: a string built at run time contains '__' ({text[:40]!r}); "
                "level code may not name dunder attributes, however it spells them"
            )
        field = _FORMAT_FIELD_ACCESS.search(text)
        if field:
            raise PolicyViolation(
                f"{_where(node)}: a string built at run time holds a format field that reads "
                f"attributes or items ({field[0]!r}); use an f-string with plain names"
            )


def _string_names(tree: ast.Module) -> _StringNames:
    """What each name may hold as a string, following assignments (plain, annotated,
    augmented, walrus) and loops over literal sequences, a few rounds deep."""
    bindings: list[tuple[str, ast.expr, bool]] = []  # name, value, appended (+=)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            bindings += [(t.id, node.value, False) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            if isinstance(node.target, ast.Name):
                bindings.append((node.target.id, node.value, False))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if isinstance(node.op, ast.Add):
                bindings.append((node.target.id, node.value, True))
        elif (
            isinstance(node, ast.For | ast.comprehension)
            and isinstance(node.target, ast.Name)
            and isinstance(node.iter, ast.List | ast.Tuple | ast.Set)
        ):
            bindings += [(node.target.id, item, False) for item in node.iter.elts]
    strings: _StringNames = {}
    for _ in range(4):
        for name, value, appended in bindings:
            folded = _fold_string(value, strings)
            if not folded:
                continue
            known = strings.setdefault(name, set())
            if appended:
                folded = _combine(known, folded, lambda a, b: a + b) or set()
            known |= set(sorted(folded)[:_MAX_CANDIDATES])
            if len(known) > _MAX_CANDIDATES:
                strings[name] = set(sorted(known)[:_MAX_CANDIDATES])
    return strings


def _fold_string(node: ast.expr, strings: _StringNames) -> set[str] | None:
    """The strings an expression made of literals and string names may have (``'_' * 2 +
    'x'``, f-strings, joins, slices, ``chr``, ``%``), or None when it depends on anything
    else."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return set(strings[node.id]) if strings.get(node.id) else None
    if isinstance(node, ast.BinOp):
        return _fold_binop(node, strings)
    if isinstance(node, ast.JoinedStr):
        texts: set[str] | None = {""}
        for part in node.values:
            value = part.value if isinstance(part, ast.FormattedValue) else part
            texts = _combine(texts, _fold_string(value, strings), lambda a, b: a + b)
        return texts
    if isinstance(node, ast.Subscript):
        return _fold_subscript(node, strings)
    if isinstance(node, ast.Call):
        return _fold_call(node, strings)
    return None


def _fold_binop(node: ast.BinOp, strings: _StringNames) -> set[str] | None:
    if isinstance(node.op, ast.Add):
        # A long chain a + b + c + … nests to the left: walk it in a loop, not by recursion.
        operands = []
        spine: ast.expr = node
        while isinstance(spine, ast.BinOp) and isinstance(spine.op, ast.Add):
            operands.append(spine.right)
            spine = spine.left
        texts: set[str] | None = _fold_string(spine, strings)
        for operand in reversed(operands):
            texts = _combine(texts, _fold_string(operand, strings), lambda a, b: a + b)
        return texts
    if isinstance(node.op, ast.Mult):
        for text_node, count_node in ((node.left, node.right), (node.right, node.left)):
            texts = _fold_string(text_node, strings)
            if texts is not None and isinstance(count_node, ast.Constant):
                count = count_node.value
                if isinstance(count, int) and 0 <= count <= _MAX_FOLDED_CHARS:
                    return _capped({text * count for text in texts})
        return None
    if isinstance(node.op, ast.Mod):
        template = _fold_string(node.left, strings)
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        values = [_fold_string(item, strings) for item in items]
        if template is None or any(v is None for v in values) or len(template) != 1:
            return None
        try:
            return _capped({next(iter(template)) % tuple(next(iter(v or ())) for v in values)})
        except (TypeError, ValueError):
            return None
    return None


def _fold_subscript(node: ast.Subscript, strings: _StringNames) -> set[str] | None:
    texts = _fold_string(node.value, strings)
    index = node.slice
    if texts is None:
        return None
    if isinstance(index, ast.Constant) and isinstance(index.value, int):
        return _capped({t[index.value] for t in texts if -len(t) <= index.value < len(t)})
    if isinstance(index, ast.Slice) and _constant_slice(index):
        lower, upper, step = (
            b.value if isinstance(b, ast.Constant) and isinstance(b.value, int) else None
            for b in (index.lower, index.upper, index.step)
        )
        return _capped({t[lower:upper:step] for t in texts})
    return None


def _constant_slice(index: ast.Slice) -> bool:
    """A slice of integer literals (or omitted bounds), with a step other than zero."""
    bounds = (index.lower, index.upper, index.step)
    literal = all(
        b is None or (isinstance(b, ast.Constant) and isinstance(b.value, int)) for b in bounds
    )
    return literal and not (isinstance(index.step, ast.Constant) and index.step.value == 0)


_STRING_METHODS = ("upper", "lower", "strip", "lstrip", "rstrip", "replace", "swapcase")


def _fold_call(node: ast.Call, strings: _StringNames) -> set[str] | None:
    func = node.func
    if isinstance(func, ast.Name) and func.id == "chr" and len(node.args) == 1:
        code = node.args[0]
        if isinstance(code, ast.Constant) and isinstance(code.value, int):
            return {chr(code.value)} if 0 <= code.value < 0x110000 else None
    if isinstance(func, ast.Name) and func.id == "str" and len(node.args) == 1:
        return _fold_string(node.args[0], strings)
    if not isinstance(func, ast.Attribute):
        return None
    owner = _fold_string(func.value, strings)
    if owner is None:
        return None
    if func.attr == "join" and len(node.args) == 1:
        items = node.args[0]
        if isinstance(items, ast.List | ast.Tuple):
            texts: set[str] | None = {""}
            for position, item in enumerate(items.elts):
                part = _fold_string(item, strings)
                joined = _combine(texts, part, lambda a, b: a + b)
                if position < len(items.elts) - 1:
                    joined = _combine(joined, owner, lambda a, b: a + b)
                texts = joined
            return texts
    if func.attr in _STRING_METHODS:
        arguments = [_fold_string(a, strings) for a in node.args]
        if any(a is None or len(a) != 1 for a in arguments):
            return None
        plain = [next(iter(a or ())) for a in arguments]
        try:
            return _capped({getattr(text, func.attr)(*plain) for text in owner})
        except (TypeError, ValueError):
            return None
    return None


def _combine(
    left: set[str] | None, right: set[str] | None, join: Callable[[str, str], str]
) -> set[str] | None:
    if left is None or right is None:
        return None
    return _capped({join(a, b) for a in sorted(left) for b in sorted(right)})


def _capped(texts: set[str]) -> set[str] | None:
    kept = {text for text in texts if len(text) <= _MAX_FOLDED_CHARS}
    if not kept or len(kept) > _MAX_CANDIDATES * 4:
        return None
    return kept


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
