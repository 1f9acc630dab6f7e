from enum import StrEnum


class WorkflowStepType(StrEnum):
    APPROVAL = "approval"
    PROMPT = "prompt"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
