"""Backward-pass claims of attention (`dV = A^T dO`, `dS = A ∘ (dA - rowsum(A ∘ dA)1^T)`, ...), true
and false, plain and causal, in the notations texts use.

Imports numpy and the kernel (expr, backward, proof) for the API's terms and calls only; the truth
is central finite differences of a numpy forward pass of its own. Must not import a front end:
the runner (`soundness.differential`) does.

Each claim is rendered three ways: the kernel's `prove_gradient` (or `prove_equal` for the row
term), a formula for `symattn prove` (the forward pass, then the claim) and a Markdown document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from symattn.kernel import dims as D
from symattn.kernel import expr as E
from symattn.kernel.backward import prove_gradient, softmax_jvp
from symattn.kernel.proof import prove_within
from symattn.soundness.render import claim_document

__all__ = ["BackClaim", "backward_claims"]

Arrays = dict[str, np.ndarray]

# claims: (the gradient's matrix, or "" for an identity; LaTeX with {d} for the mark; numpy value)
_CLAIMS: dict[str, tuple[str, str, Callable[[Arrays], np.ndarray]]] = {
    "dV": ("V", r"{d}V = A^\top {d}O", lambda a: a["A"].T @ a["dO"]),
    "dV-no-transpose": ("V", r"{d}V = A\,{d}O", lambda a: a["A"] @ a["dO"]),
    "dA": ("A", r"{d}A = {d}O\,V^\top", lambda a: a["dO"] @ a["V"].T),
    "dA-transposed": ("A", r"{d}A = V\,{d}O^\top", lambda a: a["V"] @ a["dO"].T),
    "dS": (
        "S",
        r"{d}S = A \circ ({d}A - \operatorname{rowsum}(A \circ {d}A)\mathbf 1_n^\top)",
        lambda a: a["A"] * (a["dA"] - (a["A"] * a["dA"]).sum(1, keepdims=True)),
    ),
    "dS-no-row-term": ("S", r"{d}S = A \circ {d}A", lambda a: a["A"] * a["dA"]),
    "dS-from-D": (
        "S",
        r"{d}S = A \circ ({d}A - D\mathbf 1_n^\top)",
        lambda a: a["A"] * (a["dA"] - a["D"]),
    ),
    "dS-from-D-sign": (
        "S",
        r"{d}S = A \circ ({d}A + D\mathbf 1_n^\top)",
        lambda a: a["A"] * (a["dA"] + a["D"]),
    ),
    "dQ": ("Q", r"{d}Q = {d}S\,K/\sqrt{d_k}", lambda a: a["dS"] @ a["K"] / np.sqrt(a["dk"])),
    "dQ-no-scale": ("Q", r"{d}Q = {d}S\,K", lambda a: a["dS"] @ a["K"]),
    "dK": ("K", r"{d}K = {d}S^\top Q/\sqrt{d_k}", lambda a: a["dS"].T @ a["Q"] / np.sqrt(a["dk"])),
    "dK-no-transpose": (
        "K",
        r"{d}K = {d}S\,Q/\sqrt{d_k}",
        lambda a: a["dS"] @ a["Q"] / np.sqrt(a["dk"]),
    ),
    "row-term": (
        "",
        r"\operatorname{rowsum}(A \circ {d}A) = \operatorname{rowsum}({d}O \circ O)",
        lambda a: (a["A"] * a["dA"]).sum(1) - (a["dO"] * a["O"]).sum(1),
    ),
    "row-term-V": (
        "",
        r"\operatorname{rowsum}(A \circ {d}A) = \operatorname{rowsum}({d}O \circ V)",
        lambda a: (a["A"] * a["dA"]).sum(1) - (a["dO"] * a["V"]).sum(1),
    ),
}
#: The marks: `dO`, `\mathit{dO}`, `\bar O` (each letter after `{d}` gets the mark).
_MARKS = ("d", "mathit", "bar")
#: Claims that need the text's dA (a gradient shown before) or D.
_NEEDS_DA = ("dS-from-D", "dS-from-D-sign", "row-term", "row-term-V")


def _marked(latex: str, mark: str) -> str:
    if mark == "d":
        return latex.replace("{d}", "d")
    out, k = [], 0
    while k < len(latex):
        if latex.startswith("{d}", k):
            letter = latex[k + 3]
            out.append(rf"\mathit{{d{letter}}}" if mark == "mathit" else rf"\bar {letter}")
            k += 4
        else:
            out.append(latex[k])
            k += 1
    return "".join(out)


def _softmax(s: np.ndarray, causal: bool) -> np.ndarray:
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    z = np.exp(s - s.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _fd(f: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """The gradient of f at x by central differences, entry by entry."""
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += h
        down[idx] -= h
        g[idx] = (f(up) - f(down)) / (2 * h)
    return g


def _holds(claim: str, causal: bool, n: int, dk: int, dv: int, seed: int) -> bool:
    """Whether the claim's value matches finite differences at one size plan and seed."""
    wrt, _, value = _CLAIMS[claim]
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n, dk)), rng.normal(size=(n, dk)), rng.normal(size=(n, dv))
    do = rng.normal(size=(n, dv))
    s = q @ k.T / np.sqrt(dk)
    a = _softmax(s, causal)

    def loss_s(x: np.ndarray) -> float:
        return float((do * (_softmax(x, causal) @ v)).sum())

    def loss_a(x: np.ndarray, v: np.ndarray = v) -> float:
        return float((do * (x @ v)).sum())

    arrays: Arrays = {"Q": q, "K": k, "V": v, "S": s, "A": a, "O": a @ v, "dO": do}
    arrays["dk"] = np.array(dk)
    arrays["dA"] = _fd(loss_a, a)
    arrays["dS"] = _fd(loss_s, s)
    arrays["D"] = (do * (a @ v)).sum(1, keepdims=True)
    got = value(arrays)
    if not wrt:
        want = np.zeros_like(got)
    else:
        forward: dict[str, Callable[[np.ndarray], float]] = {
            "V": lambda x: loss_a(a, x),
            "A": loss_a,
            "S": loss_s,
            "Q": lambda x: loss_s(x @ k.T / np.sqrt(dk)),
            "K": lambda x: loss_s(q @ x.T / np.sqrt(dk)),
        }
        want = _fd(forward[wrt], arrays[wrt])
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-6, atol=1e-8))


