"""The recurrences of modern attention over a symbolic count, true and with their classic bugs:
FlashAttention's forward, FlashDecoding's split-KV merge, linear attention, the KV cache.

Imports only sympy and the kernel below it (dims, expr, modern, induction); must not import
anything above the kernel. Tests, the soundness seeds and the benchmarks read `recurrences()`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

import sympy

from symattn.kernel.dims import d_k, d_v, dim, n
from symattn.kernel.expr import CausalMask, Entry, MatSym, Ones, Softmax, index
from symattn.kernel.induction import (
    Operands,
    Recurrence,
    Segment,
    State,
    known,
    prefix_max,
    prefix_sum,
)
from symattn.kernel.modern import CausalZero, FeatureMap

D = dim("D")
i, c, a = (index(s) for s in "ica")
_NEG = -sympy.oo


@dataclass(frozen=True)
class Case:
    """A recurrence with what prove_recurrence must say of it ("proved" or "false")."""

    name: str
    recurrence: Recurrence
    holds: bool
    note: str
    output_right: bool = False  # a bug of the state only: the output is still the target

    @property
    def output_holds(self) -> bool:
        """Whether `Recurrent(...) = target` (the output alone) is true."""
        return self.holds or self.output_right


# ---- FlashAttention forward: running maximum, normaliser, rescaled output ----------------


def _out_shape(rows: str):
    """The output's shape: the rows of operand `rows`, the columns of V."""
    return lambda ops: (ops[rows].rows, ops["V"].cols)


def _scores(keys: sympy.Expr) -> Operands:
    """Causal self-attention: as many queries as keys."""
    return {"S": MatSym("S", keys, keys), "V": MatSym("V", keys, d_v)}


def _flash(
    kept: Callable[[sympy.Expr], sympy.Basic] = lambda k: sympy.Le(k, i),
    rescale: bool = True,
    update_max: bool = True,
    rescale_norm: bool = True,
    m0: sympy.Expr = _NEG,
) -> Recurrence:
    """Key block t with running maximum m, `ℓ_t = e^{m_{t-1}-m_t} ℓ_{t-1} + Σ_{j∈t} e^{S_ij-m_t}`
    and `o_t = e^{m_{t-1}-m_t} o_{t-1} + Σ_{j∈t} e^{S_ij-m_t} V_j`, causal: key j kept for
    `kept(j)`; from m_0 = -inf, ℓ_0 = o_0 = 0; the claim `o_B / ℓ_B = softmax(S)V` row i."""

    def masked(ops: Operands, k: sympy.Expr) -> sympy.Expr:
        return sympy.Piecewise((Entry(ops["S"], i, k), kept(k)), (_NEG, True))

    def weight(ops: Operands, k: sympy.Expr, m: sympy.Expr) -> sympy.Expr:
        return sympy.Piecewise((sympy.exp(Entry(ops["S"], i, k) - m), kept(k)), (0, True))

    def step(ops: Operands, state: State, seg: Segment) -> State:
        m, ell, o = state
        block_max = seg.max(lambda k: masked(ops, k))
        new = sympy.Max(m, block_max, evaluate=False) if (update_max or m == _NEG) else m
        alpha = sympy.exp(m - new)
        ell = (alpha if rescale_norm else 1) * ell + seg.sum(lambda k: weight(ops, k, new))
        o = (alpha if rescale else 1) * o + seg.sum(
            lambda k: weight(ops, k, new) * Entry(ops["V"], k, c)
        )
        return (new, ell, o)

    def invariant(ops: Operands, hi: sympy.Expr) -> State:
        m = prefix_max(
            lambda k: sympy.Piecewise((Entry(ops["S"], i, k), sympy.Le(k, i)), (_NEG, True)), hi
        )
        w = lambda k: sympy.Piecewise(  # noqa: E731
            (sympy.exp(Entry(ops["S"], i, k) - m), sympy.Le(k, i)), (0, True)
        )
        return (m, prefix_sum(w, hi), prefix_sum(lambda k: w(k) * Entry(ops["V"], k, c), hi))

    def claim(ops: Operands, state: State, hi: sympy.Expr) -> tuple[sympy.Basic, sympy.Basic]:
        _, ell, o = state
        return o / ell, Entry(Softmax(CausalMask(ops["S"])) @ ops["V"], i, c)

    return Recurrence(
        "flash_forward",
        ("m", "ℓ", "o"),
        (m0, sympy.Integer(0), sympy.Integer(0)),
        step,
        invariant,
        claim,
        _scores,
        note="FlashAttention forward over B causal key blocks of symbolic sizes",
        shape=_out_shape("S"),
        target=lambda ops: Softmax(CausalMask(ops["S"])) @ ops["V"],
    )


