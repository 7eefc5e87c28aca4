"""The one table from errors to problem types: every domain error the stores raise has a problem type."""

from __future__ import annotations

import core.errors
import core.redis.failures
from api.problems import PROBLEMS, problem_for
from core.errors import AnalysisQueueFull, DomainError, NotYourTurn, RateLimited, StaleVersion, TokenRequired
from core.redis.failures import StoreFull, StoreUnavailable


def _leaves(cls: type) -> list[type]:
    subclasses = cls.__subclasses__()
    return [cls] if not subclasses else [leaf for sub in subclasses for leaf in _leaves(sub)]


def test_every_domain_error_the_stores_can_raise_has_a_row() -> None:
    modules = {core.errors.__name__, core.redis.failures.__name__}
    leaves = [cls for cls in _leaves(DomainError) if cls.__module__ in modules]
    assert len(leaves) >= 15
    missing = [cls.__name__ for cls in leaves if not any(issubclass(cls, row[0]) for row in PROBLEMS)]
    assert missing == []


def test_each_problem_type_has_one_row() -> None:
    slugs = [slug for _, _, slug, _ in PROBLEMS]
    assert len(slugs) == len(set(slugs))


def test_a_problem_carries_the_fields_and_headers_a_client_needs() -> None:
    stale = problem_for(StaleVersion("t1", expected=2, version=5, since=4))
    assert stale is not None
    assert (stale.status, stale.slug, stale.extra) == (409, "stale-version", {"version": 5})
    turn = problem_for(NotYourTurn(1, [2], 7))
    assert turn is not None and turn.extra == {"legal": [], "version": 7} and "seat(s) 2" in turn.detail
    token = problem_for(TokenRequired("owner", "bot"))
    assert token is not None and token.status == 401
    assert token.headers == {"WWW-Authenticate": 'Bearer realm="bot"'}
    for refused, wait in ((StoreFull("disk"), "5"), (StoreUnavailable(), "1"),
                          (RateLimited("1 per 1 minute", 0), "1"), (AnalysisQueueFull(9, 30), "30")):
        problem = problem_for(refused)
        assert problem is not None and problem.headers == {"Retry-After": wait}, refused
    assert problem_for(ValueError("not ours")) is None
