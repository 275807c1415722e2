"""The KV cache: the newest token from cached keys and values; earlier rows unchanged.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec74.py`.
"""

from __future__ import annotations

import sympy

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import d_k, d_v, n
from symattn.kernel.expr import (
    CausalMask,
    MatExpr,
    MatSym,
    Row,
    Softmax,
)
from symattn.kernel.modern import (
    FirstRows,
)
from symattn.latex.document import Math as M


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.4, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.4", Text("KV 缓存", "The KV cache"), on_check)
    _kv_cache(b)
    return b.section()


def _kv_cache(b: Builder) -> None:
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    b.say(
        ["解码第 ", M("n"), " 个词元时，用它的查询和缓存的全部键、值即可："],
        ["Decoding token ", M("n"), " needs only its query and every cached key and value:"],
    )
    scores = q @ k.T / sympy.sqrt(d_k)
    b.prove(
        Derivation(
            Row(Softmax(CausalMask(scores)) @ v, n), title="7.4 the newest token from the cache"
        )
        .step(Softmax(Row(scores, n)) @ v, by="softmax_mask_mul_row_last")
        .step(Softmax(Row(q, n) @ k.T / sympy.sqrt(d_k)) @ v, by="algebra")
    )
    q1, k1, v1 = MatSym("Q", n + 1, d_k), MatSym("K", n + 1, d_k), MatSym("V", n + 1, d_v)
    s1 = q1 @ k1.T / sympy.sqrt(d_k)
    first = [FirstRows(x, n) for x in (q1, k1, v1)]
    b.say(
        ["追加第 ", M("n+1"), " 个词元不改变前 ", M("n"), " 行："],
        ["Appending token ", M("n+1"), " leaves rows ", M(r"1, \ldots, n"), " unchanged:"],
    )
    b.prove(
        Derivation(FirstRows(Softmax(CausalMask(s1)) @ v1, n), title="7.4 appending a token")
        .step(
            Softmax(CausalMask(FirstRows(FirstRows(s1, n).T, n).T)) @ first[2],
            by="softmax_mask_mul_first_rows",
        )
        .step(_causal(*first), by="algebra")
    )


def _causal(q: MatExpr, k: MatExpr, v: MatExpr) -> MatExpr:
    return Softmax(CausalMask(q @ k.T / sympy.sqrt(d_k))) @ v


if __name__ == "__main__":
    raise SystemExit(main(content))
