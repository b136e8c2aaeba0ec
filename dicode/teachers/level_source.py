"""Reading and writing level source without running it: the parts every domain's genome shares.

Level code is untrusted, so genomes read it with :mod:`ast` only. This module holds what that
needs regardless of the domain: a literal evaluator (constants, known names, integer
arithmetic), the module-level reading (kept imports and helpers, the ``build(level, rng)``
function), ``build``'s statements as a small literal program over a world's builder calls
(`BuilderGrammar.run`), the set-up code policy (statements a genome does not model are kept
verbatim when that is safe), source segments, and a docstring literal that reads back verbatim.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeVar

from dicode.levels.static_policy import is_allowed_module

Value = int | float | str | bool | None | dict[str, float]


class GenomeError(ValueError):
    """A level's code lies outside the genome grammar (the message says where and why)."""


# --- writing ---------------------------------------------------------------------------------


def clean_text(text: str) -> str:
    """Docstring text as ``ast.get_docstring`` reads it back (so write → read round-trips)."""
    return inspect.cleandoc(text)


def docstring_literal(text: str) -> str:
    """A triple-quoted literal that reads back as ``text``."""
    # Backslashes and unprintable characters are escaped so the literal reads back verbatim.
    escaped = "".join(
        ch if ch == "\n" or (ch.isprintable() and ch != "\\") else ascii(ch)[1:-1] for ch in text
    ).replace('"""', '\\"\\"\\"')
    return f'"""{escaped}\n"""'


def write_module(description: str, module_code: str, body: list[str]) -> str:
    """A level module: docstring, kept module code, then ``build(level, rng)`` with ``body``."""
    lines = [docstring_literal(description), ""]
    if module_code:
        lines += [module_code, ""]
    lines += ["", "def build(level, rng):"]
    lines.extend(f"    {line}" if line else "" for line in body)
    return "\n".join(lines) + "\n"


# --- literal evaluation ----------------------------------------------------------------------

_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}
_FUNCTIONS = {"int": int, "abs": abs, "min": min, "max": max}


def evaluate(
    node: ast.expr,
    env: Mapping[str, Value],
    where: str,
    level: str = "",
    constants: Mapping[str, Value] | None = None,
) -> Value:
    """Evaluate a literal expression: constants, known names, arithmetic and comparisons on
    numbers, ``int/abs/min/max``, dict literals, and ``level.<name>`` for the builder's
    ``constants`` (e.g. Tetris's ``level.width``)."""
    known = constants or {}

    def number(sub: ast.expr) -> int | float:
        return as_number(evaluate(sub, env, where, level, known), where)

    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, int | float | str):
            return value
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == level
        and node.attr in known
    ):
        return known[node.attr]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = number(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not evaluate(node.operand, env, where, level, known)
    if isinstance(node, ast.BinOp) and isinstance(
        node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv | ast.Mod
    ):
        left, right = number(node.left), number(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            if abs(left) > 10**6 or abs(right) > 10**6:
                raise GenomeError(f"{where}: number too large")
            return left * right
        if right == 0:
            raise GenomeError(f"{where}: division by zero")
        return left // right if isinstance(node.op, ast.FloorDiv) else left % right
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        values = [number(node.left), *(number(c) for c in node.comparators)]
        return all(
            _COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:], strict=False)
        )
    if isinstance(node, ast.BoolOp):
        results = [bool(evaluate(v, env, where, level, known)) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and node.func.id not in env
        and not node.keywords
        and node.args
    ):
        args = [number(a) for a in node.args]
        if node.func.id in ("int", "abs") and len(args) != 1:
            raise GenomeError(f"{where}: {node.func.id} takes one argument here")
        return _FUNCTIONS[node.func.id](*args)  # type: ignore[operator]
    if isinstance(node, ast.Dict):
        result: dict[str, float] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            name = evaluate(key_node, env, where, level, known) if key_node is not None else None
            if not isinstance(name, str):
                raise GenomeError(f"{where}: dict keys must be piece letters")
            result[name] = number(value_node)
        return result
    raise GenomeError(f"{where}: expression {ast.unparse(node)!r} is outside the genome grammar")


