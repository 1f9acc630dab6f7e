from enum import StrEnum


class RecognitionMethod(StrEnum):
    OCR = "ocr"
    VISION = "vision"

    def __str__(self) -> str:
        return str(self.value)
