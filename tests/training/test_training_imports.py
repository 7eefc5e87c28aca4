"""The training ground needs nothing of the service: its modules import with Flask, Redis, RQ, gunicorn and
marshmallow made unimportable, and the service's packages import none of the training libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVICE_ONLY = ("flask", "redis", "rq", "gunicorn", "marshmallow", "flask_smorest", "gevent", "hiredis")
TRAINING = ("numpy", "pettingzoo", "gymnasium", "pyspiel")


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_the_training_modules_import_without_the_services_dependencies() -> None:
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in SERVICE_ONLY)
    done = run("import sys\n" + blocked + "import training.aec, training.single, training.policy, "
               "training.openspiel\n"
               "e = training.aec.env('sore-spot', 3); e.reset(seed=1)\n"
               "print('ok', sorted(m for m in sys.modules if m.split('.')[0] in ('core', 'api', 'arena')))")
    assert done.returncode == 0 and done.stdout.strip() == "ok []", done.stdout + done.stderr


def test_the_service_imports_no_training_library() -> None:
    done = run("import sys, engine.game, engine.bots.search, core.stores, api, arena.match, arena.house\n"
               "import api; api.create_app\n"
               f"print(sorted(m for m in {TRAINING!r} if m in sys.modules))")
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
