"""`python -m symattn.soundness [fuzz | diff] ...`.

Imports only symattn.soundness."""

from symattn.soundness import main

raise SystemExit(main())
