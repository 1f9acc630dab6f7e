from enum import StrEnum


class PageFrom(StrEnum):
    END = "end"
    START = "start"

    def __str__(self) -> str:
        return str(self.value)
