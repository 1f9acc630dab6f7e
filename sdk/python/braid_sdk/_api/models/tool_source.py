from enum import StrEnum


class ToolSource(StrEnum):
    BUILTIN = "builtin"
    MCP = "mcp"

    def __str__(self) -> str:
        return str(self.value)
