"""The wild claims in LaTeX, as a third-party text writes them.

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

from symattn.soundness.wild.nodes import (
    MT,
    Comp,
    DotP,
    Eye,
    FamVec,
    Fn,
    Frob,
    Had,
    Ix,
    Lit,
    MaskedAttn,
    Mat,
    MEntry,
    Minus,
    MMul,
    Neg,
    Node,
    Norm,
    Num,
    Ones,
    Plus,
    Power,
    Ratio,
    Size,
    State,
    Sum,
    Times,
    Tr,
    Var,
    VComp,
    Vec,
    VSoftmax,
    WildSpec,
)

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
        if e.style == "bracket":
            return f"{e.v.name}[{tex(e.i)}]", 4
        return f"{e.v.name}_{{{tex(e.i)}}}", 4
    if isinstance(e, DotP) and e.style == "angle":
        return f"\\langle {tex(e.a)}, {tex(e.b)}\\rangle", 4
    if isinstance(e, DotP):
        return f"{_wrap(e.a, 4)}\\cdot {_wrap(e.b, 4)}", 2
    if isinstance(e, Mat):
        return e.name, 4
    if isinstance(e, Lit) and e.style in ("list", "tuple") and len(e.rows) == 1:
        inner = ", ".join(tex(x) for x in e.rows[0])
        return (f"[{inner}]" if e.style == "list" else f"({inner})"), 4
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
    if isinstance(e, MEntry) and e.style and isinstance(e.m, Mat):
        i, j = tex(e.i), tex(e.j)
        return (f"{e.m.name}[{i}][{j}]" if e.style == "nested" else f"{e.m.name}[{i},{j}]"), 4
    if isinstance(e, MEntry):
        inner = f"{tex(e.i)}{tex(e.j)}"
        if len(tex(e.i)) > 1 or len(tex(e.j)) > 1:
            inner = f"{tex(e.i)},{tex(e.j)}"
        if isinstance(e.m, (Mat, MaskedAttn)):
            return f"{tex(e.m)}_{{{inner}}}", 4
        return f"\\left({tex(e.m)}\\right)_{{{inner}}}", 4
    if isinstance(e, MaskedAttn):
        return "A", 4
    if isinstance(e, Norm):
        return f"\\|{tex(e.a)}\\|", 4
    if isinstance(e, Tr):
        return f"\\{e.style}{{tr}}\\left({tex(e.a)}\\right)", 4
    if isinstance(e, Frob):
        return f"\\langle {tex(e.a)}, {tex(e.b)}\\rangle_F", 4
    if isinstance(e, State):
        return f"S_{{{e.t}}}", 4
    if isinstance(e, FamVec):
        return f"{e.name}_{{{e.t}}}", 4
    if isinstance(e, Ones):
        return f"\\mathbf{{1}}_{{{e.size}}}", 4
    if isinstance(e, Eye):
        if e.style == "sized":
            return f"I_{{{e.size}}}", 4
        return ("I" if e.style == "plain" else "\\mathbf{I}"), 4
    if isinstance(e, VSoftmax):
        if e.style == "text":  # \text{softmax}\left(...\right)
            return f"\\text{{softmax}}\\left({tex(e.a)}\\right)", 4
        return f"\\{e.style}{{softmax}}({tex(e.a)})", 4
    if isinstance(e, VComp):
        if e.style == "component" and isinstance(e.v, VSoftmax) and isinstance(e.v.a, Vec):
            name = f"\\{e.v.style}{{softmax}}" if e.v.style != "text" else "\\text{softmax}"
            return f"{name}({e.v.a.name}_{{{tex(e.i)}}})", 4
        if isinstance(e.v, VSoftmax):
            return f"{tex(e.v)}_{{{tex(e.i)}}}", 4
        return f"\\left({tex(e.v)}\\right)_{{{tex(e.i)}}}", 4
    raise TypeError(type(e).__name__)


def _wrap(e: Node, need: int) -> str:
    text, p = _tex(e)
    return text if p >= need else f"\\left({text}\\right)"


def formula(spec: WildSpec) -> str:
    return f"{tex(spec.lhs)}={tex(spec.rhs)}"
