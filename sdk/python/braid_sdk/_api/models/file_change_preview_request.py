from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="FileChangePreviewRequest")


@_attrs_define
class FileChangePreviewRequest:
    """`POST /v1/contexts/{id}/files/preview`: a file-changing tool call to preview against the
    workspace as it is now (the approval card shows what the call would change).

        Attributes:
            arguments (Any): The call's arguments, as the model gave them.
            tool (str): The tool: `write_file`, `create_file`, `replace_in_file` or `delete_file`.
    """

    arguments: Any
    tool: str

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        tool = self.tool

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "arguments": arguments,
                "tool": tool,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        tool = d.pop("tool")

        file_change_preview_request = cls(
            arguments=arguments,
            tool=tool,
        )

        return file_change_preview_request