@dataclass(frozen=True)
class BackClaim:
    """One backward-pass claim about `O = softmax(S)V`, `S = QK^T/sqrt(d_k)` (masked if causal)."""

    ident: str
    claim: str
    causal: bool
    mark: str = "d"
    template: str = "backward"
    mutations: tuple[str, ...] = ()

    @property
    def spec(self) -> tuple[str, bool, str]:
        return (self.claim, self.causal, self.mark)

    @property
    def claimed(self) -> str:
        return _marked(_CLAIMS[self.claim][1], self.mark)

    def _forward(self) -> list[str]:
        a = (
            r"\operatorname{softmax}(\operatorname{mask}(S))"
            if self.causal
            else (r"\operatorname{softmax}(S)")
        )
        out = [r"S = QK^\top/\sqrt{d_k}", f"A = {a}", "O = AV"]
        if self.claim in _NEEDS_DA:
            out += [_marked(_CLAIMS["dA"][1], self.mark)]
            out += [_marked(r"D = \operatorname{rowsum}({d}O \circ O)", self.mark)]
        return out

    def truth(self) -> str:
        """ "true" or "false": the claimed value against central finite differences of the loss
        `sum(dO ∘ O)` (dO random), at two size plans and two seeds, float64."""
        plans = ((4, 2, 3, 0), (5, 3, 2, 1))
        ok = all(_holds(self.claim, self.causal, *plan) for plan in plans)
        return "true" if ok else "false"

    def kernel_call(self, seconds: float) -> Any:
        """The claim through the API: `prove_gradient` on the gradient, or `prove_within` on
        the row term, with `dA = dO V^T` written out."""
        n, dk, dv = D.n, D.d_k, D.d_v
        q, k, v = E.MatSym("Q", n, dk), E.MatSym("K", n, dk), E.MatSym("V", n, dv)
        do = E.MatSym("dO", n, dv)
        s_of = E.Scale(1 / sympy.sqrt(dk), q @ k.T)
        soft = (lambda x: E.Softmax(E.CausalMask(x))) if self.causal else E.Softmax
        s_sym, a_sym = E.MatSym("S", n, n), E.MatSym("A", n, n)
        a = soft(s_of)
        da = do @ v.T
        dA_up, dS_up = E.MatSym("dA", n, n), E.MatSym("dS", n, n)
        one = E.Ones(n, 1)
        terms = {
            "dV": (a @ v, v, do, a.T @ do),
            "dV-no-transpose": (a @ v, v, do, a @ do),
            "dA": (a_sym @ v, a_sym, do, da),
            "dA-transposed": (a_sym @ v, a_sym, do, v @ do.T),
            "dS": (soft(s_sym), s_sym, dA_up, _jacobian_form(soft(s_sym), dA_up)),
            "dS-no-row-term": (soft(s_sym), s_sym, dA_up, E.Hadamard(soft(s_sym), dA_up)),
            "dQ": (s_of, q, dS_up, E.Scale(1 / sympy.sqrt(dk), dS_up @ k)),
            "dQ-no-scale": (s_of, q, dS_up, dS_up @ k),
            "dK": (s_of, k, dS_up, E.Scale(1 / sympy.sqrt(dk), dS_up.T @ q)),
            "dK-no-transpose": (s_of, k, dS_up, E.Scale(1 / sympy.sqrt(dk), dS_up @ q)),
        }
        a_s = soft(s_sym)
        d_col = E.Hadamard(do, a_s @ v) @ E.Ones(dv, 1)
        sign = {"dS-from-D": -1, "dS-from-D-sign": 1}
        if self.claim in sign:
            value = E.Hadamard(a_s, E.MatAdd(do @ v.T, E.Scale(sign[self.claim], d_col @ one.T)))
            return prove_gradient(a_s @ v, s_sym, do, value)
        if self.claim in ("row-term", "row-term-V"):
            lhs = E.Hadamard(a, da) @ E.Ones(n, 1)
            other = a @ v if self.claim == "row-term" else v
            return prove_within(lhs, E.Hadamard(do, other) @ E.Ones(dv, 1), seconds=seconds)
        output, wrt, up, value = terms[self.claim]
        return prove_gradient(output, wrt, up, value)

    def prove_argv(self) -> list[str]:
        formula = r",\quad ".join([*self._forward(), self.claimed])
        dims = "Q: n x d_k; K: n x d_k; V: n x d_v"
        return ["prove", formula, "--dims", dims, "--format", "json"]

    def document(self) -> tuple[str, int]:
        """A Markdown document with the forward pass in its prose, and the claim's line."""
        forward = ", ".join(f"${x}$" for x in self._forward())
        lines = [
            "# The backward pass",
            "",
            r"Let $Q, K \in \mathbb{R}^{n\times d_k}$ and $V \in \mathbb{R}^{n\times d_v}$.",
            "",
            f"The forward pass is {forward}; the upstream gradient of $O$ is given.",
            "",
        ]
        return claim_document(lines, self.claimed)


def _jacobian_form(a: E.MatExpr, up: E.MatExpr) -> E.MatExpr:
    return softmax_jvp(a, up)


def backward_claims() -> list[BackClaim]:
    """Every claim, plain and causal, with the mark `d`; the first claims also with `\\mathit`
    and `\\bar`.

    >>> cs = backward_claims()
    >>> len(cs), sum(c.truth() == "true" for c in cs)
    (36, 18)
    """
    out = [
        BackClaim(f"bw-{name}{'-causal' if causal else ''}", name, causal)
        for causal in (False, True)
        for name in _CLAIMS
    ]
    for mark in _MARKS[1:]:
        for name in ("dV", "dV-no-transpose", "dQ", "dQ-no-scale"):
            out.append(BackClaim(f"bw-{name}-{mark}", name, False, mark))
    return out
