from enum import StrEnum


class DependencyRelation(StrEnum):
    DIRECT = "direct"
    ROOT = "root"
    TRANSITIVE = "transitive"

    def __str__(self) -> str:
        return str(self.value)
