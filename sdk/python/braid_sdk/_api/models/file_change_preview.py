from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.file_change_creates import FileChangeCreates
    from ..models.file_change_deletes import FileChangeDeletes
    from ..models.file_change_overwrites import FileChangeOverwrites
    from ..models.file_change_replaces import FileChangeReplaces
    from ..models.file_change_unshowable import FileChangeUnshowable


T = TypeVar("T", bound="FileChangePreview")


@_attrs_define
class FileChangePreview:
    """What a file-changing call would do to the file as it is on disk now.

    Attributes:
        change (FileChangeCreates | FileChangeDeletes | FileChangeOverwrites | FileChangeReplaces |
            FileChangeUnshowable): The kind of change a file call makes, with the file's text before and after it.
        path (str): The file, relative to the workspace.
    """

    change: (
        FileChangeCreates
        | FileChangeDeletes
        | FileChangeOverwrites
        | FileChangeReplaces
        | FileChangeUnshowable
    )
    path: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.file_change_creates import FileChangeCreates
        from ..models.file_change_deletes import FileChangeDeletes
        from ..models.file_change_overwrites import FileChangeOverwrites
        from ..models.file_change_replaces import FileChangeReplaces

        change: dict[str, Any]
        if (
            isinstance(self.change, FileChangeCreates)
            or isinstance(self.change, FileChangeOverwrites)
            or isinstance(self.change, FileChangeReplaces)
            or isinstance(self.change, FileChangeDeletes)
        ):
            change = self.change.to_dict()
        else:
            change = self.change.to_dict()

        path = self.path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "change": change,
                "path": path,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.file_change_creates import FileChangeCreates
        from ..models.file_change_deletes import FileChangeDeletes
        from ..models.file_change_overwrites import FileChangeOverwrites
        from ..models.file_change_replaces import FileChangeReplaces
        from ..models.file_change_unshowable import FileChangeUnshowable

        d = dict(src_dict)

        def _parse_change(
            data: object,
        ) -> (
            FileChangeCreates
            | FileChangeDeletes
            | FileChangeOverwrites
            | FileChangeReplaces
            | FileChangeUnshowable
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_file_change_type_0 = FileChangeCreates.from_dict(data)

                return componentsschemas_file_change_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_file_change_type_1 = FileChangeOverwrites.from_dict(
                    data
                )

                return componentsschemas_file_change_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_file_change_type_2 = FileChangeReplaces.from_dict(
                    data
                )

                return componentsschemas_file_change_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_file_change_type_3 = FileChangeDeletes.from_dict(data)

                return componentsschemas_file_change_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_file_change_type_4 = FileChangeUnshowable.from_dict(data)

            return componentsschemas_file_change_type_4

        change = _parse_change(d.pop("change"))

        path = d.pop("path")

        file_change_preview = cls(
            change=change,
            path=path,
        )

        file_change_preview.additional_properties = d
        return file_change_preview

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
