"""An independent evaluator for the differential soundness suite: numpy and the standard library.

This package imports NOTHING from symattn outside itself (a test checks it). It defines the suite's
own small claim AST (`claims`), its own size plans that satisfy a context's size relations
(`plans`), its own shape logic (`shapes`) and evaluator (`evaluation`), and decides (`decide`) a
claim `lhs = rhs` by evaluating both sides with numpy on random data at every index point of several
size plans.

Semantics (the project's decisions, written again here from the text, not from the kernel):

- matrices are 1-based; `Row(M, i)` is row i as a 1 x cols matrix (the row convention);
- `Softmax` is row-wise, `ColSoftmax` column-wise; `Mask(S)` is the causal mask: entries with
  j > i are excluded (exp of them is 0), so a masked row's softmax sums only over j <= i;
  `Mask(S, upper=True)` is the wrong triangle (keeps j >= i);
- `Block(W, h, m, count)` is rows (h-1)m+1 .. hm of W (W has count*m rows): `W_O^{(h)}`;
- `Concat(body, h, count)` puts body(h=1), ..., body(h=count) side by side;
- a sum over an empty range (hi = lo - 1) is 0; a reversed range (hi < lo - 1) is ill-formed;
- an index outside its matrix, a head outside 1..count, or a name used with two shapes makes the
  claim ill-formed / ill-typed, hence not true;
- a 1 x 1 matrix may be compared with a scalar (a textbook's `q_i k_j^T = q_i . k_j`).

Truth: `decide(claim, context)` returns `Decision.truth` in {"true", "false", "ill_typed",
"ill_formed"}: "true" when both sides agree at every index point of every plan: the small plans
of `plans` and those of `grid`, from the claim's degree bound in its sizes (`degrees`), which rule
out a coincidence of the sizes; exactly (rational arithmetic) where every value is rational,
else within rtol 1e-8.
"""

from __future__ import annotations

from symattn.soundness.oracle.claims import DIM_NAMES as DIM_NAMES
from symattn.soundness.oracle.claims import MAT_TYPES as MAT_TYPES
from symattn.soundness.oracle.claims import SCALAR_TYPES as SCALAR_TYPES
from symattn.soundness.oracle.claims import Add as Add
from symattn.soundness.oracle.claims import Block as Block
from symattn.soundness.oracle.claims import ClaimSpec as ClaimSpec
from symattn.soundness.oracle.claims import ColSoftmax as ColSoftmax
from symattn.soundness.oracle.claims import Concat as Concat
from symattn.soundness.oracle.claims import D as D
from symattn.soundness.oracle.claims import Dim as Dim
from symattn.soundness.oracle.claims import Dot as Dot
from symattn.soundness.oracle.claims import Entry as Entry
from symattn.soundness.oracle.claims import FromCol as FromCol
from symattn.soundness.oracle.claims import HeadMat as HeadMat
from symattn.soundness.oracle.claims import I as I
from symattn.soundness.oracle.claims import Ix as Ix
from symattn.soundness.oracle.claims import Mask as Mask
from symattn.soundness.oracle.claims import Mat as Mat
from symattn.soundness.oracle.claims import MatMul as MatMul
from symattn.soundness.oracle.claims import MSum as MSum
from symattn.soundness.oracle.claims import Node as Node
from symattn.soundness.oracle.claims import Num as Num
from symattn.soundness.oracle.claims import Ones as Ones
from symattn.soundness.oracle.claims import Row as Row
from symattn.soundness.oracle.claims import SAdd as SAdd
from symattn.soundness.oracle.claims import Scalar as Scalar
from symattn.soundness.oracle.claims import Scale as Scale
from symattn.soundness.oracle.claims import SMul as SMul
from symattn.soundness.oracle.claims import Softmax as Softmax
from symattn.soundness.oracle.claims import Sqrt as Sqrt
from symattn.soundness.oracle.claims import SSum as SSum
from symattn.soundness.oracle.claims import Sym as Sym
from symattn.soundness.oracle.claims import Tr as Tr
from symattn.soundness.oracle.claims import children as children
from symattn.soundness.oracle.claims import nodes as nodes
from symattn.soundness.oracle.decide import MAX_POINTS as MAX_POINTS
from symattn.soundness.oracle.decide import Decision as Decision
from symattn.soundness.oracle.decide import decide as decide
from symattn.soundness.oracle.decide import decide_at as decide_at
from symattn.soundness.oracle.decide import points as points
from symattn.soundness.oracle.decide import with_inferred_ranges as with_inferred_ranges
from symattn.soundness.oracle.evaluation import _MATRIX as _MATRIX
from symattn.soundness.oracle.evaluation import _SCALAR as _SCALAR
from symattn.soundness.oracle.evaluation import ATOL as ATOL
from symattn.soundness.oracle.evaluation import RTOL as RTOL
from symattn.soundness.oracle.evaluation import Evaluator as Evaluator
from symattn.soundness.oracle.evaluation import Value as Value
from symattn.soundness.oracle.plans import CONTEXTS as CONTEXTS
from symattn.soundness.oracle.plans import EXPLICIT_SIZES as EXPLICIT_SIZES
from symattn.soundness.oracle.plans import NO_ASSUMPTION as NO_ASSUMPTION
from symattn.soundness.oracle.plans import WRITTEN_SIZES as WRITTEN_SIZES
from symattn.soundness.oracle.plans import Context as Context
from symattn.soundness.oracle.plans import plans as plans
from symattn.soundness.oracle.plans import shape_plans as shape_plans
from symattn.soundness.oracle.plans import written_values as written_values
from symattn.soundness.oracle.shapes import _SHAPE as _SHAPE
from symattn.soundness.oracle.shapes import IllFormed as IllFormed
from symattn.soundness.oracle.shapes import IllTyped as IllTyped
from symattn.soundness.oracle.shapes import Shape as Shape
from symattn.soundness.oracle.shapes import ShapeOf as ShapeOf
from symattn.soundness.oracle.shapes import Shapes as Shapes
