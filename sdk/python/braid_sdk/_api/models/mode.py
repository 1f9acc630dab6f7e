from enum import StrEnum


class Mode(StrEnum):
    ACT = "act"
    PLAN = "plan"

    def __str__(self) -> str:
        return str(self.value)
