"""`python -m symattn`: the same command line as the `symattn` script.

Imports only symattn.cli.
"""

from __future__ import annotations

from symattn.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
