"""The former path of `symattn.kernel.arrays`: the user's own arrays are not a witness.

Imports only kernel.arrays, whose public names it gives here too; must not import anything else.
"""

from __future__ import annotations

from symattn.kernel.arrays import Binding as Binding
from symattn.kernel.arrays import Equation as Equation
from symattn.kernel.arrays import Given as Given
from symattn.kernel.arrays import Reads as Reads
from symattn.kernel.arrays import Slot as Slot
from symattn.kernel.arrays import bind as bind
from symattn.kernel.arrays import evaluate as evaluate
from symattn.kernel.arrays import gather as gather
from symattn.kernel.arrays import reads as reads
from symattn.kernel.arrays import resolve_key as resolve_key
from symattn.kernel.arrays import to_float64 as to_float64
