from enum import StrEnum


class Ecosystem(StrEnum):
    CARGO = "cargo"
    NPM = "npm"
    PYTHON = "python"

    def __str__(self) -> str:
        return str(self.value)
