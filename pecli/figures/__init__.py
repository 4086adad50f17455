"""Figures as :class:`matplotlib.figure.Figure` objects, built by pure functions.

Importing a module here imports matplotlib, so only plotting commands import them.
"""
