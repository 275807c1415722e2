"""Beyond the chapter: block identity, softmax shift, why sqrt(d_k), causal dependence, cost.

A script on the public API (symattn, symattn.derive, symattn.latex); must not import the reader,
check or cli. The moments of q·k are computed with sympy
outside the kernel, and say so; everything else is a kernel Proof or an exact check.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy
from sympy.stats import E, Normal, variance

from symattn import (
    Derivation,
    FromColumn,
    MatAdd,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Scale,
    Softmax,
    d_k,
    expand_entries,
    index,
    multi_head,
    n,
    single_head,
)
from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.expr import walk
from symattn.latex.document import Math as M
from symattn.latex.printer import latex


def content(on_check: OnCheck | None = None) -> Section:
    """Results that follow from the chapter with the same machinery, checked.

    Checking takes seconds; tests/derive runs it. The result is a `Section`:
    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("6.6", Text("章节之外的几个推论", "Beyond the chapter"), on_check)
    _block_identity(b)
    _shift(b)
    _sqrt_dk(b)
    _causal(b)
    _cost(b)
    return b.section()


# ---- the block identity -------------------------------------------------------------------


def _block_identity(b: Builder) -> None:
    mh = multi_head()
    b.heading("拼接再投影等于各头分别投影后相加", "Concatenate-then-project is a sum over heads")
    b.say(
        [
            "把 ",
            M("W_O"),
            " 按行切成 ",
            M("H"),
            " 块，每块 ",
            M("d_v"),
            " 行，第 ",
            M("h"),
            " 块记作 ",
            M("W_O^{(h)}"),
            "。对符号 ",
            M("H"),
            " 成立：",
        ],
        [
            "Cut ",
            M("W_O"),
            " into ",
            M("H"),
            " blocks of ",
            M("d_v"),
            " rows and call block ",
            M("h"),
            " ",
            M("W_O^{(h)}"),
            ". For symbolic ",
            M("H"),
            ":",
        ],
    )
    b.prove(Derivation(mh.output, title="6.6 block identity").step(mh.blockwise, by="concat_mul"))
    small = multi_head(n=2, d=2, d_v=2, H=3)
    b.say(
        ["在 ", M("H=3, n=d=d_v=2"), " 时把每个元素写成独立符号再逐项比较，结果一致："],
        [
            "With ",
            M("H=3, n=d=d_v=2"),
            " and every entry an independent symbol, the two sides agree term by term:",
        ],
    )
    b.prove(
        Derivation(small.output, title="6.6 block identity at H = 3").step(
            small.blockwise, by="concat_mul"
        ),
        require="exact",
        witnesses=("exact",),
    )


# ---- softmax shift ------------------------------------------------------------------------


def _shift(b: Builder) -> None:
    S = MatSym("S", n, n)
    shift = FromColumn("c", n, n)
    c = sympy.IndexedBase("c")
    i, j, k = index("i"), index("j"), index("l")
    b.heading("softmax 对每行加常数不变", "Softmax ignores a constant added to a row")
    b.say(
        [
            "给 ",
            M("S"),
            " 的第 ",
            M("i"),
            " 行都加上同一个数 ",
            M("c_i"),
            "，",
            M("e^{c_i}"),
            " 在分子分母中约掉。实现中取 ",
            M("c_i = -\\max_j S_{ij}"),
            "，指数就不会溢出，而结果不变：",
        ],
        [
            "Add the same number ",
            M("c_i"),
            " to every entry of row ",
            M("i"),
            " of ",
            M("S"),
            ": the factor ",
            M("e^{c_i}"),
            " cancels. Implementations take ",
            M("c_i = -\\max_j S_{ij}"),
            " so that no exponential overflows, and the result is unchanged:",
        ],
    )
    top = sympy.exp(S[i, j] + c[i])
    bottom = sympy.Sum(sympy.exp(S[i, k] + c[i]), (k, 1, n))
    split = (sympy.exp(c[i]) * sympy.exp(S[i, j])) / sympy.Sum(
        sympy.exp(c[i]) * sympy.exp(S[i, k]), (k, 1, n)
    )
    b.prove(
        Derivation(Softmax(S + shift)[i, j], title="6.6 shift invariance, entries")
        .step(top / bottom, by="softmax_apply")
        .step(split, by="algebra")
        # e^{c_i} leaves the sum (mul_sum) and cancels: sympy cancels it as soon as it is out,
        # so the line cannot show it outside; the step is honestly "algebra".
        .step(sympy.exp(S[i, j]) / sympy.Sum(sympy.exp(S[i, k]), (k, 1, n)), by="algebra")
        .step(Softmax(S)[i, j], by="softmax_apply")
    )
    b.prove(
        Derivation(Softmax(S + shift), title="6.6 shift invariance").step(
            Softmax(S), by="softmax_add_of_rowconst"
        )
    )


