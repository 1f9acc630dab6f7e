from enum import StrEnum


class ErrorCode(StrEnum):
    CONFLICT = "conflict"
    FILE_REFERENCE = "file_reference"
    FORBIDDEN = "forbidden"
    IMAGE_RECOGNITION = "image_recognition"
    INTERNAL = "internal"
    INTERRUPTED = "interrupted"
    INVALID_INPUT = "invalid_input"
    LLM_NOT_CONFIGURED = "llm_not_configured"
    LLM_REJECTED = "llm_rejected"
    LLM_UNAVAILABLE = "llm_unavailable"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_FOUND = "not_found"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    RESUME_POINT_UNKNOWN = "resume_point_unknown"
    STORAGE_FAILED = "storage_failed"
    STREAM_INTERRUPTED = "stream_interrupted"
    TIMEOUT = "timeout"
    TOOL_FAILED = "tool_failed"
    UNAUTHORIZED = "unauthorized"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"

    def __str__(self) -> str:
        return str(self.value)
