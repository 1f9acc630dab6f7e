from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.file_resolution_failed import FileResolutionFailed
    from ..models.file_resolution_pending import FileResolutionPending
    from ..models.file_resolution_resolved import FileResolutionResolved
    from ..models.line_range import LineRange


T = TypeVar("T", bound="FileReferenceMessage")


@_attrs_define
class FileReferenceMessage:
    """A reference to a file, resolved into its content before the model sees it.

    Attributes:
        path (str): The path as the person gave it: relative to the workspace, or absolute inside it.
        resolution (FileResolutionFailed | FileResolutionPending | FileResolutionResolved): The state of a file
            reference's content.
        display_text (None | str | Unset): How the UI shows the reference (e.g. `@src/lib.rs:10-20`).
        range_ (LineRange | None | Unset): The lines wanted; the whole file when absent.
    """

    path: str
    resolution: FileResolutionFailed | FileResolutionPending | FileResolutionResolved
    display_text: None | str | Unset = UNSET
    range_: LineRange | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.file_resolution_pending import FileResolutionPending
        from ..models.file_resolution_resolved import FileResolutionResolved
        from ..models.line_range import LineRange

        path = self.path

        resolution: dict[str, Any]
        if isinstance(self.resolution, FileResolutionPending) or isinstance(
            self.resolution, FileResolutionResolved
        ):
            resolution = self.resolution.to_dict()
        else:
            resolution = self.resolution.to_dict()

        display_text: None | str | Unset
        if isinstance(self.display_text, Unset):
            display_text = UNSET
        else:
            display_text = self.display_text

        range_: dict[str, Any] | None | Unset
        if isinstance(self.range_, Unset):
            range_ = UNSET
        elif isinstance(self.range_, LineRange):
            range_ = self.range_.to_dict()
        else:
            range_ = self.range_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "path": path,
                "resolution": resolution,
            }
        )
        if display_text is not UNSET:
            field_dict["display_text"] = display_text
        if range_ is not UNSET:
            field_dict["range"] = range_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.file_resolution_failed import FileResolutionFailed
        from ..models.file_resolution_pending import FileResolutionPending
        from ..models.file_resolution_resolved import FileResolutionResolved
        from ..models.line_range import LineRange

        d = dict(src_dict)
        path = d.pop("path")

        def _parse_resolution(
            data: object,
        ) -> FileResolutionFailed | FileResolutionPending | FileResolutionResolved:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_file_resolution_type_0 = (
                    FileResolutionPending.from_dict(data)
                )

                return componentsschemas_file_resolution_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_file_resolution_type_1 = (
                    FileResolutionResolved.from_dict(data)
                )

                return componentsschemas_file_resolution_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_file_resolution_type_2 = FileResolutionFailed.from_dict(
                data
            )

            return componentsschemas_file_resolution_type_2

        resolution = _parse_resolution(d.pop("resolution"))

        def _parse_display_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_text = _parse_display_text(d.pop("display_text", UNSET))

        def _parse_range_(data: object) -> LineRange | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                range_type_0 = LineRange.from_dict(data)

                return range_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LineRange | None | Unset, data)

        range_ = _parse_range_(d.pop("range", UNSET))

        file_reference_message = cls(
            path=path,
            resolution=resolution,
            display_text=display_text,
            range_=range_,
        )

        file_reference_message.additional_properties = d
        return file_reference_message

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