# ---- why sqrt(d_k) ------------------------------------------------------------------------


def second_moment_symbolic() -> sympy.Expr:
    """`Σ_r Σ_t δ_rt δ_rt` over 1..d_k, summed by sympy with r kept inside its range.

    >>> second_moment_symbolic()
    d_k
    """
    r, t = index("r"), index("t")
    m = sympy.Symbol("m", integer=True, nonnegative=True)
    inner = sympy.Sum(sympy.KroneckerDelta(r, t) ** 2, (t, 1, d_k)).doit()
    # 1 <= r <= d_k: write d_k = r + m with m >= 0, so the range condition is decided.
    inner = sympy.simplify(inner.subs(d_k, r + m)).subs(m, d_k - r)
    return sympy.simplify(sympy.Sum(inner, (r, 1, d_k)).doit())


def rademacher_moments(dk: int) -> tuple[sympy.Rational, sympy.Rational]:
    """Exact E[q·k] and Var(q·k) when all 2·d_k entries are independent ±1 (mean 0, variance 1).

    >>> rademacher_moments(3)
    (0, 3)
    """
    values = [
        sum(a * b for a, b in zip(p[:dk], p[dk:], strict=True))
        for p in itertools.product((-1, 1), repeat=2 * dk)
    ]
    count = sympy.Integer(len(values))
    mean = sympy.Integer(sum(values)) / count
    var = sympy.Integer(sum(v * v for v in values)) / count - mean**2
    return mean, var


def gaussian_moments(dk: int) -> tuple[sympy.Expr, sympy.Expr]:
    """E[q·k] and Var(q·k) with independent standard normal entries, by sympy.stats."""

    qs = [Normal(f"q{r}", 0, 1) for r in range(1, dk + 1)]
    ks = [Normal(f"k{r}", 0, 1) for r in range(1, dk + 1)]
    s = sum((a * b for a, b in zip(qs, ks, strict=True)), sympy.Integer(0))
    return sympy.simplify(E(s)), sympy.simplify(variance(s))


def _sqrt_dk(b: Builder) -> None:
    b.heading(["为什么除以 ", M("\\sqrt{d_k}")], ["Why divide by ", M("\\sqrt{d_k}")])
    b.say(
        [
            "设 ",
            M("q, k"),
            " 的 ",
            M("2d_k"),
            " 个坐标相互独立，均值为 0，方差为 1。由期望的线性和独立性：",
        ],
        [
            "Let the ",
            M("2d_k"),
            " coordinates of ",
            M("q"),
            " and ",
            M("k"),
            " be independent "
            "with mean 0 and variance 1. By linearity of expectation and independence:",
        ],
    )
    second = second_moment_symbolic()
    if second != d_k:
        raise AssertionError(f"second moment came out as {second}")
    dk = latex(second)
    lines = [
        (
            r"\mathbb E[q\cdot k] &= \sum_{r=1}^{d_k}\mathbb E[q_r]\,\mathbb E[k_r] = 0",
            Text("期望的线性；独立", "linearity; independence"),
        ),
        (
            r"\mathbb E[(q\cdot k)^2] &= \sum_{r=1}^{d_k}\sum_{t=1}^{d_k}"
            r"\mathbb E[q_rq_t]\,\mathbb E[k_rk_t]",
            Text("展开平方；独立", "expand the square; independence"),
        ),
        (
            rf"&= \sum_{{r=1}}^{{d_k}}\sum_{{t=1}}^{{d_k}}\delta_{{rt}}^2 = {dk}",
            Text(
                [M("\\mathbb E[q_rq_t]=\\delta_{rt}"), "：均值 0、方差 1、独立"],
                [M("\\mathbb E[q_rq_t]=\\delta_{rt}"), ": mean 0, variance 1, independence"],
            ),
        ),
        (
            rf"\operatorname{{Var}}(q\cdot k) &= {dk} - 0^2 = {dk}",
            None,
        ),
        (
            r"\operatorname{Var}\left(\frac{q\cdot k}{\sqrt{d_k}}\right) &= \frac{d_k}{d_k} = 1",
            Text("方差的缩放", "scaling a variance"),
        ),
    ]
    b.computation(
        lines,
        Text(
            [
                "最后的双重和由 sympy 对符号 ",
                M("d_k"),
                " 求出；矩的规则（独立、均值 0、方差 1）是假设，不是内核证明的",
            ],
            [
                "the double sum is evaluated by sympy for symbolic ",
                M("d_k"),
                "; the moment "
                "rules (independence, mean 0, variance 1) are assumptions, not kernel proofs",
            ],
        ),
    )
    sizes = (1, 2, 3, 4)
    exact = all(rademacher_moments(k) == (0, k) for k in sizes)
    b.check(
        [
            "坐标取独立的 ",
            M("\\pm 1"),
            "（均值 0、方差 1）时，在 ",
            M("d_k=1,2,3,4"),
            " 穷举全部取值，精确得到 ",
            M("\\mathbb E[q\\cdot k]=0"),
            "、",
            M("\\operatorname{Var}(q\\cdot k)=d_k"),
        ],
        [
            "with independent ",
            M("\\pm 1"),
            " coordinates (mean 0, variance 1), enumerating every outcome at ",
            M("d_k=1,2,3,4"),
            " gives exactly ",
            M("\\mathbb E[q\\cdot k]=0"),
            " and ",
            M("\\operatorname{Var}(q\\cdot k)=d_k"),
        ],
        exact,
    )
    b.check(
        ["坐标取独立标准正态时，sympy.stats 在 ", M("d_k=2"), " 给出均值 0、方差 2"],
        [
            "with independent standard normal coordinates, sympy.stats gives mean 0 and "
            "variance 2 at ",
            M("d_k=2"),
        ],
        gaussian_moments(2) == (0, 2),
    )
    b.say(
        [
            "所以不缩放时分数的标准差约为 ",
            M("\\sqrt{d_k}"),
            "，",
            M("d_k=64"),
            " 时约为 8，softmax 会趋于只选一个位置；除以 ",
            M("\\sqrt{d_k}"),
            " 让方差回到 1。",
        ],
        [
            "Unscaled, the scores have standard deviation about ",
            M("\\sqrt{d_k}"),
            " (8 at ",
            M("d_k=64"),
            "), which pushes the softmax towards picking a single position; dividing by ",
            M("\\sqrt{d_k}"),
            " brings the variance back to 1.",
        ],
    )


