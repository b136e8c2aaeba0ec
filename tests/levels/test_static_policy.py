"""Static policy: what level code may and may not say, with messages naming the problem."""

from __future__ import annotations

import pytest

from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.static_policy import PolicyViolation, check_policy, parse_level


def _check(body: str) -> None:
    source = f'"""A level."""\n{body}\n\ndef build(level, rng):\n    pass\n'
    check_policy(parse_level(source), source)


@pytest.mark.parametrize("name", sorted(seed_level_sources()))
def test_seed_levels_pass(name: str) -> None:
    source = seed_level_sources()[name]
    level = check_policy(parse_level(source), source)
    assert level.description


@pytest.mark.parametrize(
    "body",
    [
        "import math",
        "import numpy as np",
        "from collections import deque, Counter",
        "from itertools import product",
        "import functools",
        "from numpy.random import default_rng",
        "import numpy.random",
        "from numpy import linalg, zeros",
        "import numpy as np\nr = np.random.default_rng(0)\nn = np.linalg.norm(np.ones(3))",
        "import numpy as np\nm = np\nx = m.random.default_rng(1)",
        "import math\nx = math.floor(2.5)",
        "row = '#' * 4 + '.' + '#' * 5",
        "x = [i * i for i in range(5)]",
        "label = f'{3:02d}'",
        "class Helper:\n    def __init__(self):\n        self.n = 1",
    ],
)
def test_allowed_code_passes(body: str) -> None:
    _check(body)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("import os", "import of 'os' is not allowed; level code may import only collections"),
        ("import numpy, sys", "import of 'sys' is not allowed"),
        ("from os import path", "import of 'os' is not allowed"),
        ("from . import x", "relative imports are not allowed"),
        ("from numpy import *", "import \\*' is not allowed"),
        ("x = (1).__class__", "private or internal attribute '__class__'"),
        ("import numpy\nx = numpy._core", "private or internal attribute '_core'"),
        ("y = eval('1')", "'eval' is not allowed"),
        ("f = open", "'open' is not allowed"),
        ("__builtins__", "dunder name '__builtins__'"),
        ("s = '__globals__'", "strings naming dunder attributes"),
        ("import numpy as np\nnp.load('x')", "attribute 'load' is not allowed"),
        ("x = '{}'.format(1)", "use an f-string"),
        ("async def f():\n    pass", "async code is not allowed"),
        ("g = (x for x in ()).gi_frame", "attribute 'gi_frame'"),
        (
            "def f(rng):\n    return rng.bit_generator.cffi",
            "attribute 'bit_generator' names a module",
        ),
        ("import numpy as np\nx = np.polynomial", "the module 'numpy.polynomial'"),
        ("import numpy\nx = numpy.random.mtrand", "the module 'numpy.random.mtrand'"),
        ("from numpy import polynomial", "the module 'numpy.polynomial'"),
        ("import numpy.polynomial", "import of 'numpy.polynomial' is not allowed"),
        ("import numpy as np\nm = np.random\nk = m.bit_generator", "'numpy.random.bit_generator'"),
        ("import math\nx = math.sys", "attribute 'sys' is not allowed"),
        ("s = '_' * 2 + 'class' + '_' * 2", "built at run time contains '__'"),
        ("s = f\"{'_'}_init{chr(95)}_\"", "built at run time contains '__'"),
        ("s = ''.join(['_', '_', 'dict'])", "built at run time contains '__'"),
        ("def f(o):\n    return o.attrgetter('x')", "attribute 'attrgetter' is not allowed"),
        ("def f(o):\n    return o.methodcaller('x')", "attribute 'methodcaller' is not allowed"),
        ("def f(o):\n    return o.operator", "attribute 'operator' is not allowed"),
        ("x = getattr", "'getattr' is not allowed"),
    ],
)
def test_violations_are_named(body: str, message: str) -> None:
    with pytest.raises(PolicyViolation, match=message):
        _check(body)


def test_violation_reports_the_first_problem_in_reading_order() -> None:
    with pytest.raises(PolicyViolation, match=r"line 3: .*'__class__'"):
        _check("x = 1\ny = ().__class__.__base__.__subclasses__()")


def test_build_must_take_two_arguments() -> None:
    source = '"""A level."""\ndef build(level):\n    pass\n'
    with pytest.raises(PolicyViolation, match=r"exactly two arguments, build\(level, rng\)"):
        check_policy(parse_level(source), source)


def test_syntax_errors_carry_the_line() -> None:
    with pytest.raises(SyntaxError) as info:
        parse_level('"""x"""\ndef build(level, rng)\n    pass\n')
    assert info.value.lineno == 2


def test_oversized_source_is_refused_before_parsing() -> None:
    with pytest.raises(SyntaxError, match="the limit is 64000"):
        parse_level("#" * 70_000)
