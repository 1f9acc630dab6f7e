from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WorkspaceInstructionsInfo")


@_attrs_define
class WorkspaceInstructionsInfo:
    """The workspace instructions a context's system prompt carries (`AGENTS.md`, `CLAUDE.md` or
    `.braid/instructions.md` at the workspace root).

        Attributes:
            file_bytes (int): The file's size in bytes.
            included_bytes (int): Bytes of it in the system prompt (less than the file when it was cut to the cap).
            path (str): The file, relative to the workspace root.
            tokens (int): Tokens of what is included, counted for the context's model.
            truncated (bool): Whether the file was cut to fit the cap.
    """

    file_bytes: int
    included_bytes: int
    path: str
    tokens: int
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        file_bytes = self.file_bytes

        included_bytes = self.included_bytes

        path = self.path

        tokens = self.tokens

        truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "file_bytes": file_bytes,
                "included_bytes": included_bytes,
                "path": path,
                "tokens": tokens,
                "truncated": truncated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        file_bytes = d.pop("file_bytes")

        included_bytes = d.pop("included_bytes")

        path = d.pop("path")

        tokens = d.pop("tokens")

        truncated = d.pop("truncated")

        workspace_instructions_info = cls(
            file_bytes=file_bytes,
            included_bytes=included_bytes,
            path=path,
            tokens=tokens,
            truncated=truncated,
        )

        workspace_instructions_info.additional_properties = d
        return workspace_instructions_info

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
