from enum import StrEnum


class AgentRole(StrEnum):
    ACTOR = "actor"
    PLANNER = "planner"

    def __str__(self) -> str:
        return str(self.value)
