"""Matrix expressions of attention with strict shapes, in one place: the nodes and their walks.

Imports only the kernel below it (nodes, leaves, softmax, tree); must not import anything above it.
Each node is a sympy `Basic` with a `shape` and an `entry(i, j)` hook.
"""

from __future__ import annotations

from symattn.kernel.leaves import FromColumn as FromColumn
from symattn.kernel.leaves import HeadSym as HeadSym
from symattn.kernel.leaves import MatSym as MatSym
from symattn.kernel.leaves import Ones as Ones
from symattn.kernel.nodes import Concat as Concat
from symattn.kernel.nodes import Dot as Dot
from symattn.kernel.nodes import Entry as Entry
from symattn.kernel.nodes import Fresh as Fresh
from symattn.kernel.nodes import Hadamard as Hadamard
from symattn.kernel.nodes import MatAdd as MatAdd
from symattn.kernel.nodes import MatExpr as MatExpr
from symattn.kernel.nodes import MatMul as MatMul
from symattn.kernel.nodes import MatSum as MatSum
from symattn.kernel.nodes import Row as Row
from symattn.kernel.nodes import RowBlock as RowBlock
from symattn.kernel.nodes import Scale as Scale
from symattn.kernel.nodes import Transpose as Transpose
from symattn.kernel.nodes import _check_mat as _check_mat
from symattn.kernel.nodes import _require_equal as _require_equal
from symattn.kernel.nodes import _split_block_index as _split_block_index
from symattn.kernel.nodes import _sympify as _sympify
from symattn.kernel.nodes import expand_entries as expand_entries
from symattn.kernel.nodes import index as index
from symattn.kernel.nodes import summed as summed
from symattn.kernel.softmax import CausalMask as CausalMask
from symattn.kernel.softmax import ColSoftmax as ColSoftmax
from symattn.kernel.softmax import Softmax as Softmax
from symattn.kernel.tree import dims_in as dims_in
from symattn.kernel.tree import named_leaves as named_leaves
from symattn.kernel.tree import named_shapes as named_shapes
from symattn.kernel.tree import substitute_definitions as substitute_definitions
from symattn.kernel.tree import substituted as substituted
from symattn.kernel.tree import walk as walk
