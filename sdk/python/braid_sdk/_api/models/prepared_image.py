from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PreparedImage")


@_attrs_define
class PreparedImage:
    """An image ready for a vision model: inline bytes within the provider's limits.

    Attributes:
        data (str): Base64 (standard alphabet) of the bytes.
        height (int): Height in pixels.
        media_type (str): MIME type (`image/png`, `image/jpeg`, `image/gif` or `image/webp`).
        resized (bool): Whether it was sized down from the original. Default: False.
        width (int): Width in pixels.
    """

    data: str
    height: int
    media_type: str
    width: int
    resized: bool = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        height = self.height

        media_type = self.media_type

        resized = self.resized

        width = self.width

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "height": height,
                "media_type": media_type,
                "resized": resized,
                "width": width,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        data = d.pop("data")

        height = d.pop("height")

        media_type = d.pop("media_type")

        resized = d.pop("resized")

        width = d.pop("width")

        prepared_image = cls(
            data=data,
            height=height,
            media_type=media_type,
            resized=resized,
            width=width,
        )

        prepared_image.additional_properties = d
        return prepared_image

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
