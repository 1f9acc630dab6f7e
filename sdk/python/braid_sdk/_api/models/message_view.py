from enum import StrEnum


class MessageView(StrEnum):
    FULL = "full"
    OPTIMIZED = "optimized"

    def __str__(self) -> str:
        return str(self.value)
