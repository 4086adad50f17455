"""Sinusoidal tables read back.

Which convention made a table (:mod:`.identify`), and what framework arithmetic costs it
(:mod:`.precision`).
"""
