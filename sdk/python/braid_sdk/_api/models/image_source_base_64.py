from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ImageSourceBase64")


@_attrs_define
class ImageSourceBase64:
    """The bytes, base64-encoded.

    Attributes:
        data (str): Base64 (standard alphabet) of the bytes.
        media_type (str): MIME type, e.g. `image/png`.
        type_ (Literal['base64']):
    """

    data: str
    media_type: str
    type_: Literal["base64"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        media_type = self.media_type

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "media_type": media_type,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        data = d.pop("data")

        media_type = d.pop("media_type")

        type_ = cast(Literal["base64"], d.pop("type"))
        if type_ != "base64":
            raise ValueError(f"type must match const 'base64', got '{type_}'")

        image_source_base_64 = cls(
            data=data,
            media_type=media_type,
            type_=type_,
        )

        image_source_base_64.additional_properties = d
        return image_source_base_64

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
