"""The Python client against a real `agentgate serve` (see conftest.py):
submit and stream to the end, resume from an id, resume after a dropped
connection, cancel a running run, answer an approval, a bad token, a
token without the scope."""

import time

import pytest
from cutting_proxy import CuttingProxy

from agentgate_api.api.tokens import create_token
from agentgate_api.models import Envelope
from agentgate_client import Agentgate, ApiError, End, Event, RunTimeout
from agentgate_client.client import body_of

QUICK = ["quick"]


def as_dict(value) -> dict:
    """A generated model as its JSON object (a union the generator could not
    type stays a dict: either way the same keys)."""
    return value.to_dict() if hasattr(value, "to_dict") else dict(value)


def submit(client: Agentgate, prompt: str, agents=QUICK) -> str:
    accepted = client.submit({"prompt": prompt, "agents": agents})
    assert accepted.run_id
    assert str(accepted.status) in ("queued", "running"), accepted
    return accepted.run_id


@pytest.fixture()
def ended_run(client: Agentgate):
    """A quick run followed to its end: (run id, its events)."""
    run_id = submit(client, "say hello")
    events = list(client.events(run_id))
    return run_id, events


def test_submit_and_follow_the_events_to_the_end(client: Agentgate, ended_run):
    run_id, items = ended_run
    assert all(isinstance(i, Event) for i in items), items
    types = [e.type for e in items]
    assert types[0] == "start", types
    assert types[-1] == "result", types
    assert [e.data["text"] for e in items if e.type == "message"] == ["one", "two"]
    assert [e.seq for e in items] == list(range(len(items)))
    assert all(e.data["run_id"] == run_id for e in items)
    assert items[-1].data["envelope"]["response"] == "done"
    run = client.wait_for_run(run_id, timeout=60)
    assert run.status == "succeeded"
    # The envelope as the document types it: the generated model parses the
    # server's envelope and gives back the same JSON.
    assert isinstance(run.envelope, Envelope), run.envelope
    assert run.envelope.response == "done"
    assert run.envelope.to_dict() == items[-1].data["envelope"]


