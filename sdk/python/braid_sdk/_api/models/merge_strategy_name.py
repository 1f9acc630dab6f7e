from enum import StrEnum


class MergeStrategyName(StrEnum):
    APPEND = "append"
    CHERRY_PICK = "cherry_pick"
    REBASE = "rebase"
    SUMMARY = "summary"

    def __str__(self) -> str:
        return str(self.value)
