"""The registration answer says what the URL's first health check found, and the bot is seated only after
one passes: the check runs on a real arena worker against real bot servers on loopback."""

from __future__ import annotations

import httpx
import redis
from rq import Queue, Worker

from core.keys import arena_queue
from devstack.devredis import free_port
from tests.waiting import wait_until


def test_registration_answers_what_the_first_check_found(live_server, arena_process, bot_process, redis_url,
                                                         key_prefix) -> None:
    arena_process("worker", "--threads", "2")
    queue = Queue(arena_queue(key_prefix), connection=redis.Redis.from_url(redis_url))
    wait_until(lambda: Worker.count(queue=queue) > 0, 30, "an arena worker on the queue")
    good, down = bot_process("good"), f"{live_server}/no-bot-here"  # a 404 for GET /
    refused = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with httpx.Client(base_url=live_server, timeout=30) as http:
        answers = {name: http.post("/api/bots", json={"name": name, "games": ["sore-spot"], "url": url})
                   for name, url in (("prober-good", good), ("prober-down", down),
                                     ("prober-refused", refused))}
        assert all(a.status_code == 201 for a in answers.values()), [a.text for a in answers.values()]
        probes = {name: a.json()["probe"] for name, a in answers.items()}
        assert probes["prober-good"]["ok"] is True and probes["prober-good"]["outcome"] == "ok", probes
        assert "answered in" in probes["prober-good"]["detail"]
        assert probes["prober-down"]["outcome"] == "http_status" and probes["prober-down"]["ok"] is False
        assert probes["prober-refused"]["outcome"] == "connect_error", probes
        assert "not seated until a check passes" in probes["prober-refused"]["detail"]

        good_bot = http.get(f"/api/bots/{answers['prober-good'].json()['bot_id']}").json()
        assert good_bot["paused_reason"] is None, good_bot  # the passed check seats it
        dead = answers["prober-refused"].json()
        reason = http.get(f"/api/bots/{dead['bot_id']}").json()["paused_reason"]
        assert reason and "first passing health check" in reason, reason

        # A new URL is checked as at registration; once it passes, the bot can be seated.
        moved = http.patch(f"/api/bots/{dead['bot_id']}", json={"url": good},
                           headers={"Authorization": f"Bearer {dead['owner_token']}"})
        assert moved.status_code == 200 and moved.json()["probe"]["ok"] is True, moved.text
        assert http.get(f"/api/bots/{dead['bot_id']}").json()["paused_reason"] is None


def test_without_an_arena_worker_the_check_is_queued_and_the_answer_says_pending(client) -> None:
    answer = client.post("/api/bots", json={"name": "prober-alone", "games": ["sore-spot"],
                                            "url": "http://127.0.0.1:9/"})
    assert answer.status_code == 201
    probe = answer.get_json()["probe"]
    assert probe["outcome"] == "pending" and probe["ok"] is None, probe
    polling = client.post("/api/bots", json={"name": "prober-polls", "games": ["sore-spot"]}).get_json()
    assert "probe" not in polling  # a polling bot has no URL to check: it is seated once it polls
