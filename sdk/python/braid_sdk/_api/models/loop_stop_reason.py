from enum import StrEnum


class LoopStopReason(StrEnum):
    CYCLE_DETECTED = "cycle_detected"
    DEPTH_LIMIT = "depth_limit"
    INTERRUPTED = "interrupted"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
