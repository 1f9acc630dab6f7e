from enum import StrEnum


class SandboxMode(StrEnum):
    OFF = "off"
    READ_ONLY = "read_only"
    WORKSPACE_WRITE = "workspace_write"

    def __str__(self) -> str:
        return str(self.value)
