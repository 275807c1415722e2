"""The reader's syntax: math spans found in a text, its tokens, the dialect's grammar and its AST.

It must not import the reader's terms or claims, nor the kernel beyond its errors; lark only lazily.
"""