# ---- causal mask --------------------------------------------------------------------------


def _causal(b: Builder) -> None:
    s = single_head(causal=True)
    A, V, Z = s.A, s.V, s.Z
    i, j = index("i"), index("j")
    b.heading("因果掩码下的依赖关系", "What a causal output depends on")
    b.say(
        [
            "加上因果掩码 ",
            M("M"),
            "（",
            M("M_{ij}=0"),
            "当 ",
            M("j\\le i"),
            "，",
            M("M_{ij}=-\\infty"),
            " 当 ",
            M("j>i"),
            "）后，",
            M("A = \\operatorname{softmax}\\left(\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}} + M\\right)"),
            "。对角线以上的权重恰为 0（假设 ",
            M("j>i"),
            "）：",
        ],
        [
            "With the causal mask ",
            M("M"),
            " (",
            M("M_{ij}=0"),
            " for ",
            M("j\\le i"),
            ", ",
            M("M_{ij}=-\\infty"),
            " for ",
            M("j>i"),
            "), ",
            M("A = \\operatorname{softmax}\\left(\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}} + M\\right)"),
            ". Weights above the diagonal are exactly 0 (assuming ",
            M("j>i"),
            "):",
        ],
    )
    b.prove(
        Derivation(A[i, j], title="6.6 masked weights vanish", defs={A: s.weights}).step(
            sympy.Integer(0), by="softmax_mask_apply_of_gt"
        ),
        assuming=[sympy.StrictGreaterThan(j, i)],
    )
    b.say(["剩下的权重之和仍为 1："], ["The remaining weights still sum to 1:"])
    b.prove(
        Derivation(
            sympy.Sum(A[i, j], (j, 1, i)), title="6.6 masked rows sum to 1", defs={A: s.weights}
        ).step(sympy.Integer(1), by="sum_softmax_mask_apply")
    )
    b.say(
        ["于是 ", M("z_i"), " 只用到 ", M("v_1,\\ldots,v_i"), "：后面的词元影响不到前面的输出。"],
        [
            "So ",
            M("z_i"),
            " uses only ",
            M("v_1,\\ldots,v_i"),
            ": later tokens cannot affect earlier outputs.",
        ],
    )
    b.prove(
        Derivation(Z.row(i), title="6.6 causal dependence", defs={Z: A @ V, A: s.weights})
        .step((A @ V).row(i), by="def")
        .step(MatSum(Scale(A[i, j], V.row(j)), j, 1, i), by="softmax_mask_mul_row")
    )


# ---- cost ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    """Scalar operations of one node (its children not included)."""

    mul_adds: sympy.Expr = sympy.Integer(0)
    exps: sympy.Expr = sympy.Integer(0)
    divisions: sympy.Expr = sympy.Integer(0)


def node_cost(e: MatExpr) -> Cost:
    """Operations of the top node of `e`, read off its shape (children excluded).

    >>> node_cost(single_head().scores).mul_adds
    d_k*n**2
    """
    rows, cols = e.shape
    if isinstance(e, MatMul):
        a, c = e.args
        return Cost(mul_adds=a.rows * a.cols * c.cols)
    if isinstance(e, Scale):
        return Cost(divisions=rows * cols)
    if isinstance(e, (Softmax,)):
        return Cost(mul_adds=rows * cols, exps=rows * cols, divisions=rows * cols)
    if isinstance(e, MatAdd):
        return Cost(mul_adds=rows * cols)
    return Cost()


