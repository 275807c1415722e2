"""No code execution from data: no eval/exec/pickle/sympify of text; hostile strings run nothing."""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import os
import tempfile
from pathlib import Path

import pytest

import symattn
import symattn.check as check
import symattn.cli as cli
from symattn.kernel.errors import ParseError, SymattnError
from symattn.latex.printer import latex
from symattn.reader import parse_formula

PACKAGE = Path(symattn.__file__).parent
MARK = Path(tempfile.gettempdir()) / "symattn_pwned_marker"

HOSTILE = (
    f"__import__('os').system('touch {MARK}')",
    f"exec(\"import os; os.system('touch {MARK}')\")",
    f"eval(\"__import__('os').system('touch {MARK}')\")",
    f"open('{MARK}', 'w')",
    f"(lambda: __import__('os').system('touch {MARK}'))()",
    f"\\immediate\\write18{{touch {MARK}}}",
    f"\\input{{{MARK}}}",
    f"$(touch {MARK})",
    f"`touch {MARK}`",
    f"; touch {MARK}",
    f"cos\nsystem\n(S'touch {MARK}'\ntR.",
    "{{7*7}}",
    "Symbol('x').__class__.__mro__[-1].__subclasses__()",
)

# A slot `@` in every position the grammar has.
POSITIONS = (
    "@",
    "Q=@",
    "@=Q",
    "Q_{@}",
    "Q^{@}",
    "(QK^T)_{@}",
    "\\sum_{@=1}^{n} a_j",
    "\\sum_{j=1}^{@} a_j",
    "\\frac{@}{2}",
    "\\sqrt{@}",
    "\\operatorname{@}(Q)",
    "\\operatorname{softmax}(@)",
    "\\text{@}",
    "Q,K\\in\\mathbb R^{@\\times d_k}",
    "\\begin{bmatrix}@\\end{bmatrix}",
    "\\label{@}",
    "\\tag{@}",
    "Z^{(@)}",
    "Q=XW_Q \\text{ for all } @",
)

# Reviewed calls of sympify without strict=True: the argument is a kernel object, never text.
REVIEWED_SYMPIFY = {
    ("kernel/ranges.py", "_check_one"),
    ("kernel/witness/exact.py", "_size"),
    ("latex/derivation.py", "matrix_latex"),
}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "parse_expr", "parse_latex"}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle", "sympy.parsing"}


@pytest.fixture(autouse=True)
def no_marker():
    MARK.unlink(missing_ok=True)
    yield
    assert not MARK.exists(), "a hostile string ran code"


