from enum import StrEnum


class RecognitionMode(StrEnum):
    AUTO = "auto"
    OCR = "ocr"
    VISION = "vision"

    def __str__(self) -> str:
        return str(self.value)
