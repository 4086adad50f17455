"""``pecli rope``: the group (:mod:`.app`), its commands, and the options they share.

:mod:`.commands` registers every subcommand of the group, the multi-axis ones
(:mod:`pecli.cli.multiaxis`) and the engines' too, in the order ``pecli rope --help`` lists
them.
"""
