"""Trick Arena: RQ worker pool that plays ladder matches between bots and rates them by Elo."""