def as_number(value: Value, where: str) -> int | float:
    """``value`` if it is an int or float (not a bool), else a :class:`GenomeError`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GenomeError(f"{where}: expected a number, got {value!r}")
    return value


def as_integer(value: Value, what: str, where: str) -> int:
    """``value`` if it is an int (not a bool), else a :class:`GenomeError` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise GenomeError(f"{where}: {what} must be an integer, got {value!r}")
    return value


def assign(
    node: ast.Assign,
    env: dict[str, Value],
    where: str,
    level: str = "",
    constants: Mapping[str, Value] | None = None,
) -> None:
    """Record ``name = <literal expression>`` in ``env``."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        raise GenomeError(f"{where}: only simple `name = value` assignments are understood")
    env[node.targets[0].id] = evaluate(node.value, env, where, level, constants)


# --- the module around build -----------------------------------------------------------------


@dataclass
class LevelModule:
    """A level module as the genome readers see it before reading ``build``'s body."""

    docstring: str
    env: dict[str, Value]  # module constants the reader could evaluate
    kept: list[str]  # module-level statements kept verbatim (imports, constants, helpers)
    build: ast.FunctionDef
    level: str  # the name build gives the builder
    rng: str  # ... and the random generator


def read_module(tree: ast.Module, source: SourceLines) -> LevelModule:
    """Split a parsed level module into kept module code and its plain ``build(level, rng)``."""
    env: dict[str, Value] = {}
    kept: list[str] = []
    build: ast.FunctionDef | None = None
    for index, node in enumerate(tree.body):
        if index == 0 and is_docstring(node):
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "build":
            if build is not None:
                raise GenomeError(f"line {node.lineno}: a second build function")
            build = node
            continue
        if "build" in stored_names(node):
            raise GenomeError(f"line {node.lineno}: module code rebinds build")
        for child in ast.walk(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                check_import(child)
        # Everything else at module level (imports, constants, helpers) is kept verbatim; a
        # constant it binds is also known to the reader.
        kept.append(source.segment(node))
        if isinstance(node, ast.Assign):
            try:
                assign(node, env, f"line {node.lineno}")
                continue
            except GenomeError:
                pass
        for name in stored_names(node):
            env.pop(name, None)
    if build is None:
        raise GenomeError("no build(level, rng) function")
    arguments = build.args
    names = [a.arg for a in arguments.args]
    if (
        len(names) != 2
        or build.decorator_list
        or arguments.vararg
        or arguments.kwarg
        or arguments.kwonlyargs
        or arguments.posonlyargs
    ):
        raise GenomeError("build must be a plain function of (level, rng)")
    docstring = ast.get_docstring(tree, clean=True) or ""
    return LevelModule(docstring, env, kept, build, names[0], names[1])


# --- build's body: modelled statements and kept set-up code ----------------------------------


class BuildTrace(Protocol):
    """What a domain's reader records while modelling ``build``'s statements."""

    def copy(self) -> Self:
        """An independent copy (a statement is modelled on a trial copy first)."""

    def charge(self, trial: Self) -> None:
        """Take over the reading budget ``trial`` spent on a statement that was then kept."""

    def drop_ordered_edits(self) -> None:
        """Forget the order-dependent edits modelled so far: they now live in the set-up code."""


T = TypeVar("T", bound=BuildTrace)


def read_build_body(
    module: LevelModule,
    source: SourceLines,
    trace: T,
    model: Callable[[ast.stmt, dict[str, Value], T], None],
    lifted: Callable[[ast.stmt], bool],
    kept_attributes: frozenset[str],
) -> tuple[T, list[str]]:
    """Walk ``build``'s statements: model what the domain's grammar covers, keep the rest.

    ``model(node, env, trace)`` models one statement or raises :class:`GenomeError`. A
    statement it cannot model is kept verbatim when :func:`check_keepable` allows it, and the
    statements up to it become the set-up code (order-dependent edits among them included, so
    their order is kept); ``lifted`` statements (order-free setters, which kept code may not
    touch) are taken out of it. Returns the trace of the modelled rest and the set-up lines.
    """
    body = module.build.body
    if body and is_docstring(body[0]):
        body = body[1:]
    setup: list[str] = []
    pending: list[str] = []  # modelled order-dependent statements since the last kept one
    env = module.env
    for node in body:
        trial = trace.copy()
        trial_env = dict(env)
        try:
            for name in assigned_names(node):
                if name in (module.level, module.rng):
                    raise GenomeError(f"line {node.lineno}: {name} is rebound")
            model(node, trial_env, trial)
        except GenomeError as reason:
            # The work spent on a failed statement still counts against the reader's budget.
            trace.charge(trial)
            check_keepable(node, module.level, module.rng, reason, kept_attributes)
            setup.extend([*pending, source.segment(node)])
            pending = []
            trace.drop_ordered_edits()
            for name in stored_names(node):
                env.pop(name, None)
            continue
        trace = trial
        env = trial_env
        if not lifted(node) and not isinstance(node, ast.Pass):
            pending.append(source.segment(node))
    module.env = env
    return trace, setup


def assigned_names(node: ast.stmt) -> list[str]:
    """Names a modelled statement binds directly (assignment targets and loop variables)."""
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def check_keepable(
    node: ast.stmt, level: str, rng: str, reason: GenomeError, kept_attributes: frozenset[str]
) -> None:
    """Kept code must not end ``build`` early, rebind its arguments, pass the builder around or
    use builder attributes other than ``kept_attributes``; otherwise the reading fails with
    ``reason`` attached."""
    where = f"line {node.lineno}"
    for child in walk_same_function(node):
        if isinstance(child, ast.Return | ast.Yield | ast.YieldFrom | ast.Await):
            raise GenomeError(f"{where}: {type(child).__name__.lower()} in build ({reason})")
        if isinstance(child, ast.Global | ast.Nonlocal):
            raise GenomeError(f"{where}: global/nonlocal in build ({reason})")
    for child in ast.walk(node):
        if (
            isinstance(child, ast.Name)
            and child.id in (level, rng)
            and isinstance(child.ctx, ast.Store | ast.Del)
        ):
            raise GenomeError(f"{where}: {child.id} is rebound")
        if isinstance(child, ast.Import | ast.ImportFrom):
            check_import(child)
    # The builder may only be used as ``level.<allowed attribute>``: passed along, it could set
    # anything; private or unknown attributes are the sandbox's business, not the genome's.
    attribute_values = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
            attribute_values.add(id(child.value))
            if child.value.id == level and child.attr not in kept_attributes:
                raise GenomeError(
                    f"{where}: level.{child.attr} inside code the genome keeps ({reason})"
                )
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id == level and id(child) not in attribute_values:
            raise GenomeError(f"{where}: the builder is passed around in kept code")


def builder_call(node: ast.stmt, level: str) -> tuple[str, ast.Call] | None:
    """``node`` as a statement ``level.<method>(...)``: the method's name and the call, or None."""
    if (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and isinstance(node.value.func.value, ast.Name)
        and node.value.func.value.id == level
    ):
        return node.value.func.attr, node.value
    return None


def builder_arguments(
    call: ast.Call,
    signatures: Mapping[str, tuple[str, ...]],
    env: Mapping[str, Value],
    where: str,
    level: str,
    constants: Mapping[str, Value] | None = None,
) -> tuple[str, dict[str, Value]]:
    """A ``level.<method>(...)`` call of the genome grammar: the method's name and its arguments
    by parameter name, each a literal expression (`evaluate`); a :class:`GenomeError` for a call
    outside ``signatures``, too many arguments or an unknown or repeated keyword."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == level
        and func.attr in signatures
    ):
        raise GenomeError(f"{where}: call {ast.unparse(func)!r} is outside the genome grammar")
    method = func.attr
    params = signatures[method]
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
        raise GenomeError(f"{where}: too many arguments to level.{method}")
    args: dict[str, Value] = {}
    for name, arg in zip(params, call.args, strict=False):
        args[name] = evaluate(arg, env, where, level, constants)
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params or keyword.arg in args:
            raise GenomeError(f"{where}: unexpected argument {keyword.arg!r} to level.{method}")
        args[keyword.arg] = evaluate(keyword.value, env, where, level, constants)
    return method, args


# --- build's statements as a small literal program (the maze and Tetris genomes) -------------

#: The reader gives up on loops that would unroll into more builder calls or steps than this.
MAX_UNROLLED_CALLS = 2000
MAX_LOOP_STEPS = 10_000


class ReadingCost(Protocol):
    """What reading one level has cost so far (a trace carries it)."""

    calls: int  # builder calls modelled
    loop_steps: int  # loop iterations run


C = TypeVar("C", bound=ReadingCost)


@dataclass(frozen=True)
class BuilderGrammar(Generic[C]):
    """A world's builder as its genome models it: the calls by parameter names, the builder's
    constants (``level.size``) and what one modelled call does to the trace."""

    signatures: Mapping[str, tuple[str, ...]]
    constants: Mapping[str, Value]
    apply: Callable[[str, dict[str, Value], C, str], None]  # (method, args, trace, where)

    def run(
        self, body: list[ast.stmt], env: dict[str, Value], level: str, rng: str, trace: C
    ) -> None:
        """Model ``body`` on ``trace``: constant assignments (into ``env``), the builder's calls
        (`builder_arguments`, then ``apply``), ``if`` on a literal test, ``for`` over
        ``range(...)`` or a literal tuple (unrolled within the budget above); anything else is a
        :class:`GenomeError`. ``level`` and ``rng`` are ``build``'s names for its arguments."""
        _run_block(body, _BuildScope(env, level, rng), trace, self)


@dataclass
class _BuildScope:
    """Names the reader knows while walking ``build``: constants, the builder's and the random
    generator's names."""

    env: dict[str, Value]
    level: str
    rng: str

    def check_target(self, name: str, where: str) -> None:
        if name in (self.level, self.rng):
            raise GenomeError(f"{where}: {name} is rebound")


def _run_block(
    body: list[ast.stmt], scope: _BuildScope, trace: C, grammar: BuilderGrammar[C]
) -> None:
    for node in body:
        where = f"line {node.lineno}"
        if isinstance(node, ast.Pass) or is_docstring(node):
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.check_target(target.id, where)
            assign(node, scope.env, where, scope.level, grammar.constants)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            method, args = builder_arguments(
                node.value, grammar.signatures, scope.env, where, scope.level, grammar.constants
            )
            trace.calls += 1
            if trace.calls > MAX_UNROLLED_CALLS:
                raise GenomeError(f"{where}: more than {MAX_UNROLLED_CALLS} builder calls")
            grammar.apply(method, args, trace, where)
        elif isinstance(node, ast.For) and not node.orelse:
            names = _loop_targets(node.target, where)
            for name in names:
                scope.check_target(name, where)
            for values in _iteration_values(node.iter, scope, grammar.constants, where, len(names)):
                trace.loop_steps += 1
                if trace.loop_steps > MAX_LOOP_STEPS:
                    raise GenomeError(f"{where}: loops run more than {MAX_LOOP_STEPS} steps")
                scope.env.update(zip(names, values, strict=True))
                _run_block(node.body, scope, trace, grammar)
        elif isinstance(node, ast.If):
            test = evaluate(node.test, scope.env, where, scope.level, grammar.constants)
            _run_block(node.body if test else node.orelse, scope, trace, grammar)
        else:
            raise GenomeError(f"{where}: {type(node).__name__} is outside the genome grammar")


def _loop_targets(target: ast.expr, where: str) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts if isinstance(e, ast.Name)]
    raise GenomeError(f"{where}: loop targets must be names")


