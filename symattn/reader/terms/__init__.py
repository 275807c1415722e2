"""The reader's terms: conventions, the scope of names and sizes, the one translator to the kernel.

It imports the reader's syntax and the kernel; it must not import the reader's claims.
"""