@cache
def flash_forward() -> Recurrence:
    """FlashAttention's forward pass over B key blocks, causal (fully masked blocks included).

    >>> flash_forward().components
    ('m', 'ℓ', 'o')
    """
    return known(_flash())


# ---- FlashDecoding: merging the partial results of key splits ----------------------------


def _split_ops(keys: sympy.Expr) -> Operands:
    return {"S": MatSym("S", n, keys), "V": MatSym("V", keys, d_v)}


def _partial(ops: Operands, seg_max, seg_sum) -> State:
    """(m_s, ℓ_s, O_s) of one key range: its maximum, normaliser and normalised output."""
    m = seg_max(lambda k: Entry(ops["S"], i, k))
    ell = seg_sum(lambda k: sympy.exp(Entry(ops["S"], i, k) - m))
    num = seg_sum(lambda k: sympy.exp(Entry(ops["S"], i, k) - m) * Entry(ops["V"], k, c))
    return (m, ell, num / ell)


def _split(rescale: bool = True, weighted: bool = True) -> Recurrence:
    def step(ops: Operands, state: State, seg: Segment) -> State:
        m, ell, out = state
        ms, ls, os_ = _partial(ops, seg.max, seg.sum)
        new = sympy.Max(m, ms, evaluate=False)
        a, b = (sympy.exp(m - new), sympy.exp(ms - new)) if rescale else (1, 1)
        total = a * ell + b * ls
        if not weighted:  # the partial outputs averaged by their rescale factors only
            return (new, total, (a * out + b * os_) / (a + b))
        return (new, total, (a * ell * out + b * ls * os_) / total)

    def invariant(ops: Operands, hi: sympy.Expr) -> State:
        return _partial(ops, lambda f: prefix_max(f, hi), lambda f: prefix_sum(f, hi))

    def claim(ops: Operands, state: State, hi: sympy.Expr) -> tuple[sympy.Basic, sympy.Basic]:
        return state[2], Entry(Softmax(ops["S"]) @ ops["V"], i, c)

    return Recurrence(
        "split_kv_merge",
        ("m", "ℓ", "O"),
        (_NEG, sympy.Integer(0), sympy.Integer(0)),
        step,
        invariant,
        claim,
        _split_ops,
        note="FlashDecoding: partial (m, ℓ, O) of B key splits merged one by one",
        shape=_out_shape("S"),
        target=lambda ops: Softmax(ops["S"]) @ ops["V"],
    )


@cache
def split_kv_merge() -> Recurrence:
    """FlashDecoding's combine: the partials of B key splits merge into softmax(S)V."""
    return known(_split())


# ---- linear attention: the recurrent state ------------------------------------------------


def _linear_ops(keys: sympy.Expr) -> Operands:
    q, k, v = MatSym("Q", keys, d_k), MatSym("K", keys, d_k), MatSym("V", keys, d_v)
    return {"fq": FeatureMap("phi", q, D), "fk": FeatureMap("phi", k, D), "V": v}


