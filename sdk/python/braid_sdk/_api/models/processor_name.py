from enum import StrEnum


class ProcessorName(StrEnum):
    ENHANCE_SYSTEM_PROMPT = "enhance_system_prompt"
    OPTIMIZE_CONTEXT = "optimize_context"
    PREPARE_REQUEST = "prepare_request"
    RECOGNIZE_IMAGES = "recognize_images"
    RESOLVE_FILE_REFERENCES = "resolve_file_references"
    VALIDATE = "validate"

    def __str__(self) -> str:
        return str(self.value)
