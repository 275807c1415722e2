"""Claims as third-party texts write them, with an evaluator of their own: the wider classes.

Imports only numpy and the standard library; nothing from symattn outside this package (the truth
here shares no code with the kernel or the reader). The runner (`soundness.differential`) sends them
through `symattn check` and `symattn prove`.

Classes (`WILD_TEMPLATES`), each with true identities and single-place mutants of them, the truth
decided by evaluating both sides here, never taken from the template:

- `trig`: angle sums and doublings of `\\sin`, `\\cos` over undeclared real letters;
- `exp_log`: `\\exp`, `e^{x}`, `\\log` (the exponential law, a two-term softmax, its shift);
- `size_coef`: sizes that enter as numbers (`\\sum_{i=1}^{n} i = n(n+1)/2`, causal counts), and
  mutants off by a polynomial that vanishes at small sizes only;
- `components`: `q\\cdot k=\\sum_i q_i k_i` over vector components, declared or not;
- `hadamard`: `\\odot` entrywise, commuting, transposed, distributed;
- `written`: matrices written out with scalar entries (rotations, literal products);
- `vector_softmax`: the softmax of a column vector and of expressions built from it (a shift
  `x + c\\mathbf 1_n`, a sum of two vectors), over its entries; entries `softmax(x)_i`;
- `time_family`: a state defined by `S_t = S_{t-1} + v_t k_t^\\top`, and claims about `S_2`,
  `S_3`;
- `norms`: `\\|x\\|^2 = x^\\top x`, the expansions of `\\|x \\pm y\\|^2`, `\\|Wx\\|^2`,
  `\\|cx\\|^2`;
- `products`: transposes and entries of products of three (`(ABC)^\\top = C^\\top B^\\top
  A^\\top`), of distinct sizes (a wrong order is ill-typed) or square (it is false);
- `reindex`: sums with a shifted or reflected index, a triangle summed by rows or by columns, the
  causal prefix sums counted by how often each term appears;
- `masks`: `A = softmax(S + M)` with M defined by cases in the prose (causal, written either way,
  the diagonal and above, a window, strictly below, whose first row is 0/0), and the claims each
  makes true; a mutant keeps the claim under another mask;
- `brackets`: entries and components written as code indexes them (`A[i,k]`, `A[i][k]`, `q[i]`)
  of declared matrices and vectors: products, transposes, dot products, triangles.

A claim is true when both sides agree (rtol 1e-9) at every size plan and data seed; sizes that
enter as numbers are tried at every value 1..12 (a polynomial of degree below 12 that vanishes
there vanishes everywhere); an index outside its vector or matrix makes the claim ill-formed, and
sides of different shapes make it ill-typed.
"""

from __future__ import annotations

from symattn.soundness.wild.latex import GREEK as GREEK
from symattn.soundness.wild.latex import PREC as PREC
from symattn.soundness.wild.latex import formula as formula
from symattn.soundness.wild.latex import tex as tex
from symattn.soundness.wild.mutations import generate_wild as generate_wild
from symattn.soundness.wild.mutations import mutate as mutate
from symattn.soundness.wild.nodes import MT as MT
from symattn.soundness.wild.nodes import Comp as Comp
from symattn.soundness.wild.nodes import DotP as DotP
from symattn.soundness.wild.nodes import Eye as Eye
from symattn.soundness.wild.nodes import FamVec as FamVec
from symattn.soundness.wild.nodes import Fn as Fn
from symattn.soundness.wild.nodes import Had as Had
from symattn.soundness.wild.nodes import Ix as Ix
from symattn.soundness.wild.nodes import Lit as Lit
from symattn.soundness.wild.nodes import MaskedAttn as MaskedAttn
from symattn.soundness.wild.nodes import Mat as Mat
from symattn.soundness.wild.nodes import MEntry as MEntry
from symattn.soundness.wild.nodes import Minus as Minus
from symattn.soundness.wild.nodes import MMul as MMul
from symattn.soundness.wild.nodes import Neg as Neg
from symattn.soundness.wild.nodes import Node as Node
from symattn.soundness.wild.nodes import Norm as Norm
from symattn.soundness.wild.nodes import Num as Num
from symattn.soundness.wild.nodes import Ones as Ones
from symattn.soundness.wild.nodes import Plus as Plus
from symattn.soundness.wild.nodes import Power as Power
from symattn.soundness.wild.nodes import Ratio as Ratio
from symattn.soundness.wild.nodes import Size as Size
from symattn.soundness.wild.nodes import State as State
from symattn.soundness.wild.nodes import Sum as Sum
from symattn.soundness.wild.nodes import Times as Times
from symattn.soundness.wild.nodes import Var as Var
from symattn.soundness.wild.nodes import VComp as VComp
from symattn.soundness.wild.nodes import Vec as Vec
from symattn.soundness.wild.nodes import VSoftmax as VSoftmax
from symattn.soundness.wild.nodes import WildClaim as WildClaim
from symattn.soundness.wild.nodes import WildSpec as WildSpec
from symattn.soundness.wild.nodes import walk as walk
from symattn.soundness.wild.templates import INFERRED as INFERRED
from symattn.soundness.wild.templates import LETTERS as LETTERS
from symattn.soundness.wild.templates import WILD_TEMPLATES as WILD_TEMPLATES
from symattn.soundness.wild.templates import t_components as t_components
from symattn.soundness.wild.templates import t_exp_log as t_exp_log
from symattn.soundness.wild.templates import t_hadamard as t_hadamard
from symattn.soundness.wild.templates import t_size_coef as t_size_coef
from symattn.soundness.wild.templates import t_time_family as t_time_family
from symattn.soundness.wild.templates import t_trig as t_trig
from symattn.soundness.wild.templates import t_written as t_written
from symattn.soundness.wild.texts import SIZE_TEX as SIZE_TEX
from symattn.soundness.wild.texts import NotStated as NotStated
from symattn.soundness.wild.texts import document as document
from symattn.soundness.wild.texts import prove_argv as prove_argv
from symattn.soundness.wild.truth import DATA_PLANS as DATA_PLANS
from symattn.soundness.wild.truth import SIZE_VALUES as SIZE_VALUES
from symattn.soundness.wild.truth import IllFormed as IllFormed
from symattn.soundness.wild.truth import IllTyped as IllTyped
from symattn.soundness.wild.truth import decide as decide
from symattn.soundness.wild.truth import sizes_in as sizes_in
from symattn.soundness.wild.truth import value as value

__all__ = [
    "WILD_TEMPLATES",
    "WildClaim",
    "WildSpec",
    "decide",
    "document",
    "formula",
    "generate_wild",
    "prove_argv",
]
