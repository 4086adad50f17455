"""Grids of tokens on the command line.

``pecli grid`` and ``pecli plot-grid`` (:mod:`.commands`), their options (:mod:`.options`)
and identify's report of a grid's table (:mod:`.identify`).
"""