@functools.cache
def _trees() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of the package, parsed once for all the tests that read them."""
    return tuple((p, ast.parse(p.read_text("utf-8"))) for p in sorted(PACKAGE.rglob("*.py")))


@functools.cache
def _calls() -> tuple[tuple[str, str, ast.Call], ...]:
    """(file, innermost enclosing function, call node) for every call in the package."""
    out = []
    for path, tree in _trees():
        rel = path.relative_to(PACKAGE).as_posix()
        stack: list[tuple[ast.AST, str]] = [(tree, "<module>")]
        while stack:
            node, where = stack.pop()
            if isinstance(node, ast.Call):
                out.append((rel, where, node))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = node.name
            stack.extend((child, where) for child in ast.iter_child_nodes(node))
    return tuple(out)


def test_no_eval_exec_compile_or_parse_expr_anywhere():
    bad = [
        (rel, where, ast.unparse(c)[:60])
        for rel, where, c in _calls()
        if isinstance(c.func, ast.Name)
        and c.func.id in FORBIDDEN_CALLS
        or isinstance(c.func, ast.Attribute)
        and c.func.attr in {"parse_expr", "parse_latex"}
    ]
    assert not bad


def test_no_pickle_like_module_is_imported():
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [(path.name, x) for x in names if x.split(".")[0] in FORBIDDEN_MODULES]
            found += [(path.name, x) for x in names if x.startswith("sympy.parsing")]
    assert not found


def test_every_sympify_is_strict_or_reviewed():
    unreviewed = set()
    for rel, where, c in _calls():
        name = c.func.attr if isinstance(c.func, ast.Attribute) else getattr(c.func, "id", "")
        if name != "sympify" or any(k.arg == "strict" for k in c.keywords):
            continue
        if (rel, where) not in REVIEWED_SYMPIFY:
            unreviewed.add((rel, where))
    assert not unreviewed, f"sympify without strict=True (text would be eval'd): {unreviewed}"


def test_the_sympify_allow_lists_name_only_calls_that_exist():
    found = set()
    for rel, where, c in _calls():
        name = c.func.attr if isinstance(c.func, ast.Attribute) else getattr(c.func, "id", "")
        if name == "sympify" and not any(k.arg == "strict" for k in c.keywords):
            found.add((rel, where))
    stale = (REVIEWED_SYMPIFY) - found
    assert not stale, f"allow-listed sympify calls that no longer exist: {stale}"


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("where", POSITIONS)
def test_hostile_text_in_every_position_is_only_read(where, text):
    formula = where.replace("@", text)
    try:
        parse_formula(formula)
    except ParseError as exc:
        assert exc.position is not None


@pytest.mark.parametrize("text", HOSTILE[:6])
@pytest.mark.parametrize("where", POSITIONS[:10])
def test_hostile_text_through_the_checker_is_a_diagnostic(where, text):
    results = check.check_formula(where.replace("@", text), "Q,K: n x d_k")
    assert results and all(r.kind == "not-understood" and r.message for r in results), [
        (r.kind, r.message) for r in results
    ]


@pytest.mark.parametrize("text", HOSTILE[:5])
@pytest.mark.parametrize(
    "dims", ["Q,K: @ x d_k", "Q: n x @", "@: n x d", "Q: n x d; @", "Q: H*@ x d"]
)
def test_hostile_dims_option_is_refused(dims, text):
    with pytest.raises(SymattnError):
        check.check_formula("Q=Q", dims.replace("@", text))


@pytest.mark.parametrize("text", HOSTILE[:4])
def test_hostile_document_through_the_checker(tmp_path, text):
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"# {text}\n\n${text}$ and $Q_{{{text}}}=1$\n\n$$\n{text}\n$$\n\n`{text}`\n", "utf-8"
    )
    results = check.check_file(doc)
    assert results and all(r.kind != "verified" for r in results)


@pytest.mark.parametrize("text", HOSTILE[:4])
@pytest.mark.parametrize("command", ["prove", "shapes"])
def test_hostile_command_line_exits_cleanly(command, text):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([command, text])
    assert code == 2  # unreadable input, said in one line
    assert err.getvalue().startswith(f"symattn {command}: "), err.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()


def _kernel_entries():
    from symattn.kernel.attention import single_head
    from symattn.kernel.canon import normal_form
    from symattn.kernel.dims import as_dim
    from symattn.kernel.expr import MatSum, MatSym, expand_entries, index

    s = single_head()
    text = HOSTILE[0]
    return {
        "entry": lambda: s.Q[text, 1],
        "row": lambda: s.Q.row(text),
        "scale": lambda: s.Q * text,
        "matsum": lambda: MatSum(s.Q, index("i"), 1, text),
        "matsym": lambda: MatSym("A", text, 2),
        "single_head": lambda: single_head(n=text),
        "as_dim": lambda: as_dim(text),
        "expand_entries": lambda: expand_entries(text),
        "normal_form": lambda: normal_form(text),
    }


@pytest.mark.parametrize("name", sorted(_kernel_entries()))
def test_kernel_api_refuses_text(name):
    with pytest.raises((SymattnError, TypeError, ValueError)):
        _kernel_entries()[name]()


def _known_text_eval():
    from symattn.kernel.attention import multi_head
    from symattn.kernel.dims import dim_str, dims_equal

    text = HOSTILE[0]
    out = {
        "multi_head": lambda: multi_head(H=text),
        "dims_equal": lambda: dims_equal(text, 1),
        "dim_str": lambda: dim_str(text),
    }
    out["latex"] = lambda: latex(text)
    return out


@pytest.mark.parametrize("name", ["multi_head", "dims_equal", "dim_str", "latex"])
def test_python_api_refuses_text(name):
    MARK.unlink(missing_ok=True)
    call = _known_text_eval()[name]  # outside the suppress: a missing entry must fail
    with contextlib.suppress(Exception):
        call()
    ran = MARK.exists()
    MARK.unlink(missing_ok=True)
    assert not ran


def test_marker_path_is_writable_so_the_check_can_fail():
    MARK.touch()
    assert MARK.exists()
    os.remove(MARK)


def test_a_300_factor_product_in_a_document_is_a_diagnostic():
    results = check.check_formula("(" + "A" * 300 + ")_{ij} = 1", "A: n x n")
    assert [r.kind for r in results] == ["not-understood"]
    assert "nested 201 levels deep; the limit is 200" in results[0].message
