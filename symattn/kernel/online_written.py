"""The online softmax as a text writes it: a step read from its formulas, proved like flash_forward.
Imports only sympy and the kernel below it (expr, recurrent, recurrences); nothing above the kernel.

A front end hands `written_online` the step it read (the running maximum, the normaliser and
the output of key block t from those of block t-1, over the columns of one score matrix S and
the rows of V) and how the claim reads the output from the state; the invariant is the online
softmax's own (the maximum over the keys so far, the sum of their exponentials from it, and
those times V), so `prove_recurrence` decides the text's recurrence by induction on B, and its
unrolled cross-checks refute a wrong step with a counterexample at an explicit count.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import sympy

from symattn.kernel.expr import Entry, MatExpr, MatSym
from symattn.kernel.recurrences import c, i, prefix_max
from symattn.kernel.recurrent import Operands, Recurrence, Segment, State, known, prefix_sum

__all__ = ["ROLES", "written_online"]

#: the state's components, in the invariant's order
ROLES = ("m", "ℓ", "O")

Step = Callable[[Operands, State, Segment], State]
Output = Callable[[Operands, State], sympy.Expr]

_MADE: dict[str, Recurrence] = {}


def _invariant(ops: Operands, hi: sympy.Expr) -> State:
    """After the keys 1..hi: their maximum, the sum of e^{S_ik - m} and of e^{S_ik - m} V_k."""
    m = prefix_max(lambda k: Entry(ops["S"], i, k), hi)
    w = lambda k: sympy.exp(Entry(ops["S"], i, k) - m)  # noqa: E731
    return (m, prefix_sum(w, hi), prefix_sum(lambda k: w(k) * Entry(ops["V"], k, c), hi))


def _normalised(ops: Operands, hi: sympy.Expr) -> State:
    """The same with the output kept normalised (FlashAttention's first paper): the sum of
    e^{S_ik - m} V_k over the sum of e^{S_ik - m}."""
    m, ell, o = _invariant(ops, hi)
    return (m, ell, o / ell)


def written_online(
    key: str,
    scores: MatSym,
    values: MatSym,
    initial: State,
    step: Step,
    output: Output,
    target: MatExpr,
    normalised: bool = False,
) -> Recurrence:
    """The recurrence a text wrote, known by a name made from `key` (what determines it: the
    same key, the same recurrence). `initial`, `step` and the state are in the order `ROLES`;
    `output(ops, state)` is the claim's side read from the state at row i, column c, and
    `target` the matrix it is claimed to equal, in the text's `scores` and `values`. With
    `normalised`, the output the state keeps is the normalised one (the invariant's O over ℓ).

    >>> from symattn.kernel.dims import d_v, n
    >>> from symattn.kernel.expr import Softmax
    >>> S, V = MatSym("S", n, n), MatSym("V", n, d_v)
    >>> def step(ops, st, seg):
    ...     m = sympy.Max(st[0], seg.max(lambda k: Entry(ops["S"], i, k)), evaluate=False)
    ...     w = lambda k: sympy.exp(Entry(ops["S"], i, k) - m)
    ...     a = sympy.exp(st[0] - m)
    ...     o = seg.sum(lambda k: w(k) * Entry(ops["V"], k, c))
    ...     return (m, a * st[1] + seg.sum(w), a * st[2] + o)
    >>> out = lambda ops, st: st[2] / st[1]
    >>> rec = written_online("doc", S, V, (-sympy.oo, 0, 0), step, out, Softmax(S) @ V)
    >>> rec.count, rec.components
    ('B', ('m', 'ℓ', 'O'))
    """
    digest = hashlib.sha256(f"{key}\n{normalised}".encode()).hexdigest()[:10]
    name = f"online_softmax_{digest}"
    if name in _MADE:
        return _MADE[name]
    rows, names = scores.rows, (scores.name, values.name)

    def operands(keys: sympy.Expr) -> Operands:
        return {"S": MatSym(names[0], rows, keys), "V": MatSym(names[1], keys, values.cols)}

    def retarget(ops: Operands) -> MatExpr:
        return target.xreplace({scores: ops["S"], values: ops["V"]})

    def claim(ops: Operands, state: State, hi: sympy.Expr) -> tuple[sympy.Basic, sympy.Basic]:
        return output(ops, state), Entry(retarget(ops), i, c)

    rec = Recurrence(
        name,
        ROLES,
        tuple(sympy.sympify(x, strict=True) for x in initial),
        step,
        _normalised if normalised else _invariant,
        claim,
        operands,
        note="the online softmax as the text writes it, over B key blocks of any sizes",
        shape=lambda ops: (ops["S"].rows, ops["V"].cols),
        target=retarget,
    )
    _MADE[name] = known(rec)
    return rec
