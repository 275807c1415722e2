"""The trusted core: dims, matrix expressions, canonical forms, witnesses, proofs and rules.

Imports nothing from the rest of symattn (tests/test_layout.py checks every import).
"""
