from enum import StrEnum


class McpConfigEditing(StrEnum):
    EDITABLE = "editable"
    NO_FILE = "no_file"
    READ_ONLY = "read_only"

    def __str__(self) -> str:
        return str(self.value)
