"""How a text states a wild claim: the document for `symattn check`, the argv for `prove`.

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

from symattn.soundness.wild.latex import GREEK, formula
from symattn.soundness.wild.nodes import (
    FamVec,
    MaskedAttn,
    Mat,
    State,
    Var,
    Vec,
    WildClaim,
    WildSpec,
    walk,
)

# ---- how the texts state them -----------------------------------------------------------------

#: how the prose defines each mask of `MaskedAttn` by cases (`truth.MASK_KEEPS` is its meaning)
MASK_CASES = {
    "causal": "$M_{ij}=0$ if $j\\le i$ and $M_{ij}=-\\infty$ otherwise",
    "causal_gt": "$M_{ij}=-\\infty$ if $j>i$, and $M_{ij}=0$ otherwise",
    "anti": "$M_{ij}=0$ for $j\\ge i$ and $M_{ij}=-\\infty$ for $j<i$",
    "window": "$M_{ij}=0$ if $i-2<j\\le i$ and $M_{ij}=-\\infty$ otherwise",
    "strict": "$M_{ij}=0$ if $j<i$ and $M_{ij}=-\\infty$ otherwise",
}

SIZE_TEX = {"n": "n", "m": "m", "d": "d", "d_k": "d_k", "d_v": "d_v"}


def _declarations(spec: WildSpec) -> list[str]:
    found: dict[str, str] = {}
    for side in (spec.lhs, spec.rhs):
        for x in walk(side):
            if isinstance(x, Vec):
                found[x.name] = f"${x.name}\\in\\mathbb R^{{{x.size}}}$"
            elif isinstance(x, Mat):
                found[x.name] = f"${x.name}\\in\\mathbb R^{{{x.rows}\\times {x.cols}}}$"
            elif isinstance(x, FamVec):
                found[x.name] = f"${x.name}_t\\in\\mathbb R^{{{x.size}}}$"
            elif isinstance(x, State):
                found["S"] = "$S_t\\in\\mathbb R^{d_v\\times d_k}$"
            elif isinstance(x, Var):
                found[x.name] = f"${GREEK.get(x.name, x.name)}\\in\\mathbb R$"
    return list(found.values())


def _uses(spec: WildSpec, kind: type) -> bool:
    return any(isinstance(x, kind) for side in (spec.lhs, spec.rhs) for x in walk(side))


def document(c: WildClaim) -> tuple[str, int]:
    """A Markdown document with the claim, and the claim's line; declarations only when the
    claim's class is not about inference (or for the declaring variant)."""
    lines = ["# A claim as texts write it", ""]
    columns = _uses(c.spec, (Vec, FamVec, State))  # type: ignore[arg-type]
    if columns:
        lines += ["Every vector is a column vector.", ""]
    if c.declare:
        decls = _declarations(c.spec)
        if decls:
            lines += ["We use " + ", ".join(decls) + ".", ""]
    masks = {
        x.kind for side in (c.spec.lhs, c.spec.rhs) for x in walk(side) if isinstance(x, MaskedAttn)
    }
    for kind in sorted(masks):
        lines += [
            "Let $S, M \\in \\mathbb R^{n\\times n}$, with " + MASK_CASES[kind] + ", and let "
            "$A=\\operatorname{softmax}(S+M)$.",
            "",
        ]
    if _uses(c.spec, State):
        lines += ["Let $S_0=0$ and $S_t=S_{t-1}+v_tk_t^\\top$ for $t\\ge 1$.", ""]
    lines += ["Then", "", f"$${formula(c.spec)}$$"]
    line = len(lines)
    lines.append("")
    return "\n".join(lines), line


class NotStated(Exception):
    """`symattn prove` has no way to state this claim (it needs the document's definitions)."""


def prove_argv(c: WildClaim) -> list[str]:
    if _uses(c.spec, State):
        raise NotStated("the state S_t is defined in the document's prose")
    if _uses(c.spec, MaskedAttn):
        raise NotStated("the mask M is defined by cases in the document's prose")
    argv = ["prove", formula(c.spec), "--format", "json"]
    if c.declare:
        dims = []
        for side in (c.spec.lhs, c.spec.rhs):
            for x in walk(side):
                if isinstance(x, Vec):
                    dims.append(f"{x.name}: {x.size} x 1")
                elif isinstance(x, Mat):
                    dims.append(f"{x.name}: {x.rows} x {x.cols}")
        if dims:
            argv += ["--dims", "; ".join(dict.fromkeys(dims))]
    if _uses(c.spec, Vec):
        argv += ["--conventions", "vectors=column"]
    return argv
