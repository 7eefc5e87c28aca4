"""Shared by the API and the arena: settings, Redis keys and stores, tokens, the URL guard, domain errors."""
