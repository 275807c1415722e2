"""Evaluating a kernel expression on the user's own arrays: `evaluate(expr, {Q: q, K: k, ...})`.

Imports only numpy, sympy and the kernel below it (errors, expr, masked, evaluate,
witness.numeric); must not import proof or anything above it. Every value is float64.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from symattn.kernel import masked
from symattn.kernel.evaluate import Evaluator, IllFormedHere, Unsupported, _Loop
from symattn.kernel.expr import Concat, FromColumn, HeadSym, MatExpr, MatSum, MatSym
from symattn.kernel.witness.numeric import (
    ArrayError,
    EvalError,
    Float64,
    IllFormed,
    MaskedRowError,
    _stable_hash,
)

Key = tuple  # the evaluator's key of a leaf: ("Q",), ("W_Q", 2), ("b", "column"), ("scalar", "c")
_KINDS = {"matrix": 2, "column": 1, "scalar": 0, "family": 3}  # ndim of one unbatched value


@dataclass(frozen=True)
class Slot:
    """Something the expression reads: a matrix, a column `c` of `c 1^T`, a per-head family
    `Z^{(h)}`, or a scalar variable."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.name}^{{(h)}}" if self.kind == "family" else self.name


@dataclass
class Reads:
    """The slots an expression reads with the shapes it gives them, and its integer symbols."""

    shapes: dict[Slot, list[tuple[sympy.Expr, sympy.Expr]]] = field(default_factory=dict)
    ints: dict[str, sympy.Symbol] = field(default_factory=dict)
    dims: set[sympy.Symbol] = field(default_factory=set)
    heads: list[tuple[sympy.Expr, set[str]]] = field(default_factory=list)  # (count, families)


def reads(expr: sympy.Basic) -> Reads:
    """What `expr` reads: named matrices, head families, columns, scalar variables, and sizes.

    >>> from symattn.kernel.attention import single_head
    >>> sorted(str(s) for s in reads(single_head().output).shapes)
    ['K', 'Q', 'V']
    """
    out = Reads()
    for x in _nodes(expr):
        if isinstance(x, (MatSym, FromColumn, HeadSym)):
            kind = "column" if isinstance(x, FromColumn) else "matrix"
            kind = "family" if isinstance(x, HeadSym) else kind  # FeatureMap is a matrix too
            out.shapes.setdefault(Slot(kind, x.name), []).append(x.shape)
        elif isinstance(x, sympy.Indexed):
            label = str(x.base.label)
            if label.endswith("^()"):
                out.shapes.setdefault(Slot("family", label[:-3]), [])
            else:
                out.shapes.setdefault(
                    Slot("matrix" if len(x.indices) == 2 else "column", label), []
                )
        elif isinstance(x, sympy.Symbol):
            if x.is_integer:
                out.ints.setdefault(x.name, x)
            else:
                out.shapes.setdefault(Slot("scalar", x.name), [])
        if isinstance(x, MatExpr):
            out.dims |= {s for e in x.shape for s in e.free_symbols}
        if isinstance(x, Concat) or (isinstance(x, MatSum) and x.limits[1] == 1):
            var, count = (x.head, x.count) if isinstance(x, Concat) else (x.var, x.limits[2])
            fams = {m.name for m in _nodes(x.body) if isinstance(m, HeadSym) and m.head.has(var)}
            if fams:
                out.heads.append((count, fams))
    return out


def _nodes(e: sympy.Basic) -> Iterator[sympy.Basic]:
    # like expr.walk, but an Indexed is a leaf: its base's label is a name, not a scalar variable
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if not isinstance(x, sympy.Indexed):
            stack.extend(reversed(x.args))


# ---- the user's inputs, checked one by one ---------------------------------------------------


@dataclass
class Given:
    """The checked values: float64 arrays by evaluator key, and which carry a batch axis."""

    values: dict[Key, np.ndarray] = field(default_factory=dict)
    batched: dict[Key, int] = field(default_factory=dict)  # key -> batch length
    stacks: dict[str, int] = field(default_factory=dict)  # family -> number of heads stacked
    slots: set[Slot] = field(default_factory=set)

    def element(self, b: int) -> dict[Key, np.ndarray]:
        return {k: v[b] if k in self.batched else v for k, v in self.values.items()}


