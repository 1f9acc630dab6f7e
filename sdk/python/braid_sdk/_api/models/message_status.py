from enum import StrEnum


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    FAILED = "failed"
    INCOMPLETE = "incomplete"
    PENDING = "pending"
    PROCESSING = "processing"
    STREAMING = "streaming"

    def __str__(self) -> str:
        return str(self.value)
