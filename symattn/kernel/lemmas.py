"""The facts the proofs by induction rest on that no witness decides as a claim: named, stated,
and how the kernel uses each (applied as a rewrite, or assumed and named in the verdict).

Imports nothing from symattn; the kernel's induction (induction, unfold) names these facts in
its verdicts, and `symattn rules` lists them beside the rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lemma:
    """A fact a proof rests on: `kind` is "rewrite" (an identity the kernel applies where its
    side conditions are shown) or "assumed" (a property the witnesses cannot show, named in
    every verdict that rests on it)."""

    name: str
    statement: str
    kind: str
    en: str
    zh: str


LEMMAS: tuple[Lemma, ...] = (
    Lemma(
        "max_append",
        "max(max_{j=lo..mid} f_j, max_{j=mid+1..hi} f_j) = max_{j=lo..hi} f_j "
        "(when lo - 1 <= mid <= hi)",
        "rewrite",
        "a running maximum over two adjacent ranges is the maximum over their union (max over an "
        "empty range is -∞)",
        "相邻两段上的运行最大值之最大值等于并集上的最大值（空范围上的最大值为 -∞）",
    ),
    Lemma(
        "exp_max_finite",
        "e^{max_{j=lo..hi} S_ij} > 0 (when the range is nonempty and its scores finite, or a "
        "causal range holds key 1)",
        "assumed",
        "a running maximum over a range with a finite score is finite, so e^m > 0 and a rescale "
        "factor e^{m_old - m_new} may be written E_old / E_new",
        "含有限分数的范围上的运行最大值有限，故 e^m > 0，重新缩放因子 e^{m_old - m_new} 可写作 "
        "E_old / E_new",
    ),
    Lemma(
        "sum_last_term",
        "sum_{j=lo}^{t} f_j = sum_{j=lo}^{t-1} f_j + f_t (when t >= lo)",
        "rewrite",
        "a sum up to t is the sum up to t - 1 plus its last term (the step of an induction on t)",
        "到 t 的求和等于到 t - 1 的求和加上最后一项（对 t 归纳的一步）",
    ),
)


def search(words: str) -> list[Lemma]:
    """The lemmas whose name, statement or description contains every word (case-insensitive).

    >>> [x.name for x in search("maximum")]
    ['max_append', 'exp_max_finite']
    """
    terms = words.lower().split()
    return [
        x
        for x in LEMMAS
        if all(t in f"{x.name} {x.statement} {x.en} {x.zh}".lower() for t in terms)
    ]
