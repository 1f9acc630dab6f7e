from enum import StrEnum


class WarningKind(StrEnum):
    ANSWER_WITHOUT_QUESTION = "answer_without_question"
    EXECUTION_WITHOUT_PLAN = "execution_without_plan"
    MCP_REQUEST_WITHOUT_RESULT = "mcp_request_without_result"
    MCP_RESULT_WITHOUT_REQUEST = "mcp_result_without_request"
    REQUEST_WITHOUT_RESULT = "request_without_result"
    RESULT_WITHOUT_REQUEST = "result_without_request"

    def __str__(self) -> str:
        return str(self.value)
