"""The differential suite's report: its outcome categories counted per front end and context.

Imports only the suite's own judging; nothing in symattn but the soundness package imports it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from symattn.soundness.judging import Item

CATEGORIES = (
    "false_accepted",
    "crash",
    "alarm",
    "true_rejected",
    "checked_false_elsewhere",
    "unknown",
    "true_not_accepted",
    "not_understood",
    "rejected",
    "accepted",
    "not_expressible",
)


def table(items: Sequence[Item]) -> dict[str, dict[str, Counter[str]]]:
    out: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for it in items:
        out[it.front_end][it.context][it.category] += 1
    return out


def text_table(items: Sequence[Item]) -> str:
    cols = CATEGORIES
    short = (
        "FALSE-ACC",
        "CRASH",
        "ALARM",
        "TRUE-REJ",
        "chk-weak",
        "unknown",
        "true-n/a",
        "not-und",
        "rejected",
        "accepted",
        "n/expr",
    )
    lines = [f"{'front end/context':22}" + "".join(f"{s:>10}" for s in short)]
    t = table(items)
    for fe in sorted(t):
        for ctx in sorted(t[fe]):
            row = t[fe][ctx]
            lines.append(f"{fe + '/' + ctx:22}" + "".join(f"{row.get(c, 0):>10}" for c in cols))
    tot: Counter[str] = Counter(it.category for it in items)
    lines.append(f"{'total':22}" + "".join(f"{tot.get(c, 0):>10}" for c in cols))
    return "\n".join(lines)


def summary(items: Sequence[Item], claims: int, seconds: float) -> dict[str, Any]:
    cats = Counter(it.category for it in items)
    truths = Counter(it.truth for it in items)
    return {
        "claims": claims,
        "items": len(items),
        "seconds": round(seconds, 1),
        "categories": dict(sorted(cats.items())),
        "truths": dict(sorted(truths.items())),
        "table": {fe: {c: dict(v) for c, v in row.items()} for fe, row in table(items).items()},
    }
