"""`\\mathrm{softmax}(z_i) = \\frac{e^{z_i}}{\\sum_j e^{z_j}}`: the softmax written of a component,
as texts define it, read as component i of the softmax of the vector z (taken literally, the
softmax of one number is 1).

Imports only the reader's AST; the parser calls it, the relation reader names the reading in
the verdict (`written_as_component`).
"""

from __future__ import annotations

import dataclasses

from symattn.reader.syntax import ast

__all__ = ["component_softmax", "with_component_softmax", "written_as_component"]


def with_component_softmax(formula: ast.Formula) -> ast.Formula:
    """Each claim `softmax(z_i) = ...` of `formula` with its left side `softmax(z)_i`."""
    items = []
    for item in formula.items:
        if isinstance(item, ast.Claim) and len(item.subjects) == 1 and item.steps:
            read = component_softmax(item.subjects[0], item.steps[0].rhs)
            if read is not None and item.steps[0].rel == "=":
                item = dataclasses.replace(item, subjects=(read,))
        items.append(item)
    return dataclasses.replace(formula, items=tuple(items))


def written_as_component(left: ast.Node, body: str) -> bool:
    """`left` is a `softmax(z)_i` the text wrote `softmax(z_i)`."""
    return isinstance(left, ast.IndexedGroup) and body[left.start : left.end].rstrip().endswith(")")


def component_softmax(left: ast.Node, right: ast.Node) -> ast.IndexedGroup | None:
    """`softmax(z)_i` for a left side `softmax(z_i)` whose right side sums over the other
    components of z (`z_j` under a sum over j); None for any other left side."""
    if not (isinstance(left, ast.Call) and left.name.lower() == "softmax" and len(left.args) == 1):
        return None
    arg = left.args[0]
    if not (isinstance(arg, ast.Symbol) and arg.name.islower() and _letter(arg.sub)):
        return None
    assert isinstance(arg.sub, ast.Symbol)
    if not _sums_components(right, arg):
        return None
    vector = ast.Symbol(arg.name, arg.font, None, start=arg.start, end=arg.sub.start)
    call = ast.Call(left.name, (vector,), left.sub, left.parens, start=left.start, end=left.end)
    group = ast.Group((call,), "(", False, start=left.start, end=left.end)
    return ast.IndexedGroup(group, arg.sub, start=left.start, end=left.end)


def _letter(node: ast.Node | None) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and len(node.name) == 1
        and node.name.islower()
        and node.sub is None
        and node.font is None
    )


def _sums_components(right: ast.Node, arg: ast.Symbol) -> bool:
    """A sum in `right` over a letter j whose body holds `z_j`: the same vector, another index."""
    for node in ast.walk(right):
        if not isinstance(node, ast.Sum):
            continue
        if node.var is None:
            continue  # `\\sum_j` with no index written under it: not read here
        name = node.var.name
        for x in ast.walk(node.body):
            if (
                isinstance(x, ast.Symbol)
                and x.name == arg.name
                and x.font == arg.font
                and isinstance(x.sub, ast.Symbol)
                and x.sub.name == name
                and x.sub.name != getattr(arg.sub, "name", None)
            ):
                return True
    return False
