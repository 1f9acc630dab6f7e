from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.file_reference_payload import FileReferencePayload
    from ..models.image_payload import ImagePayload


T = TypeVar("T", bound="TextPayload")


@_attrs_define
class TextPayload:
    """Text a person wrote.

    Attributes:
        text (str): The text (Markdown).
        type_ (Literal['text']):
        file_references (list[FileReferencePayload] | Unset): Files to send along, each becoming a `file_reference`
            message before the text.
        images (list[ImagePayload] | Unset): Images to send along, each becoming an `image` message before the text, so
            the model
            gets the images and the question in one request.
    """

    text: str
    type_: Literal["text"]
    file_references: list[FileReferencePayload] | Unset = UNSET
    images: list[ImagePayload] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        type_ = self.type_

        file_references: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.file_references, Unset):
            file_references = []
            for file_references_item_data in self.file_references:
                file_references_item = file_references_item_data.to_dict()
                file_references.append(file_references_item)

        images: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.images, Unset):
            images = []
            for images_item_data in self.images:
                images_item = images_item_data.to_dict()
                images.append(images_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "type": type_,
            }
        )
        if file_references is not UNSET:
            field_dict["file_references"] = file_references
        if images is not UNSET:
            field_dict["images"] = images

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.file_reference_payload import FileReferencePayload
        from ..models.image_payload import ImagePayload

        d = dict(src_dict)
        text = d.pop("text")

        type_ = cast(Literal["text"], d.pop("type"))
        if type_ != "text":
            raise ValueError(f"type must match const 'text', got '{type_}'")

        _file_references = d.pop("file_references", UNSET)
        file_references: list[FileReferencePayload] | Unset = UNSET
        if _file_references is not UNSET:
            file_references = []
            for file_references_item_data in _file_references:
                file_references_item = FileReferencePayload.from_dict(
                    file_references_item_data
                )

                file_references.append(file_references_item)

        _images = d.pop("images", UNSET)
        images: list[ImagePayload] | Unset = UNSET
        if _images is not UNSET:
            images = []
            for images_item_data in _images:
                images_item = ImagePayload.from_dict(images_item_data)

                images.append(images_item)

        text_payload = cls(
            text=text,
            type_=type_,
            file_references=file_references,
            images=images,
        )

        text_payload.additional_properties = d
        return text_payload

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
