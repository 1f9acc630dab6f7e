from enum import StrEnum


class Decision(StrEnum):
    APPROVE = "approve"
    APPROVE_FOR_SESSION = "approve_for_session"
    DENY = "deny"

    def __str__(self) -> str:
        return str(self.value)
