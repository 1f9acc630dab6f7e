from enum import StrEnum


class CapabilitySource(StrEnum):
    DEFAULT = "default"
    OVERRIDE = "override"
    SERVER = "server"
    TABLE = "table"

    def __str__(self) -> str:
        return str(self.value)
