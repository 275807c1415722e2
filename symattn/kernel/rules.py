"""The library of named identities, each named after its left-hand side (mathlib style).

Imports only the kernel below it (errors, dims, expr, proof, recurrences); must not import
derivation or
anything above the kernel. A built-in rule's statement is proved by the kernel on demand (and by
tests/kernel/test_rules.py); a user's rule (`register`) enters the registry only once proved.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import sympy

from symattn.kernel.dims import D, G, H, P, R, d_k, d_v, ell, m, n, p, q
from symattn.kernel.errors import InputError, ProofError, UnknownNameError
from symattn.kernel.expr import (
    CausalMask,
    Concat,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatSum,
    MatSym,
    Ones,
    RowBlock,
    Scale,
    Softmax,
    index,
)
from symattn.kernel.modern import (
    CausalZero,
    FeatureMap,
    FirstRows,
    PadMask,
    PairDots,
    PositionBias,
    RepeatKV,
    Rope,
    alibi,
)
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.recurrences import flash_forward, kv_cache, linear_state, split_kv_merge

i, j, k, r, u, h = (index(s) for s in "ijkruh")


@dataclass(frozen=True)
class Rule:
    """A named identity `lhs = rhs`; `en`/`zh` are the justifications printed beside a step."""

    name: str
    en: str
    zh: str
    statement: Callable[[], tuple[sympy.Basic, sympy.Basic]]
    assuming: Callable[[], tuple[sympy.Basic, ...]] = lambda: ()

    def sides(self) -> tuple[sympy.Basic, sympy.Basic]:
        return self.statement()

    def check(self) -> Verdict:
        """The kernel's verdict on the rule's own statement (cached)."""
        return _check(self.name)


def _A() -> MatSym:
    return MatSym("A", m, p)


def _B() -> MatSym:
    return MatSym("B", p, q)


def _S() -> MatSym:
    return MatSym("S", n, n)


def _rules() -> list[Rule]:
    A, B, S = _A(), _B(), _S()
    # Keys may be as many as the queries (self-attention) or not (cross-attention, m keys):
    # only the causal mask needs square scores.
    Qm, Km = MatSym("Q", n, d_k), MatSym("K", m, d_k)
    Am, Vm, Vn = MatSym("A", n, m), MatSym("V", m, d_v), MatSym("V", n, d_v)
    R = MatSym("S", n, m)
    F = sympy.IndexedBase("f")
    Hs = H
    Zh, WO = HeadSym("Z", h, n, d_v), MatSym("W_O", Hs * d_v, m)
    masked = Softmax(CausalMask(S))
    return [
        Rule(
            "mul_apply",
            "definition of the matrix product",
            "矩阵乘法的定义",
            lambda: ((A @ B)[i, j], sympy.Sum(A[i, k] * B[k, j], (k, 1, p))),
        ),
        Rule(
            "transpose_apply",
            "definition of the transpose",
            "转置的定义",
            lambda: (A.T[i, j], A[j, i]),
        ),
        Rule(
            "mul_transpose_apply",
            "entry of a product with a transpose",
            "与转置相乘的元素",
            lambda: ((Qm @ Km.T)[i, j], sympy.Sum(Qm[i, r] * Km[j, r], (r, 1, d_k))),
        ),
        Rule(
            "dot_def",
            "definition of the dot product",
            "点积的定义",
            lambda: (Dot(Qm.row(i), Km.row(j)), sympy.Sum(Qm[i, r] * Km[j, r], (r, 1, d_k))),
        ),
        Rule(
            "mul_transpose_apply_dot",
            "an entry of $QK^T$ is a dot product of rows",
            "$QK^T$ 的元素是两行的点积",
            lambda: ((Qm @ Km.T)[i, j], Dot(Qm.row(i), Km.row(j))),
        ),
        Rule(
            "row_mul",
            "each row is multiplied on its own",
            "每一行独立相乘",
            lambda: ((A @ B).row(i), A.row(i) @ B),
        ),
        Rule(
            "mul_row",
            "a row of $AV$ is a weighted sum of rows of $V$",
            "$AV$ 的一行是 $V$ 各行的加权和",
            lambda: ((Am @ Vm).row(i), MatSum(Scale(Am[i, j], Vm.row(j)), j, 1, m)),
        ),
        Rule(
            "smul_apply",
            "a scalar multiplies every entry",
            "数乘作用于每个元素",
            lambda: (Scale(sympy.Symbol("c"), A)[i, j], sympy.Symbol("c") * A[i, j]),
        ),
        Rule(
            "add_apply",
            "matrices add entrywise",
            "矩阵逐元素相加",
            lambda: ((A + MatSym("C", m, p))[i, j], A[i, j] + MatSym("C", m, p)[i, j]),
        ),
        Rule(
            "sum_comm",
            "the order of two finite sums can be swapped",
            "交换两个有限和的次序",
            lambda: (
                sympy.Sum(F[i, j], (j, 1, n), (i, 1, m)),
                sympy.Sum(F[i, j], (i, 1, m), (j, 1, n)),
            ),
        ),
        Rule(
            "mul_sum",
            "a factor that does not depend on the index moves into the sum",
            "与求和指标无关的因子可移入求和",
            lambda: (
                sympy.Symbol("c") * sympy.Sum(F[j], (j, 1, n)),
                sympy.Sum(sympy.Symbol("c") * F[j], (j, 1, n)),
            ),
        ),
        Rule(
            "softmax_apply",
            "definition of the row-wise softmax",
            "逐行 softmax 的定义",
            lambda: (
                Softmax(R)[i, j],
                sympy.exp(R[i, j]) / sympy.Sum(sympy.exp(R[i, k]), (k, 1, m)),
            ),
        ),
        Rule(
            "softmax_rowsum",
            "each row of a softmax sums to 1",
            "softmax 每一行之和为 1",
            lambda: (Softmax(R) @ Ones(m, 1), Ones(n, 1)),
        ),
        Rule(
            "sum_softmax_apply",
            "the weights in a row of a softmax sum to 1",
            "softmax 一行中的权重之和为 1",
            lambda: (sympy.Sum(Softmax(R)[i, j], (j, 1, m)), sympy.Integer(1)),
        ),
        Rule(
            "softmax_add_of_rowconst",
            "adding a constant to a row leaves softmax unchanged",
            "同一行加上常数不改变 softmax",
            lambda: (Softmax(R + FromColumn("c", n, m)), Softmax(R)),
        ),
        Rule(
            "softmax_mask_apply",
            "masked positions get weight 0; the rest renormalise",
            "被掩码的位置权重为 0，其余重新归一化",
            lambda: (
                masked[i, j],
                sympy.Piecewise((sympy.exp(S[i, j]), sympy.Le(j, i)), (0, True))
                / sympy.Sum(sympy.exp(S[i, k]), (k, 1, i)),
            ),
        ),
        Rule(
            "softmax_mask_rowsum",
            "rows of a causally masked softmax still sum to 1",
            "因果掩码后每一行之和仍为 1",
            lambda: (masked @ Ones(n, 1), Ones(n, 1)),
        ),
        Rule(
            "sum_softmax_mask_apply",
            "the weights a causal mask keeps sum to 1",
            "因果掩码保留的权重之和为 1",
            lambda: (sympy.Sum(masked[i, j], (j, 1, i)), sympy.Integer(1)),
        ),
        Rule(
            "softmax_mask_apply_of_gt",
            "under the causal mask $a_{ij} = 0$ when $j > i$",
            "因果掩码下 $j > i$ 时 $a_{ij} = 0$",
            lambda: (masked[i, j], sympy.Integer(0)),
            lambda: (sympy.StrictGreaterThan(j, i),),
        ),
        Rule(
            "softmax_mask_mul_row",
            "under the causal mask $z_i$ uses only $v_1, \\ldots, v_i$",
            "因果掩码下 $z_i$ 只用到 $v_1, \\ldots, v_i$",
            lambda: ((masked @ Vn).row(i), MatSum(Scale(masked[i, j], Vn.row(j)), j, 1, i)),
        ),
        Rule(
            "rowblock_apply",
            "$W_O^{(h)}$ is the $h$-th block of $d_v$ rows of $W_O$",
            "$W_O^{(h)}$ 是 $W_O$ 的第 $h$ 块（$d_v$ 行）",
            lambda: (RowBlock(WO, h, d_v, Hs)[u, j], WO[(h - 1) * d_v + u, j]),
        ),
        Rule(
            "concat_mul",
            "a concatenation times $W_O$ is a sum over heads",
            "拼接后乘 $W_O$ 等于各头之和",
            lambda: (Concat(Zh, h, Hs) @ WO, MatSum(Zh @ RowBlock(WO, h, d_v, Hs), h, 1, Hs)),
        ),
        Rule(
            "concat_mul_apply",
            "an entry of $\\operatorname{Concat}(\\ldots)W_O$ sums over heads and their columns",
            "$\\operatorname{Concat}(\\ldots)W_O$ 的元素对各头及其各列求和",
            lambda: (
                (Concat(Zh, h, Hs) @ WO)[i, j],
                sympy.Sum(Zh[i, u] * WO[(h - 1) * d_v + u, j], (u, 1, d_v), (h, 1, Hs)),
            ),
        ),
        *_modern_rules(),
    ]


def _modern_rules() -> list[Rule]:
    """The rules of modern attention (docs/modern.md), each proved for all sizes."""
    S, Vm = _S(), MatSym("V", n, d_v)
    g, rr, pad, feats, pairs = G, R, p, D, P
    lam = sympy.Symbol("lambda", positive=True)
    a, b = sympy.Symbol("a", real=True), sympy.Symbol("b", real=True)
    Sp, Km = MatSym("S", n, ell + pad), MatSym("K", n, g * d_k)
    Sq, Vq = MatSym("S", n + 1, n + 1), MatSym("V", n + 1, d_v)
    Fq, Fk = (
        FeatureMap("phi", MatSym("Q", n, d_k), feats),
        FeatureMap("phi", MatSym("K", n, d_k), feats),
    )
    x, y = MatSym("x", pairs, 2), MatSym("y", pairs, 2)
    heads = g * rr
    fh = sympy.IndexedBase("f")

    def head(mat: MatSym, k: sympy.Expr, count: sympy.Expr) -> RowBlock:
        return RowBlock(mat.T, k, d_k, count)

    return [
        Rule(
            "softmax_add_alibi",
            "ALiBi's $-\\lambda i$ is constant along a row: only $\\lambda j$ stays",
            "ALiBi 偏置中的 $-\\lambda i$ 在一行内是常数，只剩 $\\lambda j$",
            lambda: (
                Softmax(CausalMask(S + alibi(n, lam))),
                Softmax(CausalMask(S + PositionBias(n, 0, lam))),
            ),
        ),
        Rule(
            "softmax_pad_rowsum",
            "with key padding a row's weights sum to 1 over the valid keys",
            "键填充时每行权重在有效键上和为 1",
            lambda: (Softmax(PadMask(Sp, ell, pad)) @ Ones(ell + pad, 1), Ones(n, 1)),
        ),
        Rule(
            "repeat_kv_apply",
            "query head $h$ reads K/V head $\\lceil h/R\\rceil$",
            "第 $h$ 个查询头读取第 $\\lceil h/R\\rceil$ 个 K/V 头",
            lambda: (
                head(RepeatKV(Km, g, rr, d_k), h, heads),
                head(Km, sympy.ceiling(h / rr), g),
            ),
        ),
        Rule(
            "sum_regroup",
            "the sum over the $GR$ query heads, grouped by the K/V head $\\lceil h/R\\rceil$ "
            "each reads",
            "对 $GR$ 个查询头的求和按各自读取的 K/V 头 $\\lceil h/R\\rceil$ 分组",
            lambda: (
                sympy.Sum(fh[sympy.ceiling(h / rr), h], (h, 1, heads)),
                sympy.Sum(fh[k, (k - 1) * rr + u], (u, 1, rr), (k, 1, g)),
            ),
        ),
        Rule(
            "mul_assoc",
            "the matrix product is associative",
            "矩阵乘法满足结合律",
            lambda: ((Fq @ Fk.T) @ Vm, Fq @ (Fk.T @ Vm)),
        ),
        Rule(
            "mul_causal_zero_row",
            "under linear attention's causal mask $z_i$ uses only rows $1, \\ldots, i$",
            "线性注意力的因果掩码下 $z_i$ 只用到第 $1, \\ldots, i$ 行",
            lambda: (
                (CausalZero(Fq @ Fk.T) @ Vm).row(i),
                Fq.row(i) @ MatSum(Fk.row(j).T @ Vm.row(j), j, 1, i),
            ),
        ),
        Rule(
            "softmax_mask_mul_row_last",
            "the last token attends to every token: nothing in its row is masked",
            "最后一个词元关注所有词元：它的那一行没有被掩码",
            lambda: ((Softmax(CausalMask(S)) @ Vm).row(n), Softmax(S.row(n)) @ Vm),
        ),
        Rule(
            "softmax_mask_mul_first_rows",
            "the first $n$ rows of causal attention do not see token $n+1$",
            "因果注意力的前 $n$ 行看不到第 $n+1$ 个词元",
            lambda: (
                FirstRows(Softmax(CausalMask(Sq)) @ Vq, n),
                Softmax(CausalMask(FirstRows(FirstRows(Sq, n).T, n).T)) @ FirstRows(Vq, n),
            ),
        ),
        Rule(
            "rope_pairs_apply",
            "rotations by angles $m$ and $n$ leave a dot product that depends on $n - m$",
            "按角度 $m$ 与 $n$ 旋转后的点积只依赖于 $n - m$",
            lambda: (PairDots(Rope(x, a), Rope(y, b)), PairDots(x, Rope(y, b - a))),
        ),
    ]


def _recurrence_rules() -> list[Rule]:
    """Recurrences over a symbolic number of blocks or tokens, each proved by induction."""
    return [
        Rule(
            "online_softmax_blocks",
            "the online softmax over any number $B$ of key blocks (running maximum from "
            "$-\\infty$, rescaled normaliser and output) is causal attention, by induction on $B$",
            "任意 $B$ 个键块上的在线 softmax（运行最大值从 $-\\infty$ 开始，重新缩放归一化项"
            "与输出）就是因果注意力，对 $B$ 归纳",
            flash_forward().statement,
        ),
        Rule(
            "split_kv_merge_blocks",
            "merging the partial $(m, \\ell, O)$ of any number of key splits gives "
            "$\\mathrm{softmax}(S)V$, by induction on the number of splits",
            "合并任意多个键分段的部分结果 $(m, \\ell, O)$ 得到 $\\mathrm{softmax}(S)V$，"
            "对分段数归纳",
            split_kv_merge().statement,
        ),
        Rule(
            "linear_state_prefix",
            "the recurrent state $S_t$ (the one before it plus $\\phi(k_t)^\\top v_t$) gives row "
            "$t$ of causal linear attention for every $t$, by induction on $t$",
            "递推状态 $S_t$（前一个状态加上 $\\phi(k_t)^\\top v_t$）对每个 $t$ 给出因果线性注意力的"
            "第 $t$ 行，对 $t$ 归纳",
            linear_state().statement,
        ),
        Rule(
            "kv_cache_step",
            "at every decoding step $t$ the query against the KV cache is row $t$ of causal "
            "attention, by induction on $t$",
            "每个解码步 $t$ 上查询对 KV 缓存的注意力就是因果注意力的第 $t$ 行，对 $t$ 归纳",
            kv_cache().statement,
        ),
    ]


PHRASES: dict[str, tuple[str, str]] = {
    "def": ("by definition", "由定义"),
    "algebra": ("algebra", "代数运算"),
    "assumption": ("by assumption", "由假设"),
}


@cache
def registry() -> dict[str, Rule]:
    """Every named rule, by name (the Python name and the key are the same string)."""
    return {rule.name: rule for rule in _rules() + _recurrence_rules()}


_USER: set[str] = set()  # names `register` added; only these can be unregistered


def register(
    name: str,
    en: str,
    zh: str,
    statement: tuple[sympy.Basic, sympy.Basic] | Callable[[], tuple[sympy.Basic, sympy.Basic]],
    assuming: Sequence[sympy.Basic] = (),
) -> Rule:
    """Add a user's rule `lhs = rhs` after the kernel proves it for all sizes.

    A rule is cited as a law for every size, so only a `proved` statement enters; a `checked`
    one (explicit sizes only) is refused with the verdict. Steps may then cite `by=name`.

    >>> from symattn.kernel.dims import n
    >>> X = MatSym("X", n, n)
    >>> rule = register("transpose_transpose", "the transpose of a transpose",
    ...                 "转置的转置", (X.T.T, X))
    >>> get("transpose_transpose").check().status
    'proved'
    >>> unregister("transpose_transpose")
    """
    if not re.fullmatch(r"[a-z]+(_[a-z]+)*", name):
        raise InputError(f"rule name {name!r}: use lowercase words joined by _ (mul_apply)")
    if name in registry() or name in PHRASES:
        raise InputError(f"rule {name!r} exists already; choose another name")
    lhs, rhs = statement() if callable(statement) else statement
    hypotheses = tuple(assuming)
    verdict = prove_equal(lhs, rhs, assuming=hypotheses)
    if verdict.status != "proved":
        detail = verdict.counterexample if verdict.status == "false" else verdict.reason
        raise ProofError(
            f"rule {name!r} not registered: the kernel did not prove {lhs} = {rhs} for all "
            f"sizes ({verdict.status})" + (f"\n  {detail}" if detail else ""),
            counterexample=verdict.counterexample,
        )
    rule = Rule(name, en, zh, lambda: (lhs, rhs), lambda: hypotheses)
    registry()[name] = rule
    _USER.add(name)
    _check.cache_clear()
    return rule


def unregister(name: str) -> None:
    """Remove a rule that `register` added (built-in rules stay)."""
    if name not in _USER:
        raise InputError(f"rule {name!r} was not added by register; built-in rules stay")
    _USER.discard(name)
    del registry()[name]
    _check.cache_clear()


def get(name: str) -> Rule:
    """The rule called `name`, or an error that suggests close names.

    >>> get("mul_apply").en
    'definition of the matrix product'
    """
    rules = registry()
    if name not in rules:
        close = difflib.get_close_matches(name, list(rules), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownNameError(f"unknown rule {name!r}{hint}")
    return rules[name]


def known_justification(by: str) -> None:
    """Accept a rule name or one of the generic phrases; reject anything else."""
    if by in PHRASES:
        return
    get(by)


def describe(by: str, lang: str = "en", latex: bool = False) -> str:
    r"""The localised justification text for a rule name or phrase.

    Descriptions write their mathematics as LaTeX between `$` signs; `latex=True` keeps it so
    (the textbook printer sets it as math), else it is shown as plain text.

    >>> describe("repeat_kv_apply")
    'query head h reads K/V head ⌈h/R⌉'
    >>> print(describe("repeat_kv_apply", latex=True))
    query head $h$ reads K/V head $\lceil h/R\rceil$
    """
    if by in PHRASES:
        en, zh = PHRASES[by]
    else:
        rule = get(by)
        en, zh = rule.en, rule.zh
    text = zh if lang == "zh" else en
    return text if latex else plain_math(text)


#: LaTeX in descriptions and what plain text shows for it.
_PLAIN = (
    (r"\operatorname{", "{"),
    (r"\lceil ", "⌈"),
    (r"\lceil", "⌈"),
    (r"\rceil", "⌉"),
    (r"\ldots", "…"),
    (r"\lambda ", "λ"),
    (r"\lambda", "λ"),
    (r"\infty", "∞"),
    (r"\ell", "ℓ"),
    (r"\phi", "φ"),
    (r"^\top", "^T"),
    (r"\mathrm{", "{"),
)


def plain_math(text: str) -> str:
    r"""A description's `$…$` mathematics as plain text (`$W_O^{(h)}$` -> `W_O^(h)`).

    >>> plain_math(r"rows $1, \ldots, i$ of $W_O^{(h)}$ and $a_{ij}$")
    'rows 1, …, i of W_O^(h) and a_ij'
    """

    def one(m: re.Match[str]) -> str:
        t = m.group(1)
        for a, b in _PLAIN:
            t = t.replace(a, b)
        t = re.sub(r"\^\{\(([^{}]*)\)\}", r"^(\1)", t)
        t = re.sub(r"_\{([^{}]*)\}", r"_\1", t)
        return t.replace("{", "").replace("}", "")

    return re.sub(r"\$([^$]*)\$", one, text)


@cache
def _check(name: str) -> Verdict:

    rule = get(name)
    lhs, rhs = rule.sides()
    return prove_equal(lhs, rhs, assuming=rule.assuming())


def search(words: str) -> list[Rule]:
    """Rules whose name or description contains every word (case-insensitive)."""
    terms = words.lower().split()
    out = []
    for rule in registry().values():
        text = f"{rule.name} {rule.en} {rule.zh}".lower()
        if all(t in text for t in terms):
            out.append(rule)
    return out


__all__ = [
    "Rule",
    "registry",
    "get",
    "describe",
    "search",
    "known_justification",
    "register",
    "unregister",
    "Entry",
]