def total_cost(e: MatExpr) -> Cost:
    """Operations of every node of `e` (a shared sub-expression is counted where it occurs)."""
    parts = [node_cost(x) for x in walk(e) if isinstance(x, MatExpr)]
    return Cost(
        sum((p.mul_adds for p in parts), sympy.Integer(0)),
        sum((p.exps for p in parts), sympy.Integer(0)),
        sum((p.divisions for p in parts), sympy.Integer(0)),
    )


def counted_products(e: MatExpr, sizes: dict[sympy.Symbol, int]) -> int:
    """Products of two entries in all entries of `e` at explicit sizes, by expanding them."""
    rows, cols = (int(x.subs(sizes)) for x in e.shape)
    small = e.xreplace({k: sympy.Integer(v) for k, v in sizes.items()})
    total = 0
    for a in range(1, rows + 1):
        for c in range(1, cols + 1):
            entry = expand_entries(small[a, c]).doit()
            total += sum(1 for t in sympy.Add.make_args(sympy.expand(entry)) if t.is_Mul)
    return total


def _cost(b: Builder) -> None:
    s = single_head()
    mh = multi_head()
    steps: list[tuple[str, MatExpr, Cost]] = [
        ("XW_Q", s.X @ s.W_Q, node_cost(s.X @ s.W_Q)),
        ("XW_K", s.X @ s.W_K, node_cost(s.X @ s.W_K)),
        ("XW_V", s.X @ s.W_V, node_cost(s.X @ s.W_V)),
        ("QK^{\\mathsf T}", s.scores, node_cost(s.scores)),
        ("\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}", s.scaled, node_cost(s.scaled)),
        ("\\operatorname{softmax}(\\cdot)", s.weights, node_cost(s.weights)),
        ("AV", s.A @ s.V, node_cost(s.A @ s.V)),
        ("\\operatorname{Concat}(\\ldots)W_O", mh.output, node_cost(mh.output)),
    ]
    b.heading("每一步的计算量", "The cost of each step")
    b.say(
        [
            "计算量从表达式树读出：一个 ",
            M("p\\times q"),
            " 与 ",
            M("q\\times s"),
            " 的乘积要 ",
            M("pqs"),
            " 次乘加；缩放每个元素一次除法；softmax 每个元素一次指数、一次加法、一次除法。",
        ],
        [
            "The cost is read off the expression tree: a product of ",
            M("p\\times q"),
            " and ",
            M("q\\times s"),
            " takes ",
            M("pqs"),
            " multiply-adds; scaling one division per entry; "
            "softmax one exponential, one addition and one division per entry.",
        ],
    )
    rows = [
        f"{name} & {latex(c.mul_adds)} & {latex(c.exps)} & {latex(c.divisions)}"
        for name, _, c in steps
    ]
    body = " \\\\\n".join(rows) + "\n\\end{array}"
    table = {
        lang: "\\begin{array}{l|ccc}\n"
        + rf"& \text{{{words[0]}}} & \text{{{words[1]}}} & \text{{{words[2]}}}"
        + " \\\\\n\\hline\n"
        + body
        for lang, words in (("zh", ("乘加", "指数", "除法")), ("en", ("mul-add", "exp", "div")))
    }
    b.display(Text(table["zh"], table["en"]))
    whole = total_cost(s.output)
    b.say(
        [
            "单头注意力（从 ",
            M("Q, K, V"),
            " 出发）的乘加总数为 ",
            M(latex(whole.mul_adds)),
            "，对 ",
            M("n"),
            " 是平方级的。",
        ],
        [
            "Single-head attention from ",
            M("Q, K, V"),
            " takes ",
            M(latex(whole.mul_adds)),
            " multiply-adds in all: quadratic in ",
            M("n"),
            ".",
        ],
    )
    sizes = {n: 2, d_k: 3}
    counted = counted_products(s.scores, sizes)
    formula = int(node_cost(s.scores).mul_adds.subs(sizes))
    b.check(
        [
            "在 ",
            M("n=2, d_k=3"),
            " 把 ",
            M("QK^{\\mathsf T}"),
            " 的全部元素展开后数乘积，共 ",
            M(str(counted)),
            " 个，与 ",
            M("n^2d_k"),
            " 一致",
        ],
        [
            "expanding every entry of ",
            M("QK^{\\mathsf T}"),
            " at ",
            M("n=2, d_k=3"),
            " and counting the products gives ",
            M(str(counted)),
            ", as ",
            M("n^2d_k"),
            " says",
        ],
        counted == formula == 12,
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
