from enum import StrEnum


class McpServerStatus(StrEnum):
    DISABLED = "disabled"
    FAILED = "failed"
    NEEDS_AUTHORIZATION = "needs_authorization"
    READY = "ready"
    STARTING = "starting"

    def __str__(self) -> str:
        return str(self.value)
