from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.line_range import LineRange


T = TypeVar("T", bound="FileReferencePayload")


@_attrs_define
class FileReferencePayload:
    """A file reference.

    Attributes:
        path (str): Path relative to the workspace, or absolute inside it.
        display_text (None | str | Unset): How the UI shows it.
        range_ (LineRange | None | Unset): Lines wanted (1-indexed, inclusive); the whole file when absent.
    """

    path: str
    display_text: None | str | Unset = UNSET
    range_: LineRange | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.line_range import LineRange

        path = self.path

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
            }
        )
        if display_text is not UNSET:
            field_dict["display_text"] = display_text
        if range_ is not UNSET:
            field_dict["range"] = range_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.line_range import LineRange

        d = dict(src_dict)
        path = d.pop("path")

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

        file_reference_payload = cls(
            path=path,
            display_text=display_text,
            range_=range_,
        )

        file_reference_payload.additional_properties = d
        return file_reference_payload

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
