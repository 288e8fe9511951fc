"""The tests run against a real `agentgate serve` that
crates/agentgate/tests/suite/client_libraries.rs starts: its URL and token
come in AGENTGATE_URL and AGENTGATE_TOKEN, and its config has two agents:

- `quick`: a stand-in for Claude Code that prints a session, the messages
  `one` and `two` and the answer `done`; with `hold` in the prompt it waits
  (up to a minute) after `one`;
- `asker`: the real Claude Code against `agentgate fake-llm` in permission
  mode `ask` (every permission is asked of a person), scripted to write one
  file when the prompt says WRITE, then answer `done`.

Without the variables every test fails: they are not optional."""

import os

import pytest

from agentgate_client import Agentgate


def _required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(
            f"{name} is not set: these tests run against a real `agentgate serve` "
            "(cargo test -p agentgate --test all -- suite::client_libraries)"
        )
    return value


@pytest.fixture(scope="session")
def url() -> str:
    return _required("AGENTGATE_URL")


@pytest.fixture(scope="session")
def token() -> str:
    return _required("AGENTGATE_TOKEN")


@pytest.fixture()
def client(url: str, token: str):
    with Agentgate(url, token) as c:
        yield c
