from enum import StrEnum


class ToolCalling(StrEnum):
    NATIVE = "native"
    PROMPTED = "prompted"

    def __str__(self) -> str:
        return str(self.value)
