from enum import StrEnum


class SkipReason(StrEnum):
    ALREADY_IN_TARGET = "already_in_target"
    BRANCH_NOTICE = "branch_notice"
    HELD_INPUT = "held_input"
    RESOLUTION = "resolution"
    SAME_CONTENT = "same_content"

    def __str__(self) -> str:
        return str(self.value)
