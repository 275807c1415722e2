"""A formula's claims as the resolver hands them to the checker: `ResolvedClaim` and its status.

Imports sympy, the kernel's expression nodes, the scanner's spans and the scope's `Shape` only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Shape

__all__ = ["ResolvedClaim", "Shape", "Status", "new_claim", "shape_claim"]

Status = Literal[
    "pending",
    "shape",
    "proved",
    "shape_error",
    "not_understood",
    "declared",
    "prose",
    "internal_error",
    "malformed",
    "unknown",
]


@dataclass(frozen=True)
class ResolvedClaim:
    """One claim of a formula, resolved to kernel terms or to a claim about shapes.

    `start`/`end` are body offsets of the claim; `where` those of the part a diagnostic points
    at (the unknown symbol, the product that does not typecheck). `status` is `pending` when the
    kernel still has to decide `pairs` (each `lhs = rhs`, under `defs` and the worked example's
    `bindings`), with `assumptions` (size relations, `d_v = d/H`, passed to `dims.assume`) and
    `hypotheses` (relations between indices, `j > i`, passed to `prove_equal(assuming=...)`).
    `sign` = (M, strict) asks the kernel that every entry of M is > 0 (>= 0 when not strict):
    how `a_{ij} > 0` is checked; a scalar M is the difference of the sides of an order
    (`claims.value_orders`); `negated` marks `a \\ne b` (the kernel decides `a = b`). A
    condition such as `j > i` is itself a claim with `conditions` set: a premise for the claim
    before it (same formula, or the formula before it joined by "for", "if", "when", ...).
    `split` > 0: `pairs[:split]` and `pairs[split:]` are one claim read two ways (vectors as
    columns, as rows) where the document never settles which; a verdict needs both to agree,
    unless `pinnable` (only the formula can settle it) and one reading is ill-typed: then the
    other is the formula's meaning. `readings` says what the two readings are when they are
    not the vectors' orientation (`\\cos (m-n)\\theta`: the function of the parentheses, or of
    the product). `tolerance`: the claim is `value \\approx number` between two numbers, the
    number given to this unit of its last digit.
    `premise`: a hypothesis of the text about the claim's names that the checker cannot use;
    a `false` is then undecided (the claim may hold only under it). `supposed`: the text
    supposes it (a sentence opening with suppose / assume); a shape error is then not an alarm.
    `status` is `shape` for a claim about a shape (`Q \\in \\mathbb R^{n\\times d_k}`, a
    definition whose sides have the shape declared): `shapes` = (the shape the value has, the
    shape the text gives it), both with a worked example's sizes in place; the checker decides
    it under `assumptions`, the reader never does.
    `defines`: why the equation may be the text's definition of its left side (a name with no
    value the checker read); a `false` is then undecided, with that reason.
    `typed`: `column` or `row` when the claim, read both ways, typechecks only with the vectors
    so (the document's evidence for its reading); `orientation`: the document's reading, settled
    by that evidence, which the verdict states.
    `earlier`: the values sizes had in the text's worked examples that closed before this claim
    (no example is in force for it): an equation between sizes and numbers may refer to them.
    """

    span: MathSpan
    start: int
    end: int
    status: Status
    message: str = ""
    pairs: tuple[tuple[sympy.Basic, sympy.Basic], ...] = ()
    defs: dict[sympy.Basic, MatExpr] = field(default_factory=dict)
    where: tuple[int, int] | None = None
    source: str = ""
    context: str = ""
    assumptions: dict[str, sympy.Expr] = field(default_factory=dict)
    hypotheses: tuple[sympy.Basic, ...] = ()
    conditions: tuple[sympy.Basic, ...] = ()
    attached: bool = False
    sign: tuple[MatExpr | sympy.Expr, bool] | None = None
    negated: bool = False
    split: int = 0
    premise: str = ""
    supposed: bool = False
    shapes: tuple[Shape, Shape] | None = None
    defines: str = ""
    #: why no verdict for every real matrix carries to the text's (entries of -inf it defines
    #: by cases the checker did not read): proved, checked and false are then undecided
    unbounded: str = ""
    #: the families whose members the claim read from the closed form that defines them
    #: (`S_• as defined at line 81`): a kernel shape error there is undecided, as the text
    #: does not state the range of the index where the form holds
    families: str = ""
    #: the scalars of the text, without a value the checker read, the claim holds for every
    #: value of (`\\beta_t`): never false on their account, not even by a constant gap
    free: str = ""
    pinnable: bool = False
    readings: str = ""
    tolerance: sympy.Rational | None = None
    # the tolerance is half a unit of a result written with `=` (`reader.claims.rounded`)
    rounded: bool = False
    #: a decimal result written with `=` that is the value rounded (`\\frac{1}{\\sqrt 2} =
    #: 0.707`): as an exact equation it does not hold, so a proof of the rounding is undecided
    decimal: str = ""
    typed: str = ""
    orientation: str = ""
    earlier: dict[sympy.Symbol, sympy.Integer] = field(default_factory=dict)
    # a shape error set aside: it rests on shapes the text never gave (`reader.claims.conventional`)
    set_aside: bool = False
    # names a closed worked example defined, which the claim reads as unknown matrices
    # (`reader.claims.forgotten`): a `false` or a shape error is then undecided
    forgotten: str = ""
    # definitions it reads that a later declaration of a name they are made from left stale
    # (`reader.claims.redeclared`): a `false` or a shape error is then undecided
    redeclared: str = ""
    # sequences the text defined by a formula whose value is not read (`p_i = e^{s_i}/Z`), which
    # the claim reads as free numbers (`reader.claims.premises`): a `false` is then undecided
    premised: str = ""
    # conventional names it read with shapes the text never gave (`reader.claims.guessed_shapes`)
    guessed: tuple[tuple[str, str], ...] = ()
    # every conventional name it read with a shape the text never gave, in any text: an index
    # range error resting on one of them is undecided (`reader.claims.guessed_shapes`)
    ranged: tuple[tuple[str, str], ...] = ()
    # `x_i` read as an entry of a vector an earlier section declared (`claims.earlier_vectors`)
    earlier_vector: str = ""
    # entries read by a guess (`u_i` of the bold u): (letter, how, a false verdict rests on it)
    entry_guesses: tuple[tuple[str, str, bool], ...] = ()
    # `a \approx b` read as `a = b`: verified where the sides are exactly equal, never false
    # (`check.approximations`)
    approximate: bool = False
    # what the sums it writes without bounds were read to range over, each with whether its
    # summand forces that range (`reader.claims.sum_readings`)
    sum_ranges: tuple[tuple[str, bool], ...] = ()
    # other readings of a quantity's unit (`GB` as 2^30 bytes, a count of 2-byte elements):
    # (what the reading is, the number it reads, its tolerance), decided where the stated
    # reading fails (`check.unit_readings`)
    units: tuple[tuple[str, sympy.Expr, sympy.Rational], ...] = ()
    # the shapes inferred for names the text never declares that the claim was read with
    # (`with W^Q: d × d_k inferred from line 12`): a kernel shape error is then undecided
    inferred: str = ""

    @property
    def focus(self) -> tuple[int, int]:
        return self.where if self.where is not None else (self.start, self.end)


def new_claim(
    span: MathSpan,
    start: int,
    end: int,
    status: Status,
    message: str = "",
    *,
    pairs: tuple[tuple[sympy.Basic, sympy.Basic], ...] = (),
    defs: dict[sympy.Basic, MatExpr] | None = None,
    where: tuple[int, int] | None = None,
) -> ResolvedClaim:
    return ResolvedClaim(
        span,
        start,
        end,
        status,
        message,
        pairs,
        defs or {},
        where,
        span.body[start:end],
    )


def shape_claim(
    span: MathSpan, start: int, end: int, has: Shape, claimed: Shape, message: str
) -> ResolvedClaim:
    """The claim that a value of shape `has` is of shape `claimed`; `message` says it as the
    checker reports it when the shapes agree."""
    claim = new_claim(span, start, end, "shape", message)
    return dataclasses.replace(claim, shapes=(has, claimed))