def test_a_resume_from_a_mid_stream_id_gives_only_the_later_events(client: Agentgate, ended_run):
    run_id, items = ended_run
    middle = items[len(items) // 2].seq
    stream = client.events(run_id, last_event_id=middle)
    later = list(stream)
    assert [e.seq for e in later] == [e.seq for e in items if e.seq > middle]
    assert [e.text for e in later] == [e.text for e in items if e.seq > middle]
    assert stream.connections == 1
    assert stream.last_event_id == items[-1].seq


def test_a_dropped_connection_is_resumed_from_the_last_id(url: str, token: str, client: Agentgate):
    # A run that holds after its message `one`: when the connection is cut
    # there, the server has sent nothing later, so what follows can only
    # come through the resumed stream.
    run_id = submit(client, "hold for the cut")
    proxy = CuttingProxy(url)
    try:
        with Agentgate(proxy.url, token) as through_proxy:
            stream = through_proxy.events(run_id, backoff=0.05)
            got = []
            for item in stream:
                got.append(item)
                if isinstance(item, Event) and item.type == "message":
                    held_at = item.seq
                    proxy.cut()
                    client.cancel(run_id)
    finally:
        proxy.close()
    # Every event once, in order: the ones before the cut, then the rest
    # of the run (its cancel and result) from the second connection.
    seqs = [e.seq for e in got]
    assert seqs == list(range(len(got))), got
    types = [e.type for e in got]
    assert types.index("message") == held_at and "cancelled" in types and types[-1] == "result", types
    assert stream.connections == 2, proxy.requests
    events_requests = [r for r in proxy.requests if "/events" in r.split("\r\n", 1)[0]]
    assert len(events_requests) == 2, proxy.requests
    assert "last-event-id" not in events_requests[0].lower()
    assert f"last-event-id: {held_at}\r\n" in events_requests[1].lower(), events_requests[1]
    assert client.wait_for_run(run_id, timeout=60).status == "cancelled"


def test_cancel_a_running_run(client: Agentgate):
    run_id = submit(client, "hold until cancelled")
    stream = client.events(run_id)
    seen = []
    for item in stream:
        seen.append(item)
        # The stand-in prints `one`, then holds: it is running.
        if isinstance(item, Event) and item.type == "message":
            assert item.data["text"] == "one"
            accepted = client.cancel(run_id)
            assert accepted.cancel_requested is True
            assert str(accepted.status) == "running"
    types = [i.type for i in seen if isinstance(i, Event)]
    assert "cancelled" in types, types
    assert types[-1] == "result", types
    assert not any(i.data.get("text") == "two" for i in seen if isinstance(i, Event))
    run = client.wait_for_run(run_id, timeout=60)
    assert run.status == "cancelled"
    assert run.cancel_requested is True


def test_cancelling_a_queued_run_ends_its_stream_with_end(client: Agentgate):
    accepted = client.submit({"prompt": "later", "agents": QUICK, "not_before": "2999-01-01T00:00:00Z"})
    assert accepted.status == "queued"
    client.cancel(accepted.run_id)
    items = list(client.events(accepted.run_id))
    assert len(items) == 1 and isinstance(items[0], End), items
    assert items[0].data["status"] == "cancelled"


def test_answer_an_approval(client: Agentgate):
    run_id = submit(client, "please WRITE a file", agents=["asker"])
    asked = []
    decided = []
    stream = client.events(run_id)
    for item in stream:
        if not isinstance(item, Event):
            continue
        if item.type == "approval_request":
            request_id = item.data["request_id"]
            asked.append(request_id)
            # The request is answerable once the run lists it.
            deadline = time.monotonic() + 60
            while request_id not in client.pending_approvals(run_id):
                assert time.monotonic() < deadline, "the request never became pending"
                time.sleep(0.05)
            answered = client.answer(run_id, request_id, "allow")
            assert answered.decision == "allow"
            # Answered once: a second answer is refused.
            with pytest.raises(ApiError) as refused:
                client.answer(run_id, request_id, "deny")
            assert refused.value.status == 409
        elif item.type == "approval_decision":
            decided.append((item.data["request_id"], item.data["decision"], item.data["by"]))
    assert len(asked) == 1, asked
    assert decided == [(asked[0], "allow", "human")]
    run = client.wait_for_run(run_id, timeout=150)
    envelope = as_dict(run.envelope)
    assert run.status == "succeeded", envelope
    assert envelope["response"] == "done", envelope
    assert envelope["approvals"]["asked"] == 1, envelope
    assert envelope["approvals"]["allowed"] == 1, envelope
    assert client.pending_approvals(run_id) == []


def test_a_bad_token_is_a_typed_401(url: str, client: Agentgate, ended_run):
    run_id, _ = ended_run
    with Agentgate(url, "not-the-token") as wrong:
        for attempt in (
            lambda: wrong.get_run(run_id),
            lambda: wrong.submit({"prompt": "hi", "agents": QUICK}),
            lambda: list(wrong.events(run_id)),
        ):
            with pytest.raises(ApiError) as error:
                attempt()
            assert error.value.status == 401
            assert error.value.type == "unauthorized"
    # The right token, an unknown run: 404, typed the same way.
    with pytest.raises(ApiError) as error:
        client.get_run("r-no-such-run")
    assert error.value.status == 404


def test_a_token_without_the_scope_is_a_typed_403(url: str, client: Agentgate, ended_run):
    run_id, _ = ended_run
    # An API token made through the generated route, with `read` only.
    created = client.call(create_token, body=body_of(create_token, {"name": "py-reader", "scopes": ["read"]}))
    assert created.token.startswith("agt_")
    with Agentgate(url, created.token) as reader:
        assert reader.get_run(run_id).status == "succeeded"
        with pytest.raises(ApiError) as error:
            reader.submit({"prompt": "hi", "agents": QUICK})
        assert (error.value.status, error.value.type) == (403, "forbidden")
        with pytest.raises(ApiError) as error:
            reader.cancel(run_id)
        assert (error.value.status, error.value.type) == (403, "forbidden")


def test_wait_for_run_gives_up_at_its_timeout(client: Agentgate):
    run_id = submit(client, "hold for the timeout")
    with pytest.raises(RunTimeout):
        client.wait_for_run(run_id, timeout=1.0)
    client.cancel(run_id)
    assert client.wait_for_run(run_id, timeout=60).status == "cancelled"
