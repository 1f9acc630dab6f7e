from enum import StrEnum


class RuleOrigin(StrEnum):
    CONFIGURATION = "configuration"
    SESSION_APPROVAL = "session_approval"

    def __str__(self) -> str:
        return str(self.value)