def to_float64(value: object, what: str) -> np.ndarray:
    """`value` (anything numpy can read: arrays, lists, tensors with `__array__`) as float64.

    >>> to_float64([[1, 2]], "Q").dtype
    dtype('float64')
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # what a foreign __array__ raises is not ours to name
        hint = " (a torch tensor: pass t.detach().cpu())" if _is_torch(value) else ""
        raise ArrayError(f"cannot read {what} as an array: {exc}{hint}") from None
    if arr.dtype.kind not in "biuf":
        raise ArrayError(
            f"{what} has dtype {arr.dtype}; evaluate takes real numbers (bool, int or float)"
        )
    arr = arr.astype(np.float64)
    bad = np.argwhere(~np.isfinite(arr))
    if len(bad):
        at = tuple(int(i) for i in bad[0])
        raise ArrayError(f"{what} has a non-finite entry {arr[at]} at {list(at)}")
    return arr


def _is_torch(value: object) -> bool:
    return type(value).__module__.split(".")[0] == "torch"


def _unbatch(arr: np.ndarray, kind: str, what: str, batch: bool) -> tuple[np.ndarray, int | None]:
    """`arr` with a column brought to n × 1, and its batch length (None: shared by the batch)."""
    base = _KINDS[kind]
    if kind == "column" and arr.ndim == base + 1 + batch and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if arr.ndim == base:
        length = None
    elif batch and arr.ndim == base + 1:
        length = arr.shape[0]
    else:
        shape = " × ".join(map(str, arr.shape)) or "a scalar"
        want = {"matrix": "a matrix (2-D)", "column": "a vector (1-D)", "scalar": "a number"}
        want["family"] = "a stack of heads (3-D: heads × rows × cols) or a mapping {h: matrix}"
        hint = "" if batch else "; pass batch=True for a leading batch axis"
        raise ArrayError(f"{what} is {arr.ndim}-D ({shape}), but must be {want[kind]}{hint}")
    if kind == "column":
        arr = arr[..., None]
    elif kind == "scalar":
        arr = arr[..., None, None]
    return arr, length


_FAMILY = re.compile(r"^(?P<name>.+?)\^\{?\((?P<head>[^()]+)\)\}?$")


def resolve_key(key: object, found: Reads) -> tuple[Slot, int | None]:
    """The slot a key of `inputs` names, and the head for one member of a family."""
    if isinstance(key, MatSym):
        slot, head = Slot("matrix", key.name), None
    elif isinstance(key, FromColumn):
        slot, head = Slot("column", key.name), None
    elif isinstance(key, HeadSym):
        slot, head = Slot("family", key.name), _head_number(key.head)
    elif isinstance(key, sympy.Symbol):
        if key.is_integer:
            raise ArrayError(f"{key} is a size or an index: pass it as sizes= or at=, not an input")
        slot, head = Slot("scalar", key.name), None
    elif isinstance(key, str):
        return _resolve_name(key.replace(" ", ""), found)
    else:
        raise ArrayError(
            f"an input key must be a symbol of the expression or its name, not {type(key).__name__}"
        )
    if slot not in found.shapes:
        raise _unknown(str(slot) if head is None else f"{slot.name}^{{({head})}}", found)
    shapes = found.shapes[slot]
    if isinstance(key, MatExpr) and shapes and key.shape not in shapes:
        mine, theirs = (f"{_paren(r)} × {_paren(c)}" for r, c in (key.shape, shapes[0]))
        raise ArrayError(f"the key {slot} ({mine}) is not the expression's {slot} ({theirs})")
    return slot, head


def _head_number(head: sympy.Expr) -> int | None:
    return int(head) if head.is_Integer else None


def _resolve_name(name: str, found: Reads) -> tuple[Slot, int | None]:
    m = _FAMILY.match(name)
    if m is not None:
        slot = Slot("family", m["name"])
        if slot not in found.shapes:
            raise _unknown(name, found)
        head = m["head"]
        return slot, int(head) if head.isdigit() else None
    matches = [s for s in found.shapes if s.name == name]
    if len(matches) > 1:
        kinds = " and ".join(s.kind for s in matches)
        raise ArrayError(f"{name} names a {kinds} here: use the symbol itself as the key")
    if not matches:
        if name in found.ints:
            raise ArrayError(
                f"{name} is a size or an index: pass it as sizes= or at=, not an input"
            )
        raise _unknown(name, found)
    return matches[0], None


def _unknown(name: str, found: Reads) -> ArrayError:
    known = sorted(str(s) for s in found.shapes)
    plain = {_plain(k): k for k in known}
    close = [plain[_plain(name)]] if _plain(name) in plain else []
    close = close or [plain[k] for k in difflib.get_close_matches(_plain(name), plain, cutoff=0.5)]
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    return ArrayError(
        f"unknown input {name!r}: the expression has no matrix, head family or scalar of that "
        f"name{hint}\n  it reads: {', '.join(known) or 'no named matrices'}"
    )


def _plain(name: str) -> str:
    return name.lower().replace("_", "").replace("^{(h)}", "")


def gather(inputs: Mapping[Any, Any], found: Reads, *, batch: bool) -> Given:
    """Every input checked (key, dtype, finite values, number of axes) and keyed as the evaluator
    keys its leaves."""
    if not isinstance(inputs, Mapping):
        raise ArrayError(f"inputs must be a mapping {{symbol: array}}, not {type(inputs).__name__}")
    given = Given()
    for key, value in inputs.items():
        slot, head = resolve_key(key, found)
        if slot.kind == "family" and head is None:
            members = _members(value, slot, batch, given)
        else:
            members = {head: value} if slot.kind == "family" else {None: value}
        for h, member in members.items():
            where = str(slot) if h is None else f"{slot.name}^{{({h})}}"
            kind = "matrix" if slot.kind == "family" else slot.kind
            arr, length = _unbatch(to_float64(member, where), kind, where, batch)
            k = _key(slot, h)
            if k in given.values:
                raise ArrayError(f"{where} is given twice")
            given.values[k] = arr
            if length is not None:
                given.batched[k] = length
        given.slots.add(slot)
    lengths = {k: b for k, b in given.batched.items()}
    if len(set(lengths.values())) > 1:
        text = ", ".join(f"{_show(k)}: {b}" for k, b in lengths.items())
        raise ArrayError(f"the inputs' batch axes differ in length ({text})")
    return given


def _members(value: object, slot: Slot, batch: bool, given: Given) -> dict[int | None, object]:
    """A family's members by head (1-based), from a mapping {h: matrix} or a stacked array."""
    if isinstance(value, Mapping):
        out: dict[int | None, object] = {}
        for h, member in value.items():
            if isinstance(h, bool) or not isinstance(h, (int, sympy.Integer)) or h < 1:
                raise ArrayError(f"the heads of {slot} are numbered 1, 2, ...; got the key {h!r}")
            out[int(h)] = member
        return out
    arr = to_float64(value, str(slot))
    stacked, length = _unbatch(arr, "family", str(slot), batch)
    heads = stacked.shape[-3]
    given.stacks[slot.name] = heads
    # a batched stack is batch × heads × rows × cols: the head axis is the second
    return {
        h: stacked[..., h - 1, :, :] if length is None else stacked[:, h - 1]
        for h in range(1, heads + 1)
    }