def _linear(normalised: bool, accumulate: bool = True, accumulate_z: bool = True) -> Recurrence:
    def step(ops: Operands, state: State, seg: Segment) -> State:
        s, z = state
        kv = seg.sum(lambda k: Entry(ops["fk"], k, a) * Entry(ops["V"], k, c))
        kk = seg.sum(lambda k: Entry(ops["fk"], k, a))
        keep_z = accumulate and accumulate_z
        return ((s if accumulate else 0) + kv, (z if keep_z else 0) + kk)

    def invariant(ops: Operands, hi: sympy.Expr) -> State:
        return (
            prefix_sum(lambda k: Entry(ops["fk"], k, a) * Entry(ops["V"], k, c), hi),
            prefix_sum(lambda k: Entry(ops["fk"], k, a), hi),
        )

    def claim(ops: Operands, state: State, t: sympy.Expr) -> tuple[sympy.Basic, sympy.Basic]:
        s, z = state
        b = sympy.Dummy("a", integer=True, positive=True)
        fq, fk, v = ops["fq"], ops["fk"], ops["V"]
        num = sympy.Sum(Entry(fq, t, b) * s.xreplace({a: b}), (b, 1, fq.cols))
        parallel = Entry(CausalZero(fq @ fk.T) @ v, t, c)
        if not normalised:
            return num, parallel
        den = sympy.Sum(Entry(fq, t, b) * z.xreplace({a: b}), (b, 1, fq.cols))
        ones = Ones(fk.rows, sympy.Integer(1))
        return num / den, parallel / Entry(CausalZero(fq @ fk.T) @ ones, t, sympy.Integer(1))

    what = "with the normaliser z_t = z_{t-1} + φ(k_t)^T" if normalised else "the state"
    return Recurrence(
        "linear_normalised" if normalised else "linear_state",
        ("S", "z"),
        (sympy.Integer(0), sympy.Integer(0)),
        step,
        invariant,
        claim,
        _linear_ops,
        tokens=True,
        at="every",
        note=f"linear attention: S_t = S_(t-1) + φ(k_t)^T v_t, {what}, = row t of the "
        "causal parallel form",
        scores=(),
        shape=_out_shape("fq"),
        target=None if normalised else lambda ops: CausalZero(ops["fq"] @ ops["fk"].T) @ ops["V"],
    )


@cache
def linear_state() -> Recurrence:
    """Linear attention's state `S_t = S_{t-1} + φ(k_t)^T v_t`: φ(q_t)S_t is row t of
    `(φ(Q)φ(K)^T ⊙ L)V`, for every t."""
    return known(_linear(normalised=False))


@cache
def linear_normalised() -> Recurrence:
    """The same with the normaliser `z_t = z_{t-1} + φ(k_t)^T`: `φ(q_t)S_t / φ(q_t)z_t`."""
    return known(_linear(normalised=True))


# ---- the KV cache ---------------------------------------------------------------------------


def _kv_ops(keys: sympy.Expr) -> Operands:
    q, k = MatSym("Q", keys, d_k), MatSym("K", keys, d_k)
    return {"Q": q, "K": k, "V": MatSym("V", keys, d_v), "S": q @ k.T / sympy.sqrt(d_k)}


def _kv(overwrite: bool = False, first_value: bool = False) -> Recurrence:
    """Decoding step t appends k_t, v_t to the cache; what the cache holds for query i is
    `N_t = Σ_{j<=t} e^{q_i·k_j/√d_k} v_j` and `Z_t = Σ_{j<=t} e^{q_i·k_j/√d_k}` (each step adds
    the new token's term); step t reads them at its own query, i = t."""

    def score(ops: Operands, row: sympy.Expr, k: sympy.Expr) -> sympy.Expr:
        return sympy.exp(Entry(ops["S"], row, k))

    def step(ops: Operands, state: State, seg: Segment) -> State:
        num, den = (0, 0) if overwrite else state
        value = (
            (lambda k: Entry(ops["V"], 1, c)) if first_value else (lambda k: Entry(ops["V"], k, c))
        )
        return (
            num + seg.sum(lambda k: score(ops, i, k) * value(k)),
            den + seg.sum(lambda k: score(ops, i, k)),
        )

    def invariant(ops: Operands, hi: sympy.Expr) -> State:
        return (
            prefix_sum(lambda k: score(ops, i, k) * Entry(ops["V"], k, c), hi),
            prefix_sum(lambda k: score(ops, i, k), hi),
        )

    def claim(ops: Operands, state: State, t: sympy.Expr) -> tuple[sympy.Basic, sympy.Basic]:
        num, den = state
        causal = Softmax(CausalMask(ops["S"])) @ ops["V"]
        return num.xreplace({i: t}) / den.xreplace({i: t}), Entry(causal, t, c)

    return Recurrence(
        "kv_cache_every_step",
        ("N", "Z"),
        (sympy.Integer(0), sympy.Integer(0)),
        step,
        invariant,
        claim,
        _kv_ops,
        tokens=True,
        at="every",
        note="KV cache: step t appends k_t, v_t; q_t against the cache = row t of causal attention",
        scores=(),
        abstract=("S",),
        shape=_out_shape("Q"),
        target=lambda ops: Softmax(CausalMask(ops["S"])) @ ops["V"],
    )


