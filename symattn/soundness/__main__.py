"""`python -m symattn.soundness [fuzz | diff] ...`."""

from symattn.soundness import main

raise SystemExit(main())
