"""A Prometheus scrape read with prometheus-client's own parser, for the metrics tests."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(text: str) -> Samples:
    """(sample name, sorted labels) -> value, for every sample of a scrape."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return out


def value(scraped: Samples, name: str, **labels: str) -> float:
    """One sample's value; 0 when the scrape has no such sample (a counter never incremented)."""
    return scraped.get((name, tuple(sorted(labels.items()))), 0.0)
