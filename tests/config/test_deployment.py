"""The deployment files hold together: compose validates, production refuses the demo secret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_docker_compose_file_validates():
    env = {**os.environ, "SECRET_KEY": "compose-check"}
    result = subprocess.run(
        ["docker-compose", "config", "--services"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == {"postgres", "redis", "web", "worker"}


@pytest.mark.parametrize(("secret", "starts"), [(None, False), ("a-real-secret-from-the-vault", True)])
def test_production_refuses_default_secret(secret, starts):
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["ARBITER_PRODUCTION"] = "true"
    if secret:
        env["SECRET_KEY"] = secret
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
    )
    assert (result.returncode == 0) is starts, result.stderr
    if not starts:
        assert "SECRET_KEY" in result.stderr


@pytest.mark.django_db
def test_healthz_answers(client):
    assert client.get("/healthz").json() == {"status": "ok"}
