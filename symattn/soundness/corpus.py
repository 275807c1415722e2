"""The corpus of true claims the mutation suite starts from: rules, chapter, derivations.

Imports the kernel and symattn.derive (the bundled chapters of derivations/); must not import
the rest of soundness, cli or check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy

from symattn.derive.blocks import ProofBlock
from symattn.derive.sources import bundled
from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.backward import attention_backward, directional, inner
from symattn.kernel.backward_heads import GroupedBackward, grouped_identity
from symattn.kernel.dims import d_k, n
from symattn.kernel.expr import (
    Dot,
    FromColumn,
    Hadamard,
    MatExpr,
    MatSum,
    MatSym,
    Ones,
    Scale,
    Softmax,
    index,
)
from symattn.kernel.recurrences import cases
from symattn.kernel.rules import registry
from symattn.soundness.identities import identities


@dataclass(frozen=True)
class Claim:
    """A true identity `lhs = rhs` the project proves, with its definitions and hypotheses."""

    name: str
    lhs: sympy.Basic
    rhs: sympy.Basic
    defs: Mapping[MatSym, MatExpr] = field(default_factory=dict)
    assuming: tuple[sympy.Basic, ...] = ()


def rule_claims() -> list[Claim]:
    """Every kernel rule's statement.

    >>> len(rule_claims()) >= 20
    True
    """

    out = []
    for name, rule in registry().items():
        lhs, rhs = rule.sides()
        out.append(Claim(f"rule {name}", lhs, rhs, {}, tuple(rule.assuming())))
    return out


def chapter_claims() -> list[Claim]:
    """The chapter's identities (as in tests/kernel/test_attention.py), written as data.

    >>> [c.name for c in chapter_claims()][:2]
    ['chapter score entry = sum', 'chapter score entry = dot']
    """
    i, j, r, u = (index(x) for x in "ijru")
    s = single_head()
    Q, K, V, A, X = s.Q, s.K, s.V, s.A, s.X
    w, cw = s.weights, single_head(causal=True).weights
    sn = MatSym("S", n, n)
    mh, mh3 = multi_head(), multi_head(n=2, d=2, d_v=2, H=3)
    s5 = single_head(n=5, d=8, d_k=64, d_v=64)
    gt = (sympy.StrictGreaterThan(j, i),)
    rows = [
        ("score entry = sum", s.scores[i, j], sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), {}, ()),
        ("score entry = dot", s.scores[i, j], Dot(Q.row(i), K.row(j)), {}, ()),
        ("AV entry", (A @ V)[i, u], sympy.Sum(A[i, j] * V[j, u], (j, 1, n)), {}, ()),
        ("rows of Z", s.Z.row(i), MatSum(Scale(A[i, j], V.row(j)), j, 1, n), {s.Z: A @ V}, ()),
        ("projection row", Q.row(i), X.row(i) @ s.W_Q, {Q: X @ s.W_Q}, ()),
        ("weights rowsum", w @ Ones(n, 1), Ones(n, 1), {}, ()),
        ("convex combination", (w @ V).row(i), MatSum(Scale(w[i, j], V.row(j)), j, 1, n), {}, ()),
        ("causal zero", cw[i, j], sympy.Integer(0), {}, gt),
        ("causal rowsum", cw @ Ones(n, 1), Ones(n, 1), {}, ()),
        ("causal z_i", (cw @ V).row(i), MatSum(Scale(cw[i, j], V.row(j)), j, 1, i), {}, ()),
        ("shift invariance", Softmax(sn + FromColumn("c", n, n)), Softmax(sn), {}, ()),
        ("block identity", mh.output, mh.blockwise, {}, ()),
        ("block identity H=3", mh3.output, mh3.blockwise, {}, ()),
        ("worked example", s5.scores[i, j], Dot(s5.Q.row(i), s5.K.row(j)), {}, ()),
    ]
    return [Claim(f"chapter {name}", lhs, rhs, defs, asm) for name, lhs, rhs, defs, asm in rows]


def modern_claims(holds: bool = True) -> list[Claim]:
    """The identities of modern attention (symattn.soundness.identities), true ones by default;
    `holds=False` gives their false variants (each must be rejected).

    >>> [c.name for c in modern_claims()][:2]
    ['modern alibi_row_shift', 'modern alibi_row_sign']
    >>> len(modern_claims(holds=False)) >= 15
    True
    """
    return [
        Claim(f"modern {x.name}", x.lhs, x.rhs, dict(x.defs))
        for x in identities()
        if x.holds == holds
    ]


def recurrence_claims(holds: bool = True) -> list[Claim]:
    """The recurrences over a symbolic count (symattn.kernel.recurrences) as claims
    `Recurrent(...) = target`, true ones by default (they are rules too, so `corpus()` has them
    through `rule_claims`); `holds=False` gives those whose output is wrong (each must be
    rejected). A bug that leaves the output right (the maximum not updated or started at 0)
    is in neither.

    >>> [c.name for c in recurrence_claims()][:2]
    ['recurrence flash_forward', 'recurrence split_kv_merge']
    >>> len(recurrence_claims(holds=False))
    8
    """
    out = []
    for case in cases():
        wanted = case.holds if holds else not case.output_holds
        if case.recurrence.target is None or not wanted:
            continue
        lhs, rhs = case.recurrence.statement()
        out.append(Claim(f"recurrence {case.name}", lhs, rhs))
    return out


def derivation_claims() -> list[Claim]:
    """Every step of every Proof of the bundled chapters (derivations/ch06, ...)."""
    out = []
    for sec in (s for unit in bundled() for s in unit.sections()):
        for block in sec.blocks:
            if not isinstance(block, ProofBlock):
                continue
            pr = block.proof
            for k, st in enumerate(pr.steps, start=1):
                name = f"derivation {pr.title}, step {k} ({st.by})"
                out.append(Claim(name, st.before, st.after, dict(pr.defs), pr.assuming))
    return out


def backward_claims() -> list[Claim]:
    """The backward pass of single-head attention as vector–Jacobian identities
    `<dO, D_E O> = <G, E>` (E a direction of independent entries), and the row term. Not in
    `corpus()` (each proof takes seconds); the mutation suite takes them when asked.

    >>> [c.name for c in backward_claims()][:2]
    ['backward dV', 'backward dQ']
    """
    b = attention_backward()
    out = []
    for name, wrt, grad in (("dV", b.V, b.dV), ("dQ", b.Q, b.dQ), ("dK", b.K, b.dK)):
        e = MatSym("E", *wrt.shape)
        moved = directional(b.O, wrt, e)
        out.append(Claim(f"backward {name}", inner(b.dO, moved), inner(grad, e)))
    row = Hadamard(b.A, b.dA) @ Ones(n, 1)
    out.append(Claim("backward row term", row, b.D))
    return out


def grouped_backward_claims(holds: bool = True) -> list[Claim]:
    """Grouped-query attention's dK and dV for the whole K and V, block by block, plain and
    causal, as the identities `prove_grouped_gradient` decides; `holds=False`: each block summed
    over one query head too few. Not in `corpus()` (each proof takes seconds).

    >>> [c.name for c in grouped_backward_claims()][:2]
    ['grouped backward dK', 'grouped backward dV']
    """
    out = []
    for causal in (False, True):
        b = GroupedBackward(causal=causal)
        for name, wrt, block in (("dK", b.K, b.dK_block), ("dV", b.V, b.dV_block)):
            if not holds:
                block = MatSum(block.args[0], b.t, 1, b.per - 1)
            lhs, rhs = grouped_identity(b, wrt, block)
            label = f"grouped backward {name}{' causal' if causal else ''}"
            out.append(Claim(label + ("" if holds else ", one head too few"), lhs, rhs))
    return out


def corpus(derivations: bool = True) -> list[Claim]:
    """Rules, chapter identities, modern attention and (optionally) derivation steps.

    >>> base = len(rule_claims()) + len(chapter_claims()) + len(modern_claims())
    >>> len(corpus(derivations=False)) == base
    True
    """
    extra = derivation_claims() if derivations else []
    return rule_claims() + chapter_claims() + modern_claims() + extra
