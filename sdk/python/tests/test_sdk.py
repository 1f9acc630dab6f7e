"""The Python SDK against a real `braid serve` with the mock model (BRAID_URL; run by
scripts/clients.sh)."""

import os
import socket
import threading
import unittest
import uuid

from braid_sdk import Braid, BraidError


class CuttableProxy:
    """A TCP proxy to the server whose open connections can be cut, as a network drop would."""

    def __init__(self, target: tuple[str, int], port: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", port))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.connections = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.open += [client, upstream]
                self.connections += 1
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        with self.lock:
            for s in self.open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.open.clear()


class SdkTest(unittest.TestCase):
    def setUp(self) -> None:
        self.url = os.environ["BRAID_URL"]
        self.braid = Braid(self.url)

    def test_a_send_retried_with_its_key_runs_once(self) -> None:
        ctx = self.braid.create_context(title="retry")
        key = str(uuid.uuid4())
        first = self.braid.send(ctx.id, "once", idempotency_key=key)
        self.braid.wait_idle(ctx.id)
        again = self.braid.send(ctx.id, "once", idempotency_key=key)
        self.assertEqual(first.message_id, again.message_id)
        self.braid.wait_idle(ctx.id)
        users = [m for m in self.braid.messages(ctx.id).messages if m.role.value == "user"]
        self.assertEqual(len(users), 1)

    def test_wait_turn_answers_how_the_turn_ended_and_its_events_carry_its_id(self) -> None:
        ctx = self.braid.create_context(title="turns")
        sent = self.braid.send(ctx.id, "hello")
        turn = self.braid.wait_turn(ctx.id, sent.turn_id)
        self.assertEqual(turn.status.value, "completed")
        self.assertEqual(turn.outcome.value, "answered")
        self.assertEqual(turn.message_id, sent.message_id)
        names = []
        for event in self.braid.stream(ctx.id, after=sent.stream_after):
            names.append(event.name)
            self.assertEqual(str(event.data.turn_id), str(sent.turn_id), event)
            if event.name == "turn_completed":
                self.assertEqual(event.data.outcome.value, "answered")
                break
        self.assertIn("content_final", names)

    def test_a_workflow_run_is_a_turn_to_wait_for_and_its_resume_another(self) -> None:
        # scripts/clients.sh puts `greet` (a prompt, then an approval step) in the workspace.
        ctx = self.braid.create_context(title="workflow")
        started = self.braid.run_workflow(ctx.id, "greet", {"who": "Ada"})
        waiting = self.braid.wait_turn(ctx.id, started.turn_id)
        self.assertEqual(waiting.outcome.value, "awaiting_approval", waiting)
        self.assertEqual(waiting.message_id, started.message_id)
        for event in self.braid.stream(ctx.id, after=started.stream_after):
            self.assertEqual(str(event.data.turn_id), str(started.turn_id), event)
            if event.name == "turn_completed":
                break
        resumed = self.braid.resume_workflow(ctx.id, started.execution_id)
        self.assertNotEqual(resumed.turn_id, started.turn_id)
        done = self.braid.wait_turn(ctx.id, resumed.turn_id)
        self.assertEqual(done.outcome.value, "answered", done)
        runs = [m.to_dict()["data"] for m in self.braid.messages(ctx.id).messages
                if m.to_dict()["kind"] == "workflow_execution"]
        self.assertEqual([r["status"] for r in runs], ["completed"])

    def test_messages_page_back_with_before(self) -> None:
        ctx = self.braid.create_context(title="back")
        for text in ("one", "two"):
            sent = self.braid.send(ctx.id, text)
            self.braid.wait_turn(ctx.id, sent.turn_id)
        every = [m.id for m in self.braid.messages(ctx.id).messages]
        page = self.braid.messages(ctx.id, before=every[-1], limit=2)
        self.assertEqual([m.id for m in page.messages], every[1:3])
        self.assertEqual(page.next_before, every[1])

    def test_an_unknown_field_is_an_error_naming_it(self) -> None:
        with self.assertRaises(BraidError) as raised:
            self.braid.create_context(config={"worksapce": "/nowhere"})
        self.assertEqual(raised.exception.status, 422)
        self.assertEqual(raised.exception.field, "config.worksapce")

    def test_the_stream_survives_a_dropped_connection_without_gap_or_duplicate(self) -> None:
        host, port = self.url.removeprefix("http://").split(":")
        # The server accepts this port's Host (scripts/clients.sh starts it with --allowed-host).
        proxy = CuttableProxy((host, int(port)), int(os.environ["BRAID_PROXY_PORT"]))
        through = Braid(f"http://127.0.0.1:{proxy.port}")
        ctx = self.braid.create_context(title="stream")
        self.braid.send(ctx.id, "first")
        self.braid.wait_idle(ctx.id)
        ids = []
        answers = 0
        for event in through.stream(ctx.id, after=0, reconnect_delay=0.05):
            if event.id is None:
                continue
            ids.append(event.id)
            if len(ids) == 3:
                # The connection drops; a second turn is logged meanwhile.
                proxy.cut()
                self.braid.send(ctx.id, "second")
                self.braid.wait_idle(ctx.id)
            if event.name == "content_final":
                answers += 1
                if answers == 2:
                    break
        self.assertEqual(ids, list(range(ids[0], ids[0] + len(ids))), "no gap, no duplicate")
        self.assertEqual(ids[0], 1)
        self.assertGreaterEqual(proxy.connections, 2, "the stream reconnected")

    def test_contexts_page_and_messages_read_one_by_one(self) -> None:
        ctx = self.braid.create_context(title="pages")
        sent = self.braid.send(ctx.id, "hello")
        self.braid.wait_idle(ctx.id)
        page = self.braid.list_contexts(limit=1)
        self.assertEqual(len(page.contexts), 1)
        self.assertIsNotNone(page.next_before)
        one = self.braid.message(ctx.id, sent.message_id)
        self.assertEqual(one.id, sent.message_id)

    def test_branches_and_a_merge(self) -> None:
        ctx = self.braid.create_context(title="branches")
        self.braid.send(ctx.id, "on main")
        self.braid.wait_idle(ctx.id)
        self.braid.create_branch(ctx.id, "alt")
        self.braid.activate_branch(ctx.id, "alt")
        self.braid.send(ctx.id, "on alt")
        self.braid.wait_idle(ctx.id)
        self.braid.activate_branch(ctx.id, "main")
        outcome = self.braid.merge(ctx.id, "alt", target="main")
        self.assertGreater(len(self.braid.messages(ctx.id, branch="main").messages), 2, outcome)
        self.assertEqual(sorted(self.braid.branches(ctx.id).to_dict()["branches"][i]["name"] for i in range(2)), ["alt", "main"])


if __name__ == "__main__":
    unittest.main()
