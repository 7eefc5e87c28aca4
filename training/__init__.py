"""Training grounds for learned bots: the four games as PettingZoo (AEC) and Gymnasium environments and as
OpenSpiel games, one encoder of a seat's view, and a policy served as a bot. Needs the ``training`` extra.
Design: docs/training.md
"""
