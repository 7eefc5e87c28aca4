"""Growth curves: how each cost of the arena grows as bots, parked long-polls, watchers and history grow.

`python -m tools.growth` measures every curve at three or four sizes and fits each as a power of n
(`tools.growth.fit`); docs/benchmarks.md holds its table and log-log plot.
"""
