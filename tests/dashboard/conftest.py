"""Fixtures: a real store in a temp dir, users, a simulated match from the tractor engine, the
Flask app on them (its hub polled by hand, on a clock the test moves)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from engine.tractor.record_sim import simulate
from engine.tractor.rules import Rules
from evidence import EvidenceStore

PASSWORD = "correct horse battery"
FAST_HASH = 2**10  # scrypt cost for test users (the product default is 2**14)


def match_record(seed: int = 2, hands: int = 1, inject: int = 3) -> list[dict[str, Any]]:
    """school-2010, seed 2: a wrong bury count at seq 4 (80 points penalty), a failed throw
    at 25 and a wrong count at 26, from the tractor engine's simulator."""
    events, _truth = simulate(Rules.load("school-2010"), seed=seed, hands=hands, inject=inject)
    return events


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    users = UserStore(tmp_path)
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.add("view1", "viewer", PASSWORD, n=FAST_HASH)
    users.close()
    return tmp_path


@pytest.fixture
def store(data: Path, clock: Clock) -> Iterator[EvidenceStore]:
    s = EvidenceStore(data, clock=clock, durable=False)
    yield s
    s.close()


@pytest.fixture
def hub(store: EvidenceStore, clock: Clock) -> Hub:
    return Hub(store, clock=clock)


@pytest.fixture
def app(data: Path, hub: Hub) -> Flask:
    return create_app(data, hub=hub, start_hub=False, SSE_PING_S=0.2, OVERLAY_MIN_DELAY_S=0.0)


def feed(hub: Hub, table: str, events: list[dict[str, Any]], clock: Clock | None = None) -> None:
    """A record loaded by a referee: no node judges it, so the dashboard's desk referee does
    (registered first), and the events arrive one by one."""
    register(hub.store, table, by="test")
    for e in events:
        if clock is not None:
            clock.now += 1.0
        hub.store.append_event(table, e)
        hub.poll()


def login(client: FlaskClient, user: str = "ref1", password: str = PASSWORD) -> str:
    """Log in through the real form; returns the session's CSRF token."""
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    resp = client.post(
        "/login", data={"username": user, "password": password, "csrf_token": token.group(1)}
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    page = client.get("/").get_data(as_text=True)
    meta = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert meta is not None
    return meta.group(1)
