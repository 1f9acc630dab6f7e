from enum import StrEnum


class DependencyScope(StrEnum):
    BUILD = "build"
    DEV = "dev"
    NORMAL = "normal"
    OPTIONAL = "optional"

    def __str__(self) -> str:
        return str(self.value)
