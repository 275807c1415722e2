"""Claims that rest on a conventional shape the text never gave nor used: which names those are.
Imports the reader's claims and scope; never the resolver, check or CLI."""

from __future__ import annotations

import dataclasses
import re

from symattn.kernel.dims import shape_str
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope, same_shape

__all__ = ["blamed", "blamed_range", "with_guesses"]

#: the arguments of attention keep their conventional shapes (`reader.claims.conventional`)
_ATTENTION = frozenset({"Q", "K", "V"})


def _written(name: str, source: str) -> bool:
    """The claim writes the name, or its rows (`o_t` for O): `W_O` also as `W_{O}`, `W^O`."""
    letter, _, label = name.partition("_")
    pat = rf"(?<![A-Za-z\\]){letter}(?![A-Za-z])"
    if label:
        pat += rf"[}}\s]*[_^]\{{?\s*{label}"
    elif letter.isupper():
        pat = rf"(?<![A-Za-z\\])[{letter}{letter.lower()}](?![A-Za-z])"
    return re.search(pat, source) is not None


def _departs(scope: Scope) -> bool:
    """The text declares names with shapes of its own (`Scope.departures`), or a family of
    its own under a conventional letter (`S_t` of d_v x d_k, where the chapter's S is n x n)."""
    if scope.departures():
        return True
    conv = scope.layers[0].names
    for layer in scope.layers:
        for letter, member in layer.members.items():
            base = conv.get(letter)
            if base is not None and not same_shape(member.shape, base.shape):
                return True
    return False


def with_guesses(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """`claim`, naming the chapter's conventional names it read (`o_t` as row t of O, n x d)
    that the text neither declares nor uses in a formula that typechecks with that shape: a
    shape error the kernel finds among them is then the convention's, not the text's."""
    if claim.status != "pending":
        return claim
    conv = scope.layers[0].names
    own = {k for layer in scope.layers[1:] for k in (*layer.names, *layer.families)}
    own |= {k for layer in scope.layers for k in layer.members}  # `S_t`'s family: the text's
    guessed = sorted(
        k
        for k in scope.conventional_reads
        if k in conv
        and k not in own
        and k not in scope.confirmed
        and k not in _ATTENTION
        and _written(k, claim.source)
    )
    got: tuple[tuple[str, str], ...] = ()
    every = tuple((k, shape_str(conv[k].shape)) for k in guessed)
    if every:
        # an index that ranges by one of them and does not fit another's use (`A_{id} =
        # \sum_j s_{ij} v_{jd}`: d over the n columns of the chapter's A): the text's use shows
        # another shape, and the convention gives way whatever the text declares elsewhere
        claim = dataclasses.replace(claim, ranged=every)
    if _departs(scope):
        got = tuple((k, shape_str(conv[k].shape)) for k in guessed)
    elif not scope.conforms():
        # a text that declares none of the chapter's names shares its letters: the shapes
        # texts vary on (`Scope.VARIES`) are a guess there
        got = tuple((k, shape_str(conv[k].shape)) for k in guessed if k in scope.VARIES)
    return dataclasses.replace(claim, guessed=got) if got else claim


#: a kernel range error: `row j of K: index j runs over 1..n but K has L rows`
_RANGE = re.compile(r"index \S+ runs over (?P<ends>.+?) but .+? has (?P<size>.+?) (?:rows|cols)")
_SIZE = re.compile(r"[A-Za-z][A-Za-z0-9_{}]*")


def blamed_range(guessed: tuple[tuple[str, str], ...], message: str) -> str:
    """Those of the `guessed` names whose shape gave the range of an index that does not fit
    (`index d runs over 1..n but V has d_v cols`, n of the chapter's A), as `blamed` names them.

    >>> blamed_range((("A", "n × n"),), "V_{j,d}: index d runs over 1..n but V has d_v cols")
    'A (n × n)'
    """
    got = _RANGE.search(message)
    if got is None:
        return ""
    sizes = set(_SIZE.findall(got["ends"])) - set(_SIZE.findall(got["size"]))
    return ", ".join(f"{k} ({shape})" for k, shape in guessed if sizes & set(_SIZE.findall(shape)))


def blamed(guessed: tuple[tuple[str, str], ...], message: str) -> str:
    """Those of the `guessed` names (name, conventional shape) that a shape error's message
    speaks of (`o_t^T is d x 1` speaks of O), as the verdict names them; '' if none. An index
    whose range one name's shape gave and another's does not fit (`s_{ij} = q_ik_j^T`: j over
    the chapter's n of S, and K has L rows) also speaks of the name whose shape has that size."""
    sizes: set[str] = set()
    got = _RANGE.search(message)
    if got is not None:
        sizes = set(_SIZE.findall(got["ends"])) - set(_SIZE.findall(got["size"]))
    return ", ".join(
        f"{k} ({shape})"
        for k, shape in guessed
        if _written(k, message) or sizes & set(_SIZE.findall(shape))
    )
