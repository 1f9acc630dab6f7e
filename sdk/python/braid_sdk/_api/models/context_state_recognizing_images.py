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

T = TypeVar("T", bound="ContextStateRecognizingImages")


@_attrs_define
class ContextStateRecognizingImages:
    """Recognizing images (vision or OCR).

    Attributes:
        total (int): Images to recognize.
        type_ (Literal['recognizing_images']):
    """

    total: int
    type_: Literal["recognizing_images"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        total = self.total

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "total": total,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        total = d.pop("total")

        type_ = cast(Literal["recognizing_images"], d.pop("type"))
        if type_ != "recognizing_images":
            raise ValueError(
                f"type must match const 'recognizing_images', got '{type_}'"
            )

        context_state_recognizing_images = cls(
            total=total,
            type_=type_,
        )

        context_state_recognizing_images.additional_properties = d
        return context_state_recognizing_images

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