def _key(slot: Slot, head: int | None) -> Key:
    if slot.kind == "family":
        return (slot.name, head)
    if slot.kind == "column":
        return (slot.name, "column")
    if slot.kind == "scalar":
        return ("scalar", slot.name)
    return (slot.name,)


def _show(key: Key) -> str:
    if len(key) == 2 and isinstance(key[1], int):
        return f"{key[0]}^{{({key[1]})}}"
    return key[1] if key[0] == "scalar" else key[0]


# ---- binding the sizes -----------------------------------------------------------------------


@dataclass
class Binding:
    """Values of the dims, each with where it came from (`sizes=`, the rows of Q, ...)."""

    value: dict[sympy.Symbol, int] = field(default_factory=dict)
    source: dict[sympy.Symbol, str] = field(default_factory=dict)

    def at(self, e: sympy.Expr) -> sympy.Expr:
        return sympy.expand(e.xreplace({s: sympy.Integer(v) for s, v in self.value.items()}))

    def because(self, e: sympy.Expr) -> str:
        known = sorted((s for s in e.free_symbols if s in self.value), key=str)
        return ", ".join(f"{s} = {self.value[s]} from {self.source[s]}" for s in known)


@dataclass(frozen=True)
class Equation:
    """`need = value`: a dim expression of the expression and a length of an input."""

    need: sympy.Expr
    value: int
    what: str  # "K is 4 × 3"
    wanted: str  # "n × d_k"
    source: str  # "the rows of K"


