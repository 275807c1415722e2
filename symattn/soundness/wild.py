"""Claims as third-party texts write them, with an evaluator of their own: the wider classes.

Imports only numpy and the standard library; nothing from symattn (the truth here shares no code
with the kernel or the reader). The runner (`soundness.differential`) sends them through
`symattn check` and `symattn prove`.

Classes (`WILD_TEMPLATES`), each with true identities and single-place mutants of them, the truth
decided by evaluating both sides here, never taken from the template:

- `trig`: angle sums and doublings of `\\sin`, `\\cos` over undeclared real letters;
- `exp_log`: `\\exp`, `e^{x}`, `\\log` (the exponential law, a two-term softmax, its shift);
- `size_coef`: sizes that enter as numbers (`\\sum_{i=1}^{n} i = n(n+1)/2`, causal counts), and
  mutants off by a polynomial that vanishes at small sizes only;
- `components`: `q\\cdot k=\\sum_i q_i k_i` over vector components, declared or not;
- `hadamard`: `\\odot` entrywise, commuting, transposed, distributed;
- `written`: matrices written out with scalar entries (rotations, literal products);
- `time_family`: a state defined by `S_t = S_{t-1} + v_t k_t^\\top`, and claims about `S_2`, `S_3`.

A claim is true when both sides agree (rtol 1e-9) at every size plan and data seed; sizes that
enter as numbers are tried at every value 1..12 (a polynomial of degree below 12 that vanishes
there vanishes everywhere); an index outside its vector or matrix makes the claim ill-formed, and
sides of different shapes make it ill-typed.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

# ---- the AST ----------------------------------------------------------------------------------


class Node:
    """A node of a wild claim: scalars, vectors and small matrices."""


@dataclass(frozen=True)
class Var(Node):  # a real number named by a letter the text never declares
    name: str


@dataclass(frozen=True)
class Size(Node):  # a size: a positive integer (n, d_k, d)
    name: str


@dataclass(frozen=True)
class Ix(Node):  # a bound or free index, an integer
    name: str


@dataclass(frozen=True)
class Num(Node):
    value: Fraction


@dataclass(frozen=True)
class Fn(Node):  # sin, cos, exp (also written e^{x}), log
    fn: str
    x: Node
    style: str = ""


@dataclass(frozen=True)
class Plus(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Minus(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Times(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Neg(Node):
    a: Node


@dataclass(frozen=True)
class Power(Node):  # x^k, k a positive integer; `\sin^2 x` for a function
    a: Node
    k: int


@dataclass(frozen=True)
class Ratio(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Sum(Node):
    var: str
    lo: Node
    hi: Node
    body: Node


@dataclass(frozen=True)
class Vec(Node):  # a vector of `size` components (a column)
    name: str
    size: str


@dataclass(frozen=True)
class Comp(Node):  # q_i: component i of a vector
    v: Vec
    i: Node


@dataclass(frozen=True)
class DotP(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Mat(Node):
    name: str
    rows: str
    cols: str


@dataclass(frozen=True)
class Lit(Node):  # a matrix written out, entries scalar nodes
    rows: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True)
class MMul(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class MT(Node):
    a: Node


@dataclass(frozen=True)
class Had(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class MEntry(Node):
    m: Node
    i: Node
    j: Node


@dataclass(frozen=True)
class State(Node):  # S_t of the recurrence S_0 = 0, S_t = S_{t-1} + v_t k_t^T
    t: int


@dataclass(frozen=True)
class FamVec(Node):  # v_t, k_t: the t-th vector of a family
    name: str
    t: int
    size: str


@dataclass(frozen=True)
class WildSpec:
    lhs: Node
    rhs: Node
    free: tuple[tuple[str, str], ...] = ()  # free indices and the size each runs over


@dataclass(frozen=True)
class WildClaim:
    """A generated claim: its AST, its class, its mutations and how the texts state it."""

    ident: str
    template: str
    spec: WildSpec
    mutations: tuple[str, ...] = ()
    declare: bool = False  # the document declares the shapes (else they must be inferred)

    @property
    def label(self) -> str:
        muts = "+".join(self.mutations) if self.mutations else "unmutated"
        return f"{self.ident} {self.template} [{muts}]"


# ---- evaluation: the truth ---------------------------------------------------------------------


class IllFormed(Exception):
    """An index outside its vector or matrix, a log of a non-positive number, a zero division."""


class IllTyped(Exception):
    """Shapes that do not fit."""


SIZE_VALUES = tuple(range(1, 13))
DATA_PLANS: tuple[dict[str, int], ...] = (
    {"n": 3, "m": 4, "d_k": 5, "d_v": 2, "d": 6},
    {"n": 4, "m": 2, "d_k": 3, "d_v": 5, "d": 7},
)


class _Env:
    def __init__(self, sizes: Mapping[str, int], seed: int):
        self.sizes = dict(sizes)
        self.rng = np.random.default_rng(seed)
        self.data: dict[tuple, Any] = {}
        self.ix: dict[str, int] = {}

    def draw(self, key: tuple, shape: tuple[int, ...] = ()) -> Any:
        if key not in self.data:
            self.data[key] = (
                self.rng.uniform(-1.5, 1.5, size=shape)
                if shape
                else float(self.rng.uniform(-1.5, 1.5))
            )
        return self.data[key]


def _int(x: Any) -> int:
    v = float(x)
    if abs(v - round(v)) > 1e-9:
        raise IllFormed(f"a non-integer index {v}")
    return int(round(v))


def value(e: Node, env: _Env) -> Any:
    """A float or a 2-d numpy array (vectors are columns)."""
    if isinstance(e, Var):
        return env.draw(("var", e.name))
    if isinstance(e, Size):
        return float(env.sizes[e.name])
    if isinstance(e, Ix):
        if e.name not in env.ix:
            raise IllFormed(f"the index {e.name} has no value")
        return float(env.ix[e.name])
    if isinstance(e, Num):
        return float(e.value)
    if isinstance(e, Fn):
        x = _scalar(value(e.x, env))
        if e.fn == "log":
            if x <= 0:
                raise IllFormed("a log of a non-positive number")
            return math.log(x)
        return {"sin": math.sin, "cos": math.cos, "exp": math.exp}[e.fn](x)
    if isinstance(e, (Plus, Minus)):
        a, b = value(e.a, env), value(e.b, env)
        if np.shape(a) != np.shape(b):
            raise IllTyped("a sum of different shapes")
        return a + b if isinstance(e, Plus) else a - b
    if isinstance(e, Neg):
        return -value(e.a, env)
    if isinstance(e, Times):
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) and np.ndim(b):
            raise IllTyped("a product of two matrices written without a product rule")
        return a * b
    if isinstance(e, Power):
        return _scalar(value(e.a, env)) ** e.k
    if isinstance(e, Ratio):
        a, b = _scalar(value(e.a, env)), _scalar(value(e.b, env))
        if abs(b) < 1e-300:
            raise IllFormed("a division by zero")
        return a / b
    if isinstance(e, Sum):
        lo, hi = _int(value(e.lo, env)), _int(value(e.hi, env))
        if hi < lo - 1:
            raise IllFormed("a reversed sum")
        total: Any = 0.0
        old = env.ix.get(e.var)
        for k in range(lo, hi + 1):
            env.ix[e.var] = k
            total = total + value(e.body, env)
        if old is None:
            env.ix.pop(e.var, None)
        else:
            env.ix[e.var] = old
        return total
    if isinstance(e, Vec):
        return env.draw(("vec", e.name), (env.sizes[e.size], 1))
    if isinstance(e, Comp):
        v = value(e.v, env)
        k = _int(value(e.i, env))
        if not 1 <= k <= v.shape[0]:
            raise IllFormed(f"component {k} of a vector of {v.shape[0]}")
        return float(v[k - 1, 0])
    if isinstance(e, DotP):
        a, b = value(e.a, env), value(e.b, env)
        if np.shape(a) != np.shape(b) or np.ndim(a) != 2 or a.shape[1] != 1:
            raise IllTyped("a dot product of vectors of different sizes")
        return float((a * b).sum())
    if isinstance(e, Mat):
        return env.draw(("mat", e.name), (env.sizes[e.rows], env.sizes[e.cols]))
    if isinstance(e, Lit):
        return np.array([[_scalar(value(x, env)) for x in row] for row in e.rows], dtype=float)
    if isinstance(e, MMul):
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) != 2 or np.ndim(b) != 2 or a.shape[1] != b.shape[0]:
            raise IllTyped("a product of matrices whose inner sizes differ")
        return a @ b
    if isinstance(e, MT):
        a = value(e.a, env)
        if np.ndim(a) != 2:
            raise IllTyped("a transposed scalar")
        return a.T
    if isinstance(e, Had):
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) != 2 or np.shape(a) != np.shape(b):
            raise IllTyped("an entrywise product of different shapes")
        return a * b
    if isinstance(e, MEntry):
        m = value(e.m, env)
        if np.ndim(m) != 2:
            raise IllTyped("an entry of a scalar")
        i, j = _int(value(e.i, env)), _int(value(e.j, env))
        if not (1 <= i <= m.shape[0] and 1 <= j <= m.shape[1]):
            raise IllFormed(f"entry ({i}, {j}) of a {m.shape[0]} x {m.shape[1]} matrix")
        return float(m[i - 1, j - 1])
    if isinstance(e, FamVec):
        return env.draw(("fam", e.name, e.t), (env.sizes[e.size], 1))
    if isinstance(e, State):
        s = np.zeros((env.sizes["d_v"], env.sizes["d_k"]))
        for t in range(1, e.t + 1):
            s = s + value(FamVec("v", t, "d_v"), env) @ value(FamVec("k", t, "d_k"), env).T
        return s
    raise TypeError(f"no value for {type(e).__name__}")


def _scalar(x: Any) -> float:
    if np.ndim(x) == 0:
        return float(x)
    if np.shape(x) == (1, 1):
        return float(x[0, 0])
    raise IllTyped("a matrix where a number is meant")


def _same(a: Any, b: Any) -> bool:
    if np.ndim(a) == 0 and np.shape(b) == (1, 1):
        b = float(b[0, 0])
    if np.ndim(b) == 0 and np.shape(a) == (1, 1):
        a = float(a[0, 0])
    if np.shape(a) != np.shape(b):
        raise IllTyped("sides of different shapes")
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-9))


def sizes_in(*es: Node) -> set[str]:
    out: set[str] = set()
    for e in es:
        for x in walk(e):
            if isinstance(x, Size):
                out.add(x.name)
    return out


def decide(spec: WildSpec, at: Mapping[str, int] | None = None) -> str:
    """ "true", "false", "ill_typed" or "ill_formed", by evaluating both sides here; `at` fixes
    sizes (those a `checked` verdict lists)."""
    numeric = sorted(sizes_in(spec.lhs, spec.rhs) - set(at or {}))
    plans: list[dict[str, int]] = []
    if at:
        plans = [{**DATA_PLANS[0], **at}]
    elif numeric:
        # every value 1..12 of the sizes that enter as numbers (two at most), the rest fixed
        grid: list[dict[str, int]] = [{}]
        for name in numeric[:2]:
            grid = [{**g, name: v} for g in grid for v in SIZE_VALUES]
        plans = [{**DATA_PLANS[k % 2], **g} for k, g in enumerate(grid)]
    else:
        plans = list(DATA_PLANS)
    seeds = (0, 1) if not numeric else (0,)
    try:
        for plan in plans:
            for seed in seeds:
                env = _Env(plan, seed)
                for point in _points(spec.free, plan):
                    env.ix = dict(point)
                    if not _same(value(spec.lhs, env), value(spec.rhs, env)):
                        return "false"
    except IllTyped:
        return "ill_typed"
    except IllFormed:
        return "ill_formed"
    except OverflowError:
        return "ill_formed"
    return "true"


def _points(free: Sequence[tuple[str, str]], plan: Mapping[str, int]) -> list[dict[str, int]]:
    out: list[dict[str, int]] = [{}]
    for name, size in free:
        out = [{**p, name: v} for p in out for v in range(1, plan[size] + 1)]
    return out


def walk(e: Any) -> Any:
    yield e
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, Node):
            yield from walk(v)
        elif isinstance(v, tuple):
            for row in v:
                for x in row if isinstance(row, tuple) else (row,):
                    if isinstance(x, Node):
                        yield from walk(x)


# ---- LaTeX ------------------------------------------------------------------------------------

GREEK = {"theta": "\\theta", "phi": "\\phi", "alpha": "\\alpha", "beta": "\\beta"}
PREC = {"add": 1, "mul": 2, "pow": 3, "atom": 4}


def tex(e: Node) -> str:
    return _tex(e)[0]


def _tex(e: Node) -> tuple[str, int]:
    if isinstance(e, Var):
        return GREEK.get(e.name, e.name), 4
    if isinstance(e, (Size, Ix)):
        return e.name, 4
    if isinstance(e, Num):
        v = e.value
        if v.denominator != 1:
            return f"\\frac{{{v.numerator}}}{{{v.denominator}}}", 4
        return (str(v.numerator), 4) if v >= 0 else (str(v.numerator), 1)
    if isinstance(e, Fn):
        arg, p = _tex(e.x)
        if e.fn == "exp" and e.style == "e":
            return f"e^{{{arg}}}", 3
        simple = p == 4 and len(arg) <= 8 and not arg.startswith("\\frac")
        if e.fn in ("log", "exp"):  # as texts write them: \exp(x), \log(x)
            return f"\\{e.fn}({arg})", 4
        if not simple:
            return f"\\{e.fn}\\left({arg}\\right)", 4
        return f"\\{e.fn} {arg}", 2
    if isinstance(e, Plus):
        b = _tex(e.b)[0]
        return f"{_tex(e.a)[0]}{'' if b.startswith('-') else '+'}{b}", 1
    if isinstance(e, Minus):
        return f"{_tex(e.a)[0]}-{_wrap(e.b, 2)}", 1
    if isinstance(e, Neg):
        return f"-{_wrap(e.a, 2)}", 1
    if isinstance(e, Times):
        a, b = _wrap(e.a, 2), _wrap(e.b, 2)
        if isinstance(e.b, Num) or (a[-1:].isdigit() and b[:1].isdigit()):
            return f"{a}\\cdot {b}", 2
        return f"{a} {b}", 2
    if isinstance(e, Power):
        if isinstance(e.a, Fn) and e.a.fn in ("sin", "cos"):
            arg, p = _tex(e.a.x)
            arg = arg if p == 4 else f"\\left({arg}\\right)"
            return f"\\{e.a.fn}^{{{e.k}}} {arg}", 2
        return f"{_wrap(e.a, 4)}^{{{e.k}}}", 3
    if isinstance(e, Ratio):
        return f"\\frac{{{tex(e.a)}}}{{{tex(e.b)}}}", 4
    if isinstance(e, Sum):
        return f"\\sum_{{{e.var}={tex(e.lo)}}}^{{{tex(e.hi)}}} {_wrap(e.body, 2)}", 1
    if isinstance(e, Vec):
        return e.name, 4
    if isinstance(e, Comp):
        return f"{e.v.name}_{{{tex(e.i)}}}", 4
    if isinstance(e, DotP):
        return f"{_wrap(e.a, 4)}\\cdot {_wrap(e.b, 4)}", 2
    if isinstance(e, Mat):
        return e.name, 4
    if isinstance(e, Lit):
        body = "\\\\ ".join(" & ".join(tex(x) for x in row) for row in e.rows)
        return f"\\begin{{bmatrix}}{body}\\end{{bmatrix}}", 4
    if isinstance(e, MMul):
        a, b = _wrap(e.a, 2), _wrap(e.b, 3)
        return (f"{a} {b}" if a[-1:].isalpha() and b[:1].isalpha() else f"{a}{b}"), 2
    if isinstance(e, MT):
        return f"{_wrap(e.a, 4)}^\\top", 3
    if isinstance(e, Had):
        return f"{_wrap(e.a, 3)}\\odot {_wrap(e.b, 3)}", 2
    if isinstance(e, MEntry):
        inner = f"{tex(e.i)}{tex(e.j)}"
        if len(tex(e.i)) > 1 or len(tex(e.j)) > 1:
            inner = f"{tex(e.i)},{tex(e.j)}"
        if isinstance(e.m, Mat):
            return f"{e.m.name}_{{{inner}}}", 4
        return f"\\left({tex(e.m)}\\right)_{{{inner}}}", 4
    if isinstance(e, State):
        return f"S_{{{e.t}}}", 4
    if isinstance(e, FamVec):
        return f"{e.name}_{{{e.t}}}", 4
    raise TypeError(type(e).__name__)


def _wrap(e: Node, need: int) -> str:
    text, p = _tex(e)
    return text if p >= need else f"\\left({text}\\right)"


def formula(spec: WildSpec) -> str:
    return f"{tex(spec.lhs)}={tex(spec.rhs)}"


# ---- templates ---------------------------------------------------------------------------------

LETTERS = (("a", "b"), ("x", "y"), ("alpha", "beta"), ("theta", "phi"))


def _n(v: int | Fraction) -> Num:
    return Num(Fraction(v))


def _arg(rng: random.Random, x: str) -> Node:
    k = rng.choice((1, 1, 1, 2, 3))
    return Var(x) if k == 1 else Times(_n(k), Var(x))


def t_trig(rng: random.Random) -> WildSpec:
    x, y = rng.choice(LETTERS)
    a, b = _arg(rng, x), _arg(rng, y)
    sin, cos = (lambda u: Fn("sin", u)), (lambda u: Fn("cos", u))
    kind = rng.randrange(7)
    if kind == 0:
        return WildSpec(sin(Plus(a, b)), Plus(Times(sin(a), cos(b)), Times(cos(a), sin(b))))
    if kind == 1:
        return WildSpec(cos(Plus(a, b)), Minus(Times(cos(a), cos(b)), Times(sin(a), sin(b))))
    if kind == 2:
        return WildSpec(sin(Minus(a, b)), Minus(Times(sin(a), cos(b)), Times(cos(a), sin(b))))
    if kind == 3:
        return WildSpec(Plus(Power(sin(a), 2), Power(cos(a), 2)), _n(1))
    if kind == 4:
        return WildSpec(sin(Times(_n(2), Var(x))), Times(_n(2), Times(sin(Var(x)), cos(Var(x)))))
    if kind == 5:
        rhs = rng.choice(
            [
                Minus(Power(cos(Var(x)), 2), Power(sin(Var(x)), 2)),
                Minus(_n(1), Times(_n(2), Power(sin(Var(x)), 2))),
                Minus(Times(_n(2), Power(cos(Var(x)), 2)), _n(1)),
            ]
        )
        return WildSpec(cos(Times(_n(2), Var(x))), rhs)
    # a 2-d rotation of a pair of features at two positions: relative angles (RoPE)
    return WildSpec(Plus(Times(cos(a), cos(b)), Times(sin(a), sin(b))), cos(Minus(a, b)))


def t_exp_log(rng: random.Random) -> WildSpec:
    x, y = rng.choice(LETTERS)
    style = rng.choice(("", "e"))

    def ex(u: Node) -> Fn:
        return Fn("exp", u, style)

    X, Y = Var(x), Var(y)
    kind = rng.randrange(6)
    if kind == 0:
        return WildSpec(ex(Plus(X, Y)), Times(ex(X), ex(Y)))
    if kind == 1:
        return WildSpec(Times(ex(X), ex(Neg(X))), _n(1))
    if kind == 2:
        return WildSpec(Fn("log", ex(X)), X)
    if kind == 3:
        return WildSpec(Fn("log", Times(ex(X), ex(Y))), Plus(X, Y))
    den = Plus(ex(X), ex(Y))
    if kind == 4:  # a softmax over two scores sums to 1
        return WildSpec(Plus(Ratio(ex(X), den), Ratio(ex(Y), den)), _n(1))
    c = Var("c")
    shifted = Ratio(ex(Plus(X, c)), Plus(ex(Plus(X, c)), ex(Plus(Y, c))))
    return WildSpec(shifted, Ratio(ex(X), den))


def t_size_coef(rng: random.Random) -> WildSpec:
    nm = rng.choice(("n", "n", "d_k", "d"))
    N = Size(nm)
    i = Ix("i")
    kind = rng.randrange(6)
    if kind == 0:
        return WildSpec(Sum("i", _n(1), N, _n(1)), N)
    if kind == 1:
        return WildSpec(Sum("i", _n(1), N, i), Ratio(Times(N, Plus(N, _n(1))), _n(2)))
    if kind == 2:
        return WildSpec(Sum("j", _n(1), N, Ratio(_n(1), N)), _n(1))
    if kind == 3:
        return WildSpec(Sum("i", _n(1), N, Minus(Times(_n(2), i), _n(1))), Power(N, 2))
    if kind == 4:  # the entries a causal mask keeps
        inner = Sum("j", _n(1), i, _n(1))
        return WildSpec(Sum("i", _n(1), N, inner), Ratio(Times(N, Plus(N, _n(1))), _n(2)))
    inner = Sum("j", _n(1), N, _n(1))
    return WildSpec(Sum("i", _n(1), N, inner), Power(N, 2))


def t_components(rng: random.Random) -> WildSpec:
    q, k = rng.choice((("q", "k"), ("u", "v"), ("x", "y")))
    size = rng.choice(("d_k", "d"))
    Q, K = Vec(q, size), Vec(k, size)
    i = Ix("i")
    kind = rng.randrange(3)
    if kind == 0:
        return WildSpec(DotP(Q, K), Sum("i", _n(1), Size(size), Times(Comp(Q, i), Comp(K, i))))
    if kind == 1:
        return WildSpec(DotP(Q, Q), Sum("i", _n(1), Size(size), Power(Comp(Q, i), 2)))
    return WildSpec(
        Sum("i", _n(1), Size(size), Times(Plus(Comp(Q, i), Comp(K, i)), Comp(K, i))),
        Plus(DotP(Q, K), DotP(K, K)),
    )


def t_hadamard(rng: random.Random) -> WildSpec:
    r, c = rng.choice((("n", "m"), ("n", "d"), ("n", "n")))
    A, B, C = Mat("A", r, c), Mat("B", r, c), Mat("C", r, c)
    i, j = Ix("i"), Ix("j")
    kind = rng.randrange(4)
    if kind == 0:
        lhs = MEntry(Had(A, B), i, j)
        return WildSpec(lhs, Times(MEntry(A, i, j), MEntry(B, i, j)), (("i", r), ("j", c)))
    if kind == 1:
        return WildSpec(Had(A, B), Had(B, A))
    if kind == 2:
        return WildSpec(MT(Had(A, B)), Had(MT(A), MT(B)))
    return WildSpec(Had(Plus(A, B), C), Plus(Had(A, C), Had(B, C)))


def _rot(t: Node) -> Lit:
    return Lit(((Fn("cos", t), Neg(Fn("sin", t))), (Fn("sin", t), Fn("cos", t))))


def t_written(rng: random.Random) -> WildSpec:
    kind = rng.randrange(4)
    t, s = rng.choice((("t", "s"), ("theta", "phi"), ("a", "b")))
    T, S = Var(t), Var(s)
    if kind == 0:
        x, y = Var("x"), Var("y")
        rhs = Lit(
            (
                (Minus(Times(x, Fn("cos", T)), Times(y, Fn("sin", T))),),
                (Plus(Times(x, Fn("sin", T)), Times(y, Fn("cos", T))),),
            )
        )
        return WildSpec(MMul(_rot(T), Lit(((x,), (y,)))), rhs)
    if kind == 1:
        return WildSpec(MMul(_rot(T), _rot(S)), _rot(Plus(T, S)))
    if kind == 2:
        a, b, c, d = Var("a"), Var("b"), Var("c"), Var("d")
        return WildSpec(MT(Lit(((a, b), (c, d)))), Lit(((a, c), (b, d))))
    m = [[rng.randint(-3, 4) for _ in range(2)] for _ in range(2)]
    v = [rng.randint(-3, 4) for _ in range(2)]
    prod = [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]]
    lhs = MMul(Lit(tuple(tuple(_n(x) for x in row) for row in m)), Lit(((_n(v[0]),), (_n(v[1]),))))
    return WildSpec(lhs, Lit(((_n(prod[0]),), (_n(prod[1]),))))


def _outer(t: int) -> Node:
    return MMul(FamVec("v", t, "d_v"), MT(FamVec("k", t, "d_k")))


def t_time_family(rng: random.Random) -> WildSpec:
    kind = rng.randrange(3)
    if kind == 0:
        return WildSpec(State(2), Plus(_outer(1), _outer(2)))
    if kind == 1:
        return WildSpec(State(3), Plus(State(1), Plus(_outer(2), _outer(3))))
    q = Vec("q", "d_k")
    rhs = Plus(MMul(State(1), q), MMul(FamVec("v", 2, "d_v"), MMul(MT(FamVec("k", 2, "d_k")), q)))
    return WildSpec(MMul(State(2), q), rhs)


WILD_TEMPLATES: dict[str, tuple[int, Callable[[random.Random], WildSpec]]] = {
    "trig": (3, t_trig),
    "exp_log": (2, t_exp_log),
    "size_coef": (3, t_size_coef),
    "components": (2, t_components),
    "hadamard": (2, t_hadamard),
    "written": (2, t_written),
    "time_family": (2, t_time_family),
}

# Classes about inference: their documents declare nothing (a declaring variant is drawn too).
INFERRED = {"trig", "exp_log", "written", "components", "hadamard"}


# ---- mutations --------------------------------------------------------------------------------


def _vanishing(x: Node, roots: Sequence[int]) -> Node:
    out: Node = Minus(x, _n(roots[0]))
    for r in roots[1:]:
        out = Times(out, Minus(x, _n(r)))
    return out


def _off_by(x: Node, roots: Sequence[int]) -> Node:
    return Plus(x, _vanishing(x, roots))


def _edits(x: Any) -> list[tuple[str, Callable[[], Node]]]:
    out: list[tuple[str, Callable[[], Node]]] = []
    if isinstance(x, Fn) and x.fn in ("sin", "cos"):
        other = "cos" if x.fn == "sin" else "sin"
        out.append(("sin_cos_swapped", lambda: Fn(other, x.x, x.style)))
    if isinstance(x, Fn) and x.fn == "exp":
        out.append(("exp_argument_negated", lambda: Fn("exp", Neg(x.x), x.style)))
    if isinstance(x, Plus):
        out.append(("plus_to_minus", lambda: Minus(x.a, x.b)))
        out.append(("term_dropped", lambda: x.a))
    if isinstance(x, Minus):
        out.append(("minus_to_plus", lambda: Plus(x.a, x.b)))
    if isinstance(x, Times) and not isinstance(x.a, Num):
        out.append(("product_to_sum", lambda: Plus(x.a, x.b)))
    if isinstance(x, Num) and x.value not in (0,):
        out.append(("constant_changed", lambda: Num(x.value + 1)))
    if isinstance(x, Power):
        out.append(("power_changed", lambda: Power(x.a, x.k + 1)))
    if isinstance(x, Size):
        for roots in ((1, 2), (2, 3), (1,), (1, 2, 3)):
            tag = "".join(f"({x.name}-{r})" for r in roots)
            out.append((f"plus_{tag}", functools.partial(_off_by, x, roots)))
    if isinstance(x, Sum):
        out.append(("bound_minus_one", lambda: dataclasses.replace(x, hi=Minus(x.hi, _n(1)))))
        out.append(("bound_plus_one", lambda: dataclasses.replace(x, hi=Plus(x.hi, _n(1)))))
        out.append(("lower_bound_plus_one", lambda: dataclasses.replace(x, lo=_n(2))))
    if isinstance(x, Comp) and isinstance(x.i, Ix):
        out.append(("component_shifted", lambda: Comp(x.v, Plus(x.i, _n(1)))))
    if isinstance(x, MEntry):
        out.append(("indices_swapped", lambda: MEntry(x.m, x.j, x.i)))
    if isinstance(x, Had):
        out.append(("hadamard_to_product", lambda: MMul(x.a, MT(x.b))))
        out.append(("transpose_added", lambda: Had(x.a, MT(x.b))))
    if isinstance(x, MT):
        out.append(("transpose_dropped", lambda: x.a))
    if isinstance(x, MMul):
        out.append(("factors_swapped", lambda: MMul(x.b, x.a)))
    if isinstance(x, Neg):
        out.append(("sign_dropped", lambda: x.a))
    if isinstance(x, FamVec):
        out.append(("time_shifted", lambda: FamVec(x.name, x.t + 1, x.size)))
    if isinstance(x, State) and x.t > 1:
        out.append(("state_index_off", lambda: State(x.t - 1)))
    if isinstance(x, Lit) and len(x.rows) == 2 and len(x.rows[0]) == 2:
        (a, b), (c, d) = x.rows
        out.append(("entries_swapped", lambda: Lit(((a, c), (b, d)))))
    return out


def _positions(x: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    out: list[tuple[tuple, Any]] = [(path, x)]
    for f in dataclasses.fields(x):
        v = getattr(x, f.name)
        if isinstance(v, Node):
            out += _positions(v, path + (f.name,))
    return out


def _replace(x: Any, path: tuple, new: Node) -> Any:
    if not path:
        return new
    return dataclasses.replace(x, **{path[0]: _replace(getattr(x, path[0]), path[1:], new)})


def mutate(rng: random.Random, spec: WildSpec) -> tuple[WildSpec, str] | None:
    sides = ["lhs", "rhs"]
    rng.shuffle(sides)
    for side in sides:
        root = getattr(spec, side)
        cands = [(p, op, b) for p, y in _positions(root) for op, b in _edits(y)]
        if cands:
            path, op, build = rng.choice(cands)
            new = _replace(root, path, build())
            if side == "lhs":
                return WildSpec(new, spec.rhs, spec.free), op
            return WildSpec(spec.lhs, new, spec.free), op
    return None


def generate_wild(count: int, seed: int = 0, mutant_share: float = 0.6) -> list[WildClaim]:
    """`count` wild claims, deterministic in `seed`."""
    rng = random.Random(seed * 7919 + 17)
    names = list(WILD_TEMPLATES)
    weights = [WILD_TEMPLATES[k][0] for k in names]
    out: list[WildClaim] = []
    while len(out) < count:
        name = rng.choices(names, weights)[0]
        spec = WILD_TEMPLATES[name][1](rng)
        muts: list[str] = []
        if rng.random() < mutant_share:
            got = mutate(rng, spec)
            if got is not None:
                spec, op = got
                muts.append(op)
        if spec.lhs == spec.rhs:
            continue
        declare = name not in INFERRED or rng.random() < 0.3
        out.append(WildClaim(f"w{seed}-{len(out)}", name, spec, tuple(muts), declare))
    return out


# ---- how the texts state them -----------------------------------------------------------------

SIZE_TEX = {"n": "n", "m": "m", "d": "d", "d_k": "d_k", "d_v": "d_v"}


def _declarations(spec: WildSpec) -> list[str]:
    found: dict[str, str] = {}
    for side in (spec.lhs, spec.rhs):
        for x in walk(side):
            if isinstance(x, Vec):
                found[x.name] = f"${x.name}\\in\\mathbb R^{{{x.size}}}$"
            elif isinstance(x, Mat):
                found[x.name] = f"${x.name}\\in\\mathbb R^{{{x.rows}\\times {x.cols}}}$"
            elif isinstance(x, FamVec):
                found[x.name] = f"${x.name}_t\\in\\mathbb R^{{{x.size}}}$"
            elif isinstance(x, State):
                found["S"] = "$S_t\\in\\mathbb R^{d_v\\times d_k}$"
            elif isinstance(x, Var):
                found[x.name] = f"${GREEK.get(x.name, x.name)}\\in\\mathbb R$"
    return list(found.values())


def _uses(spec: WildSpec, kind: type) -> bool:
    return any(isinstance(x, kind) for side in (spec.lhs, spec.rhs) for x in walk(side))


def document(c: WildClaim) -> tuple[str, int]:
    """A Markdown document with the claim, and the claim's line; declarations only when the
    claim's class is not about inference (or for the declaring variant)."""
    lines = ["# A claim as texts write it", ""]
    columns = _uses(c.spec, (Vec, FamVec, State))  # type: ignore[arg-type]
    if columns:
        lines += ["Every vector is a column vector.", ""]
    if c.declare:
        decls = _declarations(c.spec)
        if decls:
            lines += ["We use " + ", ".join(decls) + ".", ""]
    if _uses(c.spec, State):
        lines += ["Let $S_0=0$ and $S_t=S_{t-1}+v_tk_t^\\top$ for $t\\ge 1$.", ""]
    lines += ["Then", "", f"$${formula(c.spec)}$$"]
    line = len(lines)
    lines.append("")
    return "\n".join(lines), line


class NotStated(Exception):
    """`symattn prove` has no way to state this claim (it needs the document's definitions)."""


def prove_argv(c: WildClaim) -> list[str]:
    if _uses(c.spec, State):
        raise NotStated("the state S_t is defined in the document's prose")
    argv = ["prove", formula(c.spec), "--format", "json"]
    if c.declare:
        dims = []
        for side in (c.spec.lhs, c.spec.rhs):
            for x in walk(side):
                if isinstance(x, Vec):
                    dims.append(f"{x.name}: {x.size} x 1")
                elif isinstance(x, Mat):
                    dims.append(f"{x.name}: {x.rows} x {x.cols}")
        if dims:
            argv += ["--dims", "; ".join(dict.fromkeys(dims))]
    if _uses(c.spec, Vec):
        argv += ["--conventions", "vectors=column"]
    return argv


__all__ = [
    "WILD_TEMPLATES",
    "WildClaim",
    "WildSpec",
    "decide",
    "document",
    "formula",
    "generate_wild",
    "prove_argv",
]
