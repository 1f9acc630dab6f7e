from enum import StrEnum


class TurnOutcome(StrEnum):
    ANSWERED = "answered"
    AWAITING_ANSWER = "awaiting_answer"
    AWAITING_APPROVAL = "awaiting_approval"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
