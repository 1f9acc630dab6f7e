"""Approvals and resume through the Python SDK, against a real `braid serve` (BRAID_CONTROL_URL)
whose mock model follows a script made for these tests, in this order (scripts/clients.sh
writes it): a `read_file` call, the answer after it; another `read_file` call, the answer
after its denial; two rounds of calls (the second over the depth limit: the loop pauses), the
answer after the resume; a slow answer, interrupted. They run as one test so that the model's
answers come in the order the script has them."""

import os
import unittest
from typing import Any

from braid_sdk import Braid


def pending(braid: Braid, context: Any) -> list[tuple[str, str]]:
    """The calls waiting for a decision, with their tools' names."""
    state = braid.state(context).state.to_dict()
    return list(zip(state["pending_requests"], state["tool_names"]))


def tool_results(braid: Braid, context: Any) -> list[dict[str, Any]]:
    """The data of the context's tool results, oldest first."""
    messages = [m.to_dict() for m in braid.messages(context).messages]
    return [m["data"] for m in messages if m["kind"] == "tool_result"]


class TurnControlTest(unittest.TestCase):
    def setUp(self) -> None:
        self.braid = Braid(os.environ["BRAID_CONTROL_URL"])

    def test_approve_deny_resume_and_interrupt_through_the_sdk(self) -> None:
        self.approve_a_call_and_wait_for_its_turn()
        self.deny_a_call_and_wait_for_its_turn()
        self.resume_a_paused_context_and_wait_for_its_turn()
        self.interrupt_a_streaming_answer()

    def approve_a_call_and_wait_for_its_turn(self) -> None:
        ctx = self.braid.create_context(title="approve", config={"approval_policy": {"type": "manual"}})
        sent = self.braid.send(ctx.id, "Read my notes.")
        waiting = self.braid.wait_turn(ctx.id, sent.turn_id)
        self.assertEqual(waiting.outcome.value, "awaiting_approval")
        self.assertEqual(pending(self.braid, ctx.id), [("call_notes", "read_file")])
        turn = self.braid.approve(ctx.id, "call_notes")
        self.assertIsNotNone(turn, "the last decision names the turn that goes on")
        self.assertNotEqual(turn, sent.turn_id)
        done = self.braid.wait_turn(ctx.id, turn)
        self.assertEqual((done.status.value, done.outcome.value), ("completed", "answered"))
        self.assertEqual(self.braid.state(ctx.id).state.type_, "idle")
        [result] = tool_results(self.braid, ctx.id)
        self.assertIn("hello from the notes", str(result), "the approved call ran")

    def deny_a_call_and_wait_for_its_turn(self) -> None:
        ctx = self.braid.create_context(title="deny", config={"approval_policy": {"type": "manual"}})
        sent = self.braid.send(ctx.id, "Read the secret.")
        self.assertEqual(self.braid.wait_turn(ctx.id, sent.turn_id).outcome.value, "awaiting_approval")
        self.assertEqual(pending(self.braid, ctx.id), [("call_secret", "read_file")])
        turn = self.braid.deny(ctx.id, "call_secret", reason="not that file")
        self.assertIsNotNone(turn)
        done = self.braid.wait_turn(ctx.id, turn)
        self.assertEqual(done.outcome.value, "answered")
        [result] = tool_results(self.braid, ctx.id)
        self.assertIn("not that file", str(result), "the model is told why")
        self.assertNotIn("top secret", str(result), "the denied call did not run")

    def resume_a_paused_context_and_wait_for_its_turn(self) -> None:
        policy = {"type": "limited_auto", "max_depth": 1}
        ctx = self.braid.create_context(title="resume", config={"approval_policy": policy})
        sent = self.braid.send(ctx.id, "Read the notes twice.")
        stopped = self.braid.wait_turn(ctx.id, sent.turn_id)
        self.assertEqual(stopped.outcome.value, "paused", "the second round is over the depth limit")
        self.assertEqual(self.braid.state(ctx.id).state.type_, "paused")
        self.assertEqual(len(tool_results(self.braid, ctx.id)), 1, "the second round's call waits")
        turn = self.braid.resume(ctx.id)
        self.assertNotEqual(turn, sent.turn_id)
        done = self.braid.wait_turn(ctx.id, turn)
        self.assertEqual(done.outcome.value, "answered")
        self.assertEqual(len(tool_results(self.braid, ctx.id)), 2, "the resume ran the waiting call")
        last = self.braid.messages(ctx.id).messages[-1].to_dict()
        self.assertEqual(last["data"]["parts"], [{"type": "text", "text": "Resumed where I stopped."}])

    def interrupt_a_streaming_answer(self) -> None:
        ctx = self.braid.create_context(title="interrupt")
        sent = self.braid.send(ctx.id, "Talk slowly.")
        events = self.braid.stream(ctx.id, after=sent.stream_after)
        for event in events:
            if event.name == "content_delta":
                break
        events.close()
        self.braid.interrupt(ctx.id)
        self.assertEqual(self.braid.wait_turn(ctx.id, sent.turn_id).outcome.value, "interrupted")


if __name__ == "__main__":
    unittest.main()
