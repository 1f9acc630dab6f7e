from enum import StrEnum


class ViewMarkerKind(StrEnum):
    DROPPED = "dropped"
    SUMMARIZED = "summarized"

    def __str__(self) -> str:
        return str(self.value)