def bind(found: Reads, given: Given, sizes: Mapping[Any, Any] | None) -> Binding:
    """The dims fixed by `sizes` and by the inputs' shapes, refusing contradictions."""
    binding = Binding()
    for key, value in (sizes or {}).items():
        sym = _int_symbol(key, found, "size")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ArrayError(f"size {sym} must be a positive integer, not {value!r}")
        binding.value[sym], binding.source[sym] = int(value), "sizes="
    _solve(_equations(found, given), binding)
    return binding


def _int_symbol(key: object, found: Reads, what: str) -> sympy.Symbol:
    name = key.name if isinstance(key, sympy.Symbol) else key
    if not isinstance(name, str):
        raise ArrayError(f"a {what} key must be a symbol or its name, not {type(key).__name__}")
    if name in found.ints:
        return found.ints[name]
    close = difflib.get_close_matches(name, list(found.ints), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    return _raise(f"unknown {what} {name!r}: the expression has no such symbol{hint}")


def _raise(message: str) -> Any:
    raise ArrayError(message)


def _equations(found: Reads, given: Given) -> list[Equation]:
    out = []
    for count, families in found.heads:
        for name in sorted(families & set(given.stacks)):
            heads = given.stacks[name]
            what = f"{name}^{{(h)}} stacks {heads} heads"
            out.append(Equation(count, heads, what, f"{count} heads", f"the heads of {name}"))
    for key, arr in given.values.items():
        slot = _slot_of(key)
        rows, cols = arr.shape[-2:]
        what = f"{_show(key)} is {rows} × {cols}"
        for need_rows, need_cols in dict.fromkeys(found.shapes.get(slot, [])):
            wanted = f"{_paren(need_rows)} × {_paren(need_cols)}"
            out.append(Equation(need_rows, rows, what, wanted, f"the rows of {_show(key)}"))
            if slot.kind != "column":  # c 1^T: its width is not the vector's
                out.append(Equation(need_cols, cols, what, wanted, f"the columns of {_show(key)}"))
    return out


def _slot_of(key: Key) -> Slot:
    if key[0] == "scalar":
        return Slot("scalar", key[1])
    if len(key) == 2:
        return Slot("column" if key[1] == "column" else "family", key[0])
    return Slot("matrix", key[0])


def _paren(e: sympy.Expr) -> str:
    return str(e) if e.is_Atom else f"({e})"


def _solve(equations: list[Equation], binding: Binding) -> None:
    pending = list(equations)
    progress = True
    while pending and progress:
        progress, rest = False, []
        for eq in pending:
            here = binding.at(eq.need)
            if here.is_Integer:
                if int(here) != eq.value:
                    raise ArrayError(_contradiction(eq, here, binding))
                continue
            free = here.free_symbols
            if len(free) != 1:
                rest.append(eq)
                continue
            (sym,) = free
            roots = [
                r for r in sympy.solve(sympy.Eq(here, eq.value), sym) if r.is_Integer and r > 0
            ]
            if not roots:
                because = binding.because(eq.need)
                raise ArrayError(
                    f"{eq.what}, but the expression needs {eq.wanted}, and no whole {sym} gives "
                    f"{eq.need} = {eq.value}" + (f" ({because})" if because else "")
                )
            binding.value[sym], binding.source[sym] = int(roots[0]), eq.source
            progress = True
        pending = rest


def _contradiction(eq: Equation, here: sympy.Expr, binding: Binding) -> str:
    because = binding.because(eq.need)
    head = f"{eq.what}, but the expression needs {eq.wanted}"
    if not because:
        return head
    if isinstance(eq.need, sympy.Symbol):
        return f"{head}, with {because}"
    return f"{head}, with {eq.need} = {here} ({because})"


# ---- evaluating --------------------------------------------------------------------------------


class _Checked(Float64):
    """float64 that refuses a softmax over a row of -inf instead of giving NaN."""

    def softmax(self, s: np.ndarray, keep: np.ndarray | None, axis: int, ev: Evaluator) -> Any:
        dead = np.all(s == -np.inf, axis=axis)
        if dead.any():
            what = "column" if axis == 0 else "row"
            raise MaskedRowError(
                f"{what} {int(np.argmax(dead)) + 1} of a softmax is fully masked (every entry "
                "-inf): its softmax has no value"
            )
        return super().softmax(s, keep, axis, ev)


def evaluate(
    expr: sympy.Basic,
    inputs: Mapping[Any, Any] | None = None,
    *,
    sizes: Mapping[Any, int] | None = None,
    at: Mapping[Any, int] | None = None,
    batch: bool = False,
    fill: str | None = None,
    seed: int = 0,
) -> Any:
    """Evaluate a kernel expression on your own arrays, in float64.

    `inputs` maps what the expression reads to array-likes (numpy arrays, nested lists, tensors
    with `__array__`): a `MatSym` or its name (`Q`, `"W_Q"`), a head family `Z^{(h)}` (the
    `HeadSym`, `"Z"` or `"Z^{(h)}"`) as a stack `heads × rows × cols` or a mapping `{1: z1, ...}`,
    one member (`"Z^{(2)}"`), a column `c` of `FromColumn` (a vector), a scalar symbol (a number).
    Dims are bound from the arrays' shapes (`sizes=` fixes others); free indices come from `at=`
    (1-based, as in the formulas). With `batch=True` an input may carry one leading batch axis
    (inputs without one are shared) and the result is stacked over it, exactly as a loop over the
    batch would give. Input is cast to float64; the result is a float64 array (a float for a
    scalar expression). Anything that does not fit raises `ArrayError`; a missing input too,
    unless `fill="random"` asks for standard-normal data (seeded by `seed` and the name).

    >>> from symattn.kernel.attention import single_head
    >>> s = single_head()
    >>> q = k = [[1.0, 0.0], [0.0, 1.0]]
    >>> evaluate(s.weights, {s.Q: q, "K": k}).round(3).tolist()
    [[0.67, 0.33], [0.33, 0.67]]
    """
    if fill not in (None, "random"):
        raise ArrayError(f"fill must be None or 'random', not {fill!r}")
    infinite = masked.problem(expr)
    if infinite is not None:
        raise IllFormed(f"ill-formed: {infinite}")
    found = reads(expr)
    given = gather(inputs or {}, found, batch=batch)
    binding = bind(found, given, sizes)
    env: dict[sympy.Symbol, int] = dict(binding.value)
    for key, value in (at or {}).items():
        sym = _int_symbol(key, found, "index")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ArrayError(f"index {sym} must be an integer, not {value!r}")
        env[sym] = int(value)
    missing = [s for s in found.shapes if s not in given.slots]
    if missing and fill is None:
        raise ArrayError(_missing_text(missing, found))
    lengths = set(given.batched.values())
    if batch and not lengths:
        raise ArrayError("batch=True, but no input has a batch axis")
    shapes = _shapes(found, given, env)
    if not lengths:
        return _one(expr, given.element(0), env, shapes, found, fill is not None, seed)
    (length,) = lengths
    out = [
        _one(expr, given.element(b), env, shapes, found, fill is not None, seed)
        for b in range(length)
    ]
    return np.stack(out) if isinstance(expr, MatExpr) else np.asarray(out, dtype=np.float64)


def _missing_text(missing: list[Slot], found: Reads) -> str:
    parts = []
    for slot in missing:
        shapes = found.shapes[slot]
        shown = f" ({_paren(shapes[0][0])} × {_paren(shapes[0][1])})" if shapes else ""
        parts.append(f"{slot}{shown}" if slot.kind != "column" else f"{slot} (a vector)")
    noun = "input" if len(parts) == 1 else "inputs"
    return (
        f"missing {noun} {', '.join(parts)}: pass {'it' if len(parts) == 1 else 'them'} in "
        "inputs, or fill='random' for random data"
    )


def _shapes(
    found: Reads, given: Given, env: Mapping[sympy.Symbol, int]
) -> dict[str, tuple[int, int]]:
    """Each named matrix's shape by the label its bare entries (`Q[i, r]`) are `Indexed` by."""
    out: dict[str, tuple[int, int]] = {}
    for key, arr in given.values.items():
        slot = _slot_of(key)
        if slot.kind != "scalar":
            out[f"{slot.name}^()" if slot.kind == "family" else slot.name] = arr.shape[-2:]
    at = {s: sympy.Integer(v) for s, v in env.items()}
    for slot, shapes in found.shapes.items():
        label = f"{slot.name}^()" if slot.kind == "family" else slot.name
        if shapes and slot.kind != "scalar" and label not in out:
            rows, cols = (e.xreplace(at) for e in shapes[0])
            if rows.is_Integer and cols.is_Integer:
                out[label] = (int(rows), int(cols) if slot.kind != "column" else 1)
    return out


def _one(
    expr: sympy.Basic,
    values: Mapping[Key, np.ndarray],
    env: Mapping[sympy.Symbol, int],
    shapes: Mapping[str, tuple[int, int]],
    found: Reads,
    fill: bool,
    seed: int,
) -> Any:
    def draw(key: Key, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        if key in values:
            return values[key]
        if not fill:
            raise ArrayError(f"no value for {_show(key)}: it is not among the inputs")
        return np.random.default_rng([seed, _stable_hash(key)]).standard_normal(shape)

    ev = Evaluator(_Checked(seed), np.random.default_rng(seed), shapes, draw)
    ev.env = dict(env)
    try:
        with np.errstate(invalid="ignore"):  # a NaN is refused below, by position
            if isinstance(expr, MatExpr):
                out = np.asarray(ev.mat(expr), dtype=np.float64)
            else:
                out = np.asarray(ev.scalar(sympy.sympify(expr, strict=True)), dtype=np.float64)
    except IllFormedHere as exc:
        raise IllFormed(str(exc)) from None
    except _Loop as exc:
        raise EvalError(f"index {exc.var} has no single value here") from None
    except Unsupported as exc:
        raise _unsupported(str(exc), found) from None
    if np.isnan(out).any():
        at = [int(i) for i in np.argwhere(np.isnan(out))[0]]
        raise EvalError(f"the value is NaN at {at}: float64 overflowed (or met inf - inf)")
    return out if isinstance(expr, MatExpr) else float(out)


def _unsupported(message: str, found: Reads) -> EvalError:
    m = re.fullmatch(r"no value for (?:the index )?(\S+)", message)
    if m is None:
        return EvalError(message)
    name = m[1]
    sym = found.ints.get(name)
    if sym is not None and sym in found.dims:
        return ArrayError(
            f"the size {name} is not fixed by the inputs: pass sizes={{{name!r}: ...}}"
        )
    return ArrayError(f"the index {name} has no value: pass at={{{name!r}: ...}} (1-based)")
