"""Bots, ladders and ratings: the registry, the arena store, Elo, the URL guard, presence, live feeds."""
