"""The words around a formula: conditions in words ("when", "if", "suppose", "let"), hypotheses
and the substitutions they allow (`K = V`, `k_i = v_i`), read by the resolver.

Imports the kernel, the reader's claims, scanner and ast, and the sizes in force; must not
import the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import Entry, MatExpr, MatSym, Row, Transpose, walk
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax import ast
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import MathSpan, scan
from symattn.reader.terms.size_relations import SizeContext, substitute

#: The words between a formula and a relation that is its premise only: a condition cue
#: (`$$claim$$ when $Hd_v=d$`), also at the end of a short clause of the same sentence
#: ("which holds only if", "这只在 ... 时成立").
WHEN = re.compile(
    r"^[^.。;；!?！？\n]{0,40}?(?:\bwhen|\bwhenever|\bif|\bprovided(?:\s+that)?|\bgiven"
    r"|\bas\s+long\s+as|当|若|如果|只在|只有在|只有当|仅当|仅在|只要)[\s:：,，]*$",
    re.IGNORECASE,
)
SUPPOSE = re.compile(
    r"(?:\bsuppose|\bassume|\bassuming|\bif|\bwhenever|假设|若|如果)(?:\s+that)?\s*$",
    re.IGNORECASE,
)
#: A necessary condition in words ("only if", "这只在 ... 时成立"): the relation after it is
#: named, not supposed and not assumed; it is never in force for other formulas.
ONLY = re.compile(
    r"(?:\bonly\s+(?:(?:holds?|applies|works|is\s+(?:true|valid|correct))\s+)?(?:if|when|for)|\bunless|\biff|\bexcept\s+(?:if|when)"
    r"|\b(?:we|would(?:\s+also)?)\s+need(?:\s+that)?|\bwould\s+(?:only\s+)?hold\s+if"
    r"|\b(?:would\s+)?requires?(?:\s+that)?|\bmakes\s+sense\s+only\s+(?:if|when)|只在|只有在|只有当|仅当"
    r"|仅在|当且仅当|除非|我们需要)\s*$",
    re.IGNORECASE,
)
#: A clause that opens another case of named matrices ("for matrices $A \\in ...$ and $B$",
#: 对于矩阵): a name declared there anew with another shape is that case's, not a contradiction.
GENERIC = re.compile(
    r"\b(?:for|if|when|consider)\s+(?:any\s+|all\s+|every\s+|two\s+|the\s+)?"
    r"(?:matri(?:x|ces)|vectors?)\b|对于(?:矩阵|向量)",
    re.IGNORECASE,
)


def clause_before(text: str, at: int) -> str:
    """The text from the start of the clause (after `.`, `;`, `。`, `；`, a blank line) to `at`."""
    start = max(text.rfind(x, 0, at) for x in (". ", "; ", "\u3002", "\uff1b", "\n\n"))
    return text[start + 1 : at]


#: Words that make what follows a statement about models in general ("typically $d_k = 64$",
#: "usually $h = d$", 通常): no value of the text's own worked example.
TYPICAL = re.compile(
    r"(?:\b(?:usually|typically|often|commonly|normally|generally|customarily|frequently)"
    r"|\bby\s+default|\bin\s+practice|\bin\s+most\s+\w+|\bcommon\s+choices?\s+(?:is|are)"
    r"|通常|一般|往往|常取)[\s:：,，]*$",
    re.IGNORECASE,
)

#: The same said earlier in the words since the formula before ("一般的架构满足 $h=d$", "in
#: practice one sets $d_k = 64$").
TYPICAL_CLAUSE = re.compile(
    r"\b(?:usually|typically|commonly|normally|generally|customarily|in\s+practice|by\s+default)"
    r"\b|通常|一般的?|往往",
    re.IGNORECASE,
)


REDEFINE = re.compile(
    r"(?:\blet|\bredefine|\binstead|\bset|\bnow\s+take|令|设|重新定义)\s*$", re.IGNORECASE
)
#: A sentence that opens with a condition in words ("If omitting the normalizing term, ...",
#: "Set $Q = K$ (precisely ...)"): what it supposes may not be a formula the checker can use.
SENTENCE_IF = re.compile(
    r"^(?:[-*+]\s+|\(?\w{1,3}[.)]\s+)*(?:if|suppose|assume|assuming|ignoring|omitting|set|"
    r"假设|若|如果|忽略)\b",
    re.IGNORECASE,
)
#: Words whose hypothesis reaches forward over the section (an "if" may qualify what precedes).
FORWARD = re.compile(r"(?:suppose|assume|assuming|假设)", re.IGNORECASE)
SUPPOSING = re.compile(
    r"^(?:[-*+]\s+|\(?\w{1,3}[.)]\s+)*(?:suppose|assume|assuming|假设)", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"[.!?。！？]\s|\n\s*\n")
#: Math delimiters, and HTML comments (a Markdown reader never sees them).
_DELIMS = re.compile(r"\\(?:begin|end)\{[A-Za-z*]+\}|\$|\\[()\[\]]|<!--.*?-->", re.S)


def words_before(text: str, prev: MathSpan | None, span: MathSpan) -> str:
    """The prose before the span in its paragraph (after the formula before it, if any): a
    sentence wrapped across lines keeps its words (`... unless` / `$m = n$` on the next line)."""
    if not text:
        return ""
    start = prev.end if prev is not None else 0
    para = text.rfind("\n\n", 0, span.start.offset)
    para_start = para + 2 if para >= 0 else 0
    return " ".join(_DELIMS.sub("", text[max(start, para_start) : span.start.offset]).split())


#: A sentence that leaves something out ("If omitting the scalar $1/\sqrt{d_k}$, ...",
#: "Ignoring $b$, ..."): what it omits is in its math, not a property of other names.
OMITTING = re.compile(
    r"^(?:[-*+]\s+|\(?\w{1,3}[.)]\s+)*(?:if\s+(?:we\s+)?)?"
    r"(?:omit(?:ting)?|ignor(?:e|ing)|drop(?:ping)?|neglect(?:ing)?|忽略)\b",
    re.IGNORECASE,
)
#: Where the clause that says what is omitted ends ("..., we can write", "... but including").
_CLAUSE_END = re.compile(r"[,，;；:：]|\s(?:but|then|we)\s", re.IGNORECASE)


def omitted_names(text: str, span: MathSpan) -> frozenset[str]:
    r"""The names the math of a sentence that omits something writes, before `span` (`d_k` of
    "If omitting the scalar $1/\sqrt{d_k}$ and ..."); empty when the sentence does not open
    with an omission or writes no math (what it omits is then said in words only)."""
    raw = _sentence_before(text, span)
    if not OMITTING.match(" ".join(_DELIMS.sub(" ", raw).split())):
        return frozenset()
    maths = [x for x in scan(raw, kind="md") if isinstance(x, MathSpan)]
    masked = list(raw)
    for m in maths:  # the clause ends at a comma of the words, not of the math
        masked[m.start.offset : m.end] = "x" * (m.end - m.start.offset)
    cut = _CLAUSE_END.search("".join(masked))
    end = cut.start() if cut is not None else len(raw)  # what is omitted, not the rest
    out: set[str] = set()
    for m in (m for m in maths if m.start.offset < end):
        try:
            formula = parse_formula(m.body)
        except (SymattnError, RecursionError):
            return frozenset()  # math the reader cannot parse: what it omits is not known
        for x in ast.walk(formula):
            if isinstance(x, ast.Symbol):
                out.add(x.name.lower())  # every letter, its scripts' too (`d`, `k` of `d_k`)
            elif isinstance(x, ast.Call):
                out.add(x.name.lower())
    return frozenset(out)


def under_words(
    claim: ResolvedClaim, words: str, omitted: frozenset[str] = frozenset()
) -> ResolvedClaim:
    """A claim in a sentence that opens with a condition in words: a `false` would be
    undecided (`premise`); in a sentence that supposes (suppose, assume, 假设), what does not
    typecheck with the sizes in force is a supposition the checker cannot read, not an error
    (its sizes may be the chapter's, not the text's).

    In a sentence that omits what its math writes (`omitted`), a claim that writes none of
    it and reads no definition (`(x_i + p_i)W (x_j W)^\top = ...`, a step of algebra after
    "If omitting the scalar $1/\\sqrt{d_k}$ ...") is the text's as usual: nothing left out
    is in it."""
    supposed = bool(SUPPOSING.match(words))
    if claim.status == "pending" and omitted and _apart(claim, omitted):
        return claim
    if claim.status == "pending":
        return dataclasses.replace(claim, premise=claim.premise or words, supposed=supposed)
    if claim.status == "shape_error" and supposed:
        msg = f"a supposition ('{words}') that does not typecheck here: {claim.message}"
        return dataclasses.replace(claim, status="not_understood", message=msg)
    return claim


def _apart(claim: ResolvedClaim, omitted: frozenset[str]) -> bool:
    """The claim writes none of the omitted letters or functions and reads no definition."""
    if claim.premise:
        return False
    if any(m in claim.defs for m in reached(claim)):
        return False  # a name defined by the text: what was omitted may be in its definition
    return not (_letters(claim.pairs) & omitted)


def _letters(pairs: Sequence[tuple[sympy.Basic, sympy.Basic]]) -> set[str]:
    """The letters of the claim's names and numbers (not of the sizes in their shapes), and
    its functions (`softmax`), lower-cased."""
    out: set[str] = set()
    stack: list[sympy.Basic] = [t for pair in pairs for t in pair]
    while stack:
        x = stack.pop()
        if isinstance(x, MatSym):
            out.add(_letter(x.name))
            continue
        if isinstance(x, sympy.Symbol):
            out.add(_letter(x.name))
        elif isinstance(x, MatExpr) or isinstance(x, sympy.Function):
            out.add(type(x).__name__.lower())
        stack.extend(a for a in x.args if isinstance(a, sympy.Basic))
    return out


def _letter(name: str) -> str:
    """`d` of `d_k`, `w` of `W^q` and of `\\mathbf{W}`."""
    bare = re.sub(r"\\[A-Za-z]+\{([^{}]*)\}", r"\1", name)
    return bare[:1].lower() if not bare.startswith("\\") else bare.lower()


def sentence_hypothesis(text: str, span: MathSpan) -> str:
    """The sentence a formula sits in (or ends, a display after "... as:"), when it opens
    with a condition in words: its first words, else empty."""
    sentence = " ".join(_DELIMS.sub(" ", _sentence_before(text, span)).split())
    if not SENTENCE_IF.match(sentence):
        return ""
    return sentence if len(sentence) <= 80 else sentence[:77] + "..."


def _sentence_before(text: str, span: MathSpan) -> str:
    """The text of the sentence a formula sits in, up to the formula (a display introduced by
    "... as:" ends that sentence), as written: its math delimiters kept."""
    if not text:
        return ""
    start = span.start.offset
    head = text[:start].rstrip(" \t\n$\\[")
    if head.endswith((":", "：")):
        start = len(head)
    ends = list(_SENTENCE_END.finditer(text, max(0, start - 2000), start))
    begin = ends[-1].end() if ends else max(0, start - 2000)
    return text[begin:start]


def words_between(text: str, a: MathSpan, b: MathSpan) -> str:
    return _DELIMS.sub("", text[a.end : b.start.offset]) if text else "x"


def mentions_letter(c: ast.Claim, letters: Sequence[str]) -> bool:
    """The letter, alone, anywhere but in a `\\mathbb R^{...}` (where it is a size)."""
    stack: list[ast.Node] = [*c.subjects, *(step.rhs for step in c.steps)]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Reals):
            continue
        if isinstance(x, ast.Symbol) and x.name in letters and x.sub is None:
            return True
        stack.extend(ast.children(x))
    return False


def reached(claim: ResolvedClaim) -> set[sympy.Basic]:
    """The matrices a claim mentions, and those its definitions reach."""
    seen: set[sympy.Basic] = set()
    frontier = [t for pair in claim.pairs for t in pair]
    while frontier:
        found = {x for t in frontier for x in walk(t) if isinstance(x, MatSym) and x not in seen}
        seen |= found
        frontier = [claim.defs[x] for x in found if x in claim.defs]
    return seen


def substituted_pair(lhs: sympy.Basic, rhs: sympy.Basic) -> tuple[MatSym, MatSym] | None:
    """`K = V`, `k_i = v_i` (rows, i free), `K_{ij} = V_{ij}`: the matrix K equals V."""
    a, b = _whole(lhs), _whole(rhs)
    if a is None or b is None or a[0] == b[0] or a[1] != b[1]:
        return None
    return a[0], b[0]


def equated_sizes(
    lhs: sympy.Basic, rhs: sympy.Basic, ctx: SizeContext
) -> dict[sympy.Symbol, sympy.Expr] | None:
    """What a supposed `k_i = v_i` (or `K = V`) says of the sizes: the two sides have one
    shape, so `d_v = d_k`. `{}` when the shapes agree already; None when they differ in a way
    no new relation between two single sizes mends (`n` against `d_k + 1`, or a size already
    given a value or a relation), so the supposition is left as it was written.

    >>> from symattn.kernel.dims import d_k, d_v, n
    >>> from symattn.reader.terms.size_relations import close_sizes
    >>> k, v = MatSym("K", n, d_k), MatSym("V", n, d_v)
    >>> equated_sizes(Row(k, sympy.Symbol("i")), Row(v, sympy.Symbol("i")), close_sizes({}, {}))
    {d_v: d_k}
    """
    if not isinstance(lhs, MatExpr) or not isinstance(rhs, MatExpr):
        return None
    out: dict[sympy.Symbol, sympy.Expr] = {}
    for a, b in zip(lhs.shape, rhs.shape, strict=True):
        rel = {**ctx.relations, **out}
        x = substitute(sympy.sympify(a, strict=True), ctx.bindings, rel)
        y = substitute(sympy.sympify(b, strict=True), ctx.bindings, rel)
        if sympy.cancel(x - y) == 0:
            continue
        free = [z for z in (y, x) if isinstance(z, sympy.Symbol) and z not in rel]
        if not free or ctx.bindings.keys() & set(free):
            return None
        other = x if free[0] == y else y
        out[free[0]] = other
    return out


def _whole(x: sympy.Basic) -> tuple[MatSym, tuple[sympy.Basic, ...]] | None:
    if isinstance(x, MatSym):
        return x, ()
    if isinstance(x, Transpose) and isinstance(x.args[0], Row):
        x = x.args[0]
    if isinstance(x, Row | Entry) and isinstance(x.args[0], MatSym):
        idx = tuple(x.args[1:])
        if all(isinstance(i, sympy.Symbol) for i in idx) and len(set(idx)) == len(idx):
            return x.args[0], idx
    return None


__all__ = [
    "WHEN",
    "ONLY",
    "SUPPOSE",
    "REDEFINE",
    "SENTENCE_IF",
    "FORWARD",
    "SUPPOSING",
    "words_before",
    "under_words",
    "sentence_hypothesis",
    "words_between",
    "mentions_letter",
    "reached",
    "substituted_pair",
    "equated_sizes",
]
