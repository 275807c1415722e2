"""The witnesses of an equality: symbolic (all sizes), exact (explicit sizes) and numeric (float64).

Imports nothing (import the witnesses from their modules: `from symattn.kernel.witness.exact import
exact`); no witness may import proof, rules or anything above the kernel. Modules: evidence (what a
witness reports), sizes and points (a claim at explicit sizes), symbolic, exact, field (mod p),
numeric, counterexample.
"""