@cache
def kv_cache() -> Recurrence:
    """The KV cache at every decoding step t."""
    return known(_kv())


def cases() -> list[Case]:
    """Every recurrence, true and with its classic bug, in the order of docs/modern.md.

    >>> [x.name for x in cases() if x.holds][:2]
    ['flash_forward', 'split_kv_merge']
    """
    return list(_cases())


@cache
def _cases() -> tuple[Case, ...]:
    """Built once: each recurrence is known by its name."""
    lt = lambda k: sympy.Lt(k, i)  # noqa: E731
    return (
        Case("flash_forward", flash_forward(), True, "running max, normaliser and output"),
        Case("split_kv_merge", split_kv_merge(), True, "any number of splits"),
        Case("linear_state", linear_state(), True, "every t"),
        Case("linear_normalised", linear_normalised(), True, "every t, with the normaliser"),
        Case("kv_cache_every_step", kv_cache(), True, "every decoding step t"),
        Case(
            "flash_no_rescale",
            _named(_flash(rescale=False), "flash_no_rescale"),
            False,
            "the old output is not rescaled",
        ),
        Case(
            "flash_max_not_updated",
            _named(_flash(update_max=False), "flash_max_not_updated"),
            False,
            "the running maximum is not updated after the first block",
            output_right=True,  # the output holds for every choice of maxima; m is wrong
        ),
        Case(
            "flash_norm_not_rescaled",
            _named(_flash(rescale_norm=False), "flash_norm_not_rescaled"),
            False,
            "the normaliser is not rescaled (ℓ_t = ℓ_{t-1} + ...)",
        ),
        Case(
            "flash_max_from_zero",
            _named(_flash(m0=sympy.Integer(0)), "flash_max_from_zero"),
            False,
            "the running maximum starts at 0 instead of -inf",
            output_right=True,  # the output holds for every choice of maxima; m is wrong
        ),
        Case(
            "flash_mask_off_by_one",
            _named(_flash(kept=lt), "flash_mask_off_by_one"),
            False,
            "the causal mask drops the diagonal (j < i, not j <= i)",
        ),
        Case(
            "split_kv_no_rescale",
            _named(_split(rescale=False), "split_kv_no_rescale"),
            False,
            "the partials are merged without rescaling to the common maximum",
        ),
        Case(
            "split_kv_unweighted",
            _named(_split(weighted=False), "split_kv_unweighted"),
            False,
            "the partial outputs are merged without their normalisers as weights",
        ),
        Case(
            "linear_normaliser_not_accumulated",
            _named(
                _linear(normalised=True, accumulate_z=False), "linear_normaliser_not_accumulated"
            ),
            False,
            "the normaliser is not accumulated (z_t = φ(k_t)^T), the state is",
        ),
        Case(
            "linear_not_accumulated",
            _named(_linear(normalised=False, accumulate=False), "linear_not_accumulated"),
            False,
            "the state is not accumulated (S_t = φ(k_t)^T v_t)",
        ),
        Case(
            "kv_cache_overwritten",
            _named(_kv(overwrite=True), "kv_cache_overwritten"),
            False,
            "the cache keeps only the newest token",
        ),
        Case(
            "kv_cache_value_not_appended",
            _named(_kv(first_value=True), "kv_cache_value_not_appended"),
            False,
            "the key cache grows, the value cache keeps v_1",
        ),
    )


def _named(rec: Recurrence, name: str) -> Recurrence:
    return known(replace(rec, name=name))


def recurrences() -> list[Recurrence]:
    """The true recurrences (each proved by induction on its count)."""
    return [x.recurrence for x in cases() if x.holds]
