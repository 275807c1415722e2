"""The reader's claims: what each formula says (definitions, hypotheses, worked examples, claims).

It imports the reader's syntax and terms and the kernel; it must not import check, cli or latex.
"""
