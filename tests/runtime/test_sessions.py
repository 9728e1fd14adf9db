"""The session registry, the new-session ledger and the eviction order (runtime.sessions)."""

import hashlib
import sys

import pytest

from playground.runtime.hosting import Hosting
from playground.runtime.sessions import (NewSessionLedger, Occupant, SessionRegistry,
                                         eviction_order, grace_seconds, new_sessions_per_minute,
                                         new_token, session_capacity, token_digest, valid_token)


class Visit:
    """A stand-in for a page's session: the registry only keeps and hands back objects."""


def test_a_token_is_filed_under_its_sha256_never_itself():
    token = new_token()
    assert valid_token(token) and len(token) == 43
    assert token_digest(token) == hashlib.sha256(token.encode()).hexdigest()
    registry, visit = SessionRegistry(), Visit()
    registry.register(token, visit)
    assert token not in repr(registry._by_digest) and registry.digest_of(visit) == token_digest(token)


@pytest.mark.parametrize("value", [None, 7, "", "a" * 42, "a" * 44, "a" * 42 + "/", "a" * 42 + "="])
def test_anything_but_a_token_is_no_token(value):
    assert not valid_token(value)


def test_a_session_let_go_waits_its_grace_then_is_handed_over_once():
    registry, visit = SessionRegistry(grace_s=10), Visit()
    token = new_token()
    registry.register(token, visit)
    assert registry.let_go(visit, now=100.0) and registry.closed_since(visit) == 100.0
    assert registry.let_go(visit, now=105.0) and registry.closed_since(visit) == 100.0  # first close counts
    assert registry.expired(now=109.9) == [] and registry.find(token) is visit
    assert registry.expired(now=110.0) == [visit]
    assert registry.expired(now=200.0) == [] and registry.find(token) is None
    assert not registry.let_go(visit)  # no longer filed: the caller frees it at once


def test_taking_back_ends_the_grace_and_refiling_moves_a_session():
    registry, visit, other = SessionRegistry(grace_s=10), Visit(), Visit()
    first, second = new_token(), new_token()
    registry.register(first, visit)
    registry.let_go(visit, now=0.0)
    registry.take_back(visit)
    assert registry.expired(now=1e9) == [] and registry.sessions(let_go=False) == [visit]
    registry.register(second, visit)  # the browser got a new token: the old one finds nothing
    assert registry.find(first) is None and registry.find(second) is visit
    registry.register(second, other)  # another session under that token replaces it
    assert registry.find(second) is other and registry.digest_of(visit) is None
    registry.forget(other)
    assert registry.sessions() == []


def test_the_ledger_counts_distinct_new_sessions_per_address_and_minute():
    ledger = NewSessionLedger(limit=2)
    assert [ledger.take("a", k, now=0.0) for k in ("s1", "s2", "s1", "s3")] == [True, True, True, False]
    assert ledger.take("b", "s3", now=0.0)  # another address has its own minute
    assert not ledger.take("a", None, now=30.0)  # an unnamed session is always a new one
    assert ledger.take("a", "s3", now=60.0)  # a minute on, the first ones no longer count
    assert [NewSessionLedger(limit=0).take("a", None) for _ in range(100)] == [True] * 100


def test_eviction_takes_the_emptiest_and_oldest_first_and_never_a_model_in_use():
    held = [Occupant("model in use", 0.0, work=True, model=True),
            Occupant("busy empty", 0.0, busy=True),  # a job is queued or running
            Occupant("closed model", 5.0, work=True, model=True, let_go=True),
            Occupant("closed model, older", 4.0, work=True, model=True, let_go=True),
            Occupant("corpus", 1.0, work=True),
            Occupant("empty, recent", 9.0),
            Occupant("empty, old", 2.0)]
    assert eviction_order(held, 100) == ["empty, old", "empty, recent", "corpus",
                                         "closed model, older", "closed model"]
    assert eviction_order(held, 1) == ["empty, old"] and eviction_order(held, 0) == []


def test_limits_come_from_the_environment_with_safe_fallbacks():
    env = Hosting.from_env  # the host's variables, read as the server reads them
    assert grace_seconds(env({})) == 600.0 and grace_seconds(env({"PLAYGROUND_GRACE_S": "0"})) == 0.0
    for bad in ("nan", "inf", "-5", "ten"):
        assert grace_seconds(env({"PLAYGROUND_GRACE_S": bad})) == 600.0
    assert new_sessions_per_minute(env({})) == 60
    assert new_sessions_per_minute(env({"PLAYGROUND_NEW_SESSIONS_PER_MIN": "5"})) == 5
    assert session_capacity(2**40, env({})) == 10_000 and session_capacity(2**20, env({})) == 64
    assert session_capacity(4 * 2**30, env({})) == 1024  # a quarter of 4 GB at 1 MB a session
    assert session_capacity(2**40, env({"PLAYGROUND_MAX_SESSIONS": "7"})) == 7
    assert session_capacity(2**20, env({"PLAYGROUND_MAX_SESSIONS": "0"})) == 10_000  # 0: no limit of ours


def test_the_core_module_imports_no_gradio():
    import subprocess

    code = "import sys, playground.runtime.sessions, playground.runtime.disk; print('gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
