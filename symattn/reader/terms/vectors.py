"""Vectors a formula knows by their components: `q \\cdot k = \\sum_i q_i k_i`, `\\|x\\|^2 = \\sum_i
x_i^2`, `softmax(x)_i`; the cues that make `x_i` component i of x, and what fixes x's length.

Imports the reader's AST only; never the scope, the translator, the inference (which calls
this), the claim readers, the checker or the CLI.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from symattn.reader.syntax import ast

__all__ = ["component_letters", "length_constraints"]

_BOLD = ("mathbf", "boldsymbol", "bm")


def _key(node: ast.Symbol) -> str:
    return f"\\{node.font}{{{node.name}}}" if node.font in _BOLD else node.name


def _letter(node: ast.Node) -> bool:
    """One lower-case latin letter, plain or bold, with nothing below it (`q`, `\\mathbf x`)."""
    return (
        isinstance(node, ast.Symbol)
        and node.sub is None
        and len(node.name) == 1
        and node.name.isascii()
        and node.name.islower()
        and node.font in (None, *_BOLD)
    )


def _index(sub: ast.Node | None) -> str | None:
    """The letter (or digit) of a single index `_i`, `_j`, `_1`; None for `_{ij}`, `_t-1`."""
    if isinstance(sub, ast.Symbol) and sub.sub is None and sub.font is None:
        return sub.name if len(sub.name) == 1 and sub.name.islower() else None
    if isinstance(sub, ast.Number) and sub.text.isdigit() and len(sub.text) == 1:
        return sub.text
    return None


def _walk(node: ast.Node) -> Iterator[ast.Node]:
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(ast.children(x))


def _sides(c: ast.Claim) -> list[ast.Node]:
    return [*c.subjects, *(s.rhs for s in c.steps)]


def _components(nodes: Iterable[ast.Node]) -> dict[str, set[str]]:
    """The plain letters written with one index (`q_i`, `x_1`): letter -> index letters. A bold
    letter with an index (`\\mathbf k_i`) is a member of a family of vectors, never a component."""
    out: dict[str, set[str]] = {}
    for node in nodes:
        for x in _walk(node):
            if not isinstance(x, ast.Symbol) or x.sub is None or x.font is not None:
                continue
            bare = ast.Symbol(x.name, None, start=x.start, end=x.start + 1)
            letter = _index(x.sub)
            if letter is None or not _letter(bare):
                continue
            out.setdefault(x.name, set()).add(letter)
    return out


def _vector_uses(nodes: Iterable[ast.Node]) -> tuple[set[str], set[str]]:
    """The bare letters used where only a vector fits (`x^\\top`, `\\|x\\|`, `\\langle q, k
    \\rangle`, `q \\cdot k`), and those given to a softmax taken at one index (`softmax(x)_i`:
    a vector by that use alone)."""
    placed: set[str] = set()
    softmaxed: set[str] = set()
    for node in nodes:
        for x in _walk(node):
            found: list[ast.Node] = []
            if isinstance(x, ast.Transpose | ast.Norm):
                found = [x.operand]
            elif isinstance(x, ast.Inner):
                found = [x.left, x.right]
            elif isinstance(x, ast.Mul):
                for k, op in enumerate(x.ops):
                    pair = [x.factors[k], x.factors[k + 1]]
                    if op == "cdot" and all(_letter(f) for f in pair):
                        found += pair
            elif isinstance(x, ast.IndexedGroup) and _index(x.index) is not None:
                inner = x.group.items[0] if len(x.group.items) == 1 else None
                if isinstance(inner, ast.Call) and inner.name.lower() == "softmax":
                    if len(inner.args) == 1 and _letter(inner.args[0]):
                        softmaxed.add(_key(inner.args[0]))  # type: ignore[arg-type]
            placed |= {_key(f) for f in found if isinstance(f, ast.Symbol) and _letter(f)}
    return placed, softmaxed


def _summed(nodes: Iterable[ast.Node]) -> set[str]:
    """The letters whose components a sum runs over (`\\sum_i q_i k_i`: q and k); `h_t` outside
    a sum over t may be the t-th vector of a family, and is no cue."""
    out: set[str] = set()
    for node in nodes:
        for x in _walk(node):
            if isinstance(x, ast.Sum) and x.var is not None:
                out |= {k for k, seen in _components([x.body]).items() if x.var.name in seen}
    return out


def _sum_letters(nodes: Iterable[ast.Node]) -> set[str]:
    return {
        x.var.name
        for node in nodes
        for x in _walk(node)
        if isinstance(x, ast.Sum) and x.var is not None
    }


def component_letters(claims: list[ast.Claim], taken: set[str]) -> set[str]:
    """The letters of one formula that are vectors known by their components: used bare where
    only a vector fits and written with one index in a sum over that index in the same formula
    (`q \\cdot k = \\sum_i q_i k_i`), or given to a softmax taken at an index (`\\sum_i
    softmax(x)_i = 1`). Letters in `taken` (sizes, names the text declares or defines) and
    summation letters are never components.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> claims = list(parse_formula(r"q \\cdot k = \\sum_{i=1}^{d_k} q_i k_i").items)
    >>> sorted(component_letters(claims, set()))
    ['k', 'q']
    >>> component_letters(list(parse_formula(r"z = \\sum_j a_j v_j").items), set())
    set()
    """
    nodes = [n for c in claims for n in _sides(c)]
    placed, softmaxed = _vector_uses(nodes)
    placed |= {x for pair in _pairs(nodes, sums=False) for x in pair}
    indexed = _summed(nodes)
    sums = _sum_letters(nodes) | _sizes(nodes)
    out = {x for x in placed if _plain(x) in indexed} | softmaxed
    out = {x for x in out if x not in taken and _plain(x) not in taken and _plain(x) not in sums}
    for a, b in _pairs(nodes):  # `q \cdot k` with q a vector: k is one too
        for one, other in ((a, b), (b, a)):
            if one in out and other not in taken and _plain(other) not in taken | sums:
                out.add(other)
    return out


def _pairs(nodes: Iterable[ast.Node], sums: bool = True) -> list[tuple[str, str]]:
    """Bare letters that must be vectors of one length if one of them is a vector: the two
    sides of `q \\cdot k`, `\\langle q, k\\rangle`, `q^\\top k`, and (with `sums`) the
    terms of `x + y`."""
    out: list[tuple[str, str]] = []
    for node in nodes:
        for x in _walk(node):
            chains: list[list[ast.Node]] = []
            if isinstance(x, ast.Inner):
                chains = [[x.left, x.right]]
            elif isinstance(x, ast.Mul):
                chains = [
                    [x.factors[k], x.factors[k + 1]] for k, op in enumerate(x.ops) if op == "cdot"
                ]
            elif isinstance(x, ast.Add) and sums:
                chains = [list(x.terms)]
            elif isinstance(x, ast.Product):
                for a, b in zip(x.factors, x.factors[1:], strict=False):
                    if isinstance(a, ast.Transpose) and _letter(a.operand) and _letter(b):
                        chains.append([a.operand, b])  # `q^\top k`
            for chain in chains:
                keys = [_key(f) for f in chain if isinstance(f, ast.Symbol) and _letter(f)]
                if len(keys) == len(chain):
                    out += list(zip(keys, keys[1:], strict=False))
    return out


def _sizes(nodes: Iterable[ast.Node]) -> set[str]:
    """Letters written alone where a size goes: a sum's bounds, a shape, under a root."""
    out: set[str] = set()
    for node in nodes:
        for x in _walk(node):
            places: list[ast.Node | None] = []
            if isinstance(x, ast.Sum):
                places = [x.lower, x.upper]
            elif isinstance(x, ast.Reals):
                places = list(x.shape)
            elif isinstance(x, ast.Sqrt):
                places = [x.radicand]
            out |= {p.name for p in places if isinstance(p, ast.Symbol) and p.sub is None}
    return out


