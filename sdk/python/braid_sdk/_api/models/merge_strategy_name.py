from enum import StrEnum


class MergeStrategyName(StrEnum):
    APPEND = "append"
    CHERRY_PICK = "cherry_pick"
    REBASE = "rebase"

    def __str__(self) -> str:
        return str(self.value)
