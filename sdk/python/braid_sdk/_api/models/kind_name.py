from enum import StrEnum


class KindName(StrEnum):
    FILE_REFERENCE = "file_reference"
    IMAGE = "image"
    MCP_RESOURCE = "mcp_resource"
    MCP_TOOL_REQUEST = "mcp_tool_request"
    MCP_TOOL_RESULT = "mcp_tool_result"
    PLAN = "plan"
    PROCESSING = "processing"
    PROJECT_STRUCTURE = "project_structure"
    QUESTION = "question"
    SYSTEM_CONTROL = "system_control"
    TEXT = "text"
    TOOL_REQUEST = "tool_request"
    TOOL_RESULT = "tool_result"
    UNKNOWN = "unknown"
    WORKFLOW_EXECUTION = "workflow_execution"

    def __str__(self) -> str:
        return str(self.value)