def _iteration_values(
    node: ast.expr, scope: _BuildScope, constants: Mapping[str, Value], where: str, arity: int
) -> Iterable[tuple[int, ...]]:
    env = scope.env

    def integer(expr: ast.expr, what: str) -> int:
        return as_integer(evaluate(expr, env, where, scope.level, constants), what, where)

    if isinstance(node, ast.Tuple | ast.List):
        values: list[tuple[int, ...]] = []
        for element in node.elts:
            if arity == 1:
                values.append((integer(element, "loop value"),))
            elif isinstance(element, ast.Tuple) and len(element.elts) == arity:
                values.append(tuple(integer(e, "loop value") for e in element.elts))
            else:
                raise GenomeError(f"{where}: loop values must be tuples of {arity} numbers")
        return values
    if (
        arity == 1
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and "range" not in env
        and not node.keywords
        and 1 <= len(node.args) <= 3
    ):
        args = [integer(a, "range argument") for a in node.args]
        if len(args) == 3 and args[2] == 0:
            raise GenomeError(f"{where}: range step 0")
        steps = range(*args)
        if len(steps) > MAX_UNROLLED_CALLS:
            raise GenomeError(f"{where}: loop of {len(steps)} steps is too long to unroll")
        return [(value,) for value in steps]
    raise GenomeError(f"{where}: loops must run over range(...) or a literal tuple")


