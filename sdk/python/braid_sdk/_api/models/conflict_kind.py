from enum import StrEnum


class ConflictKind(StrEnum):
    FILE_REFERENCE = "file_reference"
    FILE_WRITE = "file_write"
    MODE = "mode"
    ROLE = "role"
    SUMMARY = "summary"

    def __str__(self) -> str:
        return str(self.value)