def _plain(key: str) -> str:
    return key[-2] if key.endswith("}") else key


def length_constraints(
    claims: list[ast.Claim], letters: set[str]
) -> tuple[list[tuple[str, str]], list[tuple[str, ast.Node]]]:
    """What one formula says of its component vectors' lengths: pairs of letters of one length
    (`q \\cdot k`, `\\langle q, k\\rangle`, `x + y`), and a letter with the upper bound of a sum
    from 1 over its components (`\\sum_{i=1}^{d_k} q_i k_i`: q has d_k components)."""
    nodes = [n for c in claims for n in _sides(c)]
    same = [(a, b) for a, b in _pairs(nodes) if a in letters and b in letters]
    bounds: list[tuple[str, ast.Node]] = []
    for node in nodes:
        for x in _walk(node):
            if isinstance(x, ast.Sum) and x.var is not None and x.upper is not None:
                if x.lower is None or (isinstance(x.lower, ast.Number) and x.lower.text == "1"):
                    for name, seen in _components([x.body]).items():
                        for key in letters:
                            if _plain(key) == name and x.var.name in seen:
                                bounds.append((key, x.upper))
                    for key in _softmaxed_at(x.body, x.var.name):
                        if key in letters:
                            bounds.append((key, x.upper))  # `\sum_{i=1}^{n} softmax(x)_i`
    return same, bounds


def _softmaxed_at(node: ast.Node, var: str) -> set[str]:
    """The letters x of `softmax(x)_var` in `node`."""
    out: set[str] = set()
    for x in _walk(node):
        if isinstance(x, ast.IndexedGroup) and _index(x.index) == var:
            inner = x.group.items[0] if len(x.group.items) == 1 else None
            if isinstance(inner, ast.Call) and inner.name.lower() == "softmax":
                if len(inner.args) == 1 and _letter(inner.args[0]):
                    out.add(_key(inner.args[0]))  # type: ignore[arg-type]
    return out
