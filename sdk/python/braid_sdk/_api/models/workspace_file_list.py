from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.file_info import FileInfo


T = TypeVar("T", bound="WorkspaceFileList")


@_attrs_define
class WorkspaceFileList:
    """`GET /v1/contexts/{id}/files`: files of the context's workspace, for the file picker.

    Attributes:
        files (list[FileInfo]): Matching files, sorted by path (relative to the workspace).
        truncated (bool): Whether more files matched than were returned.
    """

    files: list[FileInfo]
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_dict()
            files.append(files_item)

        truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "files": files,
                "truncated": truncated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.file_info import FileInfo

        d = dict(src_dict)
        files = []
        _files = d.pop("files")
        for files_item_data in _files:
            files_item = FileInfo.from_dict(files_item_data)

            files.append(files_item)

        truncated = d.pop("truncated")

        workspace_file_list = cls(
            files=files,
            truncated=truncated,
        )

        workspace_file_list.additional_properties = d
        return workspace_file_list

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
