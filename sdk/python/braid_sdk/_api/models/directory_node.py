from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.file_info import FileInfo


T = TypeVar("T", bound="DirectoryNode")


@_attrs_define
class DirectoryNode:
    """A directory and what it holds.

    Attributes:
        directories (list[DirectoryNode]): Sub-directories, sorted by name.
        files (list[FileInfo]): Files directly inside, sorted by name.
        name (str): The directory's own name (`.` for the root).
        path (str): Its path relative to the root.
    """

    directories: list[DirectoryNode]
    files: list[FileInfo]
    name: str
    path: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        directories = []
        for directories_item_data in self.directories:
            directories_item = directories_item_data.to_dict()
            directories.append(directories_item)

        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_dict()
            files.append(files_item)

        name = self.name

        path = self.path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "directories": directories,
                "files": files,
                "name": name,
                "path": path,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.file_info import FileInfo

        d = dict(src_dict)
        directories = []
        _directories = d.pop("directories")
        for directories_item_data in _directories:
            directories_item = DirectoryNode.from_dict(directories_item_data)

            directories.append(directories_item)

        files = []
        _files = d.pop("files")
        for files_item_data in _files:
            files_item = FileInfo.from_dict(files_item_data)

            files.append(files_item)

        name = d.pop("name")

        path = d.pop("path")

        directory_node = cls(
            directories=directories,
            files=files,
            name=name,
            path=path,
        )

        directory_node.additional_properties = d
        return directory_node

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
