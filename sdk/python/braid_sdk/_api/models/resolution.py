from enum import StrEnum


class Resolution(StrEnum):
    KEEP_BOTH = "keep_both"
    KEEP_TARGET = "keep_target"
    SKIP = "skip"
    TAKE_SOURCE = "take_source"

    def __str__(self) -> str:
        return str(self.value)
