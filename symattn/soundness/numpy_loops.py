"""The papers' loops in numpy, for the truth's numpy route: FlashAttention forward (plain and
causal, with its classic bugs), the split-KV merge, linear attention and the KV cache step by step.
Imports numpy only; must not import the kernel or any other module of symattn.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "_flash",
    "_flash_causal",
    "_kv_decode",
    "_linear_recurrent",
    "_segments",
    "_split_merge",
]


def _flash(s: np.ndarray, v: np.ndarray, sizes: list[int], rescale: bool) -> np.ndarray:
    """FlashAttention's forward loop over key blocks, with the true running maximum."""
    rows = s.shape[0]
    m_run, l_run = np.full((rows, 1), -np.inf), np.zeros((rows, 1))
    out = np.zeros((rows, v.shape[1]))
    start = 0
    for size in sizes:
        blk = slice(start, start + size)
        m_new = np.maximum(m_run, s[:, blk].max(axis=1, keepdims=True))
        alpha = np.exp(m_run - m_new)
        e = np.exp(s[:, blk] - m_new)
        l_run = alpha * l_run + e.sum(axis=1, keepdims=True)
        out = (alpha if rescale else 1.0) * out + e @ v[blk]
        m_run, start = m_new, start + size
    return out / l_run


def _segments(keys: int) -> list[slice]:
    """Key blocks of unequal sizes 1, 2, 1, 3, ... that fill the keys (a symbolic count's
    output does not depend on the cut)."""
    out, start, k = [], 0, 0
    while start < keys:
        size = min((1, 2, 1, 3)[k % 4], keys - start)
        out.append(slice(start, start + size))
        start, k = start + size, k + 1
    return out


def _flash_causal(s: np.ndarray, v: np.ndarray, name: str) -> np.ndarray:
    """FlashAttention's causal forward over key blocks, as the paper writes it; `name` picks
    the classic bugs (no rescale of the output or of the normaliser, the maximum set by the
    first block or started at 0, the diagonal masked)."""
    rows, keys = s.shape
    below = np.arange(keys)[None, :] < np.arange(rows)[:, None]
    keep = below if name == "flash_mask_off_by_one" else below | np.eye(rows, keys, dtype=bool)
    s = np.where(keep, s, -np.inf)
    m_run, l_run = np.full((rows, 1), -np.inf), np.zeros((rows, 1))
    if name == "flash_max_from_zero":
        m_run = np.zeros((rows, 1))
    out = np.zeros((rows, v.shape[1]))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for k, blk in enumerate(_segments(keys)):
            m_new = np.maximum(m_run, s[:, blk].max(axis=1, keepdims=True))
            if name == "flash_max_not_updated" and k > 0:
                m_new = m_run
            alpha = np.exp(m_run - m_new)
            e = np.exp(s[:, blk] - m_new)
            keep_l = 1.0 if name == "flash_norm_not_rescaled" else alpha
            l_run = keep_l * l_run + e.sum(axis=1, keepdims=True)
            out = (1.0 if name == "flash_no_rescale" else alpha) * out + e @ v[blk]
            m_run = m_new
        return out / l_run


def _split_merge(s: np.ndarray, v: np.ndarray, name: str) -> np.ndarray:
    """FlashDecoding: each key split's (max, normaliser, normalised output), merged in turn."""
    m = np.full((s.shape[0], 1), -np.inf)
    ell, o = np.zeros((s.shape[0], 1)), np.zeros((s.shape[0], v.shape[1]))
    with np.errstate(invalid="ignore", over="ignore"):
        for blk in _segments(s.shape[1]):
            ms = s[:, blk].max(axis=1, keepdims=True)
            w = np.exp(s[:, blk] - ms)
            ls = w.sum(axis=1, keepdims=True)
            os_ = (w @ v[blk]) / ls
            new = np.maximum(m, ms)
            a, b = (
                (1.0, 1.0) if name == "split_kv_no_rescale" else (np.exp(m - new), np.exp(ms - new))
            )
            total = a * ell + b * ls
            if name == "split_kv_unweighted":
                o = (a * o + b * os_) / (a + b)
            else:
                o = (a * ell * o + b * ls * os_) / total
            m, ell = new, total
    return o


def _linear_recurrent(fq: np.ndarray, fk: np.ndarray, v: np.ndarray, name: str) -> np.ndarray:
    """Linear attention token by token: S_t = S_{t-1} + φ(k_t)^T v_t, output φ(q_t) S_t."""
    state = np.zeros((fk.shape[1], v.shape[1]))
    out = np.zeros((fq.shape[0], v.shape[1]))
    for t in range(fq.shape[0]):
        new = np.outer(fk[t], v[t])
        state = new if name == "linear_not_accumulated" else state + new
        out[t] = fq[t] @ state
    return out


def _kv_decode(s: np.ndarray, v: np.ndarray, name: str) -> np.ndarray:
    """Decoding with a KV cache: step t appends token t, its query attends the cache."""
    out = np.zeros((s.shape[0], v.shape[1]))
    cache: list[int] = []
    for t in range(s.shape[0]):
        cache = [t] if name == "kv_cache_overwritten" else cache + [t]
        w = np.exp(s[t, cache] - s[t, cache].max())
        values = v[[0] * len(cache)] if name == "kv_cache_value_not_appended" else v[cache]
        out[t] = (w / w.sum()) @ values
    return out