# --- small AST helpers -----------------------------------------------------------------------


def walk_same_function(node: ast.AST) -> Iterable[ast.AST]:
    """``ast.walk`` that does not descend into nested functions, lambdas or classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
            ):
                stack.append(child)


def stored_names(node: ast.AST) -> set[str]:
    """Every name ``node`` binds: assignment targets, functions, classes, imports."""
    names = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    for child in ast.walk(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(child.name)
        elif isinstance(child, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in child.names)
    return names


def check_import(node: ast.Import | ast.ImportFrom) -> None:
    """Only the modules level code may import (the sandbox enforces the same list)."""
    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    for module in modules:
        relative = isinstance(node, ast.ImportFrom) and node.level > 0
        if relative or not is_allowed_module(module):
            raise GenomeError(f"line {node.lineno}: import of {module!r} is not allowed")


def is_docstring(node: ast.stmt) -> bool:
    """Is ``node`` a bare string literal statement?"""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


class SourceLines:
    """A statement's source text, as ``ast.get_source_segment(padded=True)`` gives it, but with
    the source split into lines once (the stdlib re-splits the whole source on every call)."""

    def __init__(self, source: str) -> None:
        # Line ends as the tokenizer sees them (not str.splitlines, which knows more breaks).
        found = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)
        self.lines = [line.encode() for line in found]

    def segment(self, node: ast.stmt) -> str:
        end_line, end_col = node.end_lineno, node.end_col_offset
        if end_line is None or end_col is None or end_line > len(self.lines):
            raise GenomeError(f"line {node.lineno}: cannot recover the source of this statement")
        first, last = node.lineno - 1, end_line - 1
        prefix = self.lines[first][: node.col_offset].decode()
        padding = "".join(c if c in "\t\f" else " " for c in prefix)
        if first == last:
            text = self.lines[first][node.col_offset : end_col].decode()
        else:
            middle = b"".join(self.lines[first + 1 : last]).decode()
            head = self.lines[first][node.col_offset :].decode()
            text = head + middle + self.lines[last][:end_col].decode()
        return textwrap.dedent(padding + text)
