"""Analyses of tables built on the core: which convention made a table, what precision cost.

Pure functions over arrays (they read no files); the command line formats their results.
"""
