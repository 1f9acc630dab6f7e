from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.text_part_reasoning import TextPartReasoning
    from ..models.text_part_text import TextPartText


T = TypeVar("T", bound="TextMessage")


@_attrs_define
class TextMessage:
    """Text in one or more parts.

    Attributes:
        parts (list[TextPartReasoning | TextPartText]): The parts, in order. A plain message has one `text` part.
    """

    parts: list[TextPartReasoning | TextPartText]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.text_part_text import TextPartText

        parts = []
        for parts_item_data in self.parts:
            parts_item: dict[str, Any]
            if isinstance(parts_item_data, TextPartText):
                parts_item = parts_item_data.to_dict()
            else:
                parts_item = parts_item_data.to_dict()

            parts.append(parts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "parts": parts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.text_part_reasoning import TextPartReasoning
        from ..models.text_part_text import TextPartText

        d = dict(src_dict)
        parts = []
        _parts = d.pop("parts")
        for parts_item_data in _parts:

            def _parse_parts_item(data: object) -> TextPartReasoning | TextPartText:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_text_part_type_0 = TextPartText.from_dict(data)

                    return componentsschemas_text_part_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_text_part_type_1 = TextPartReasoning.from_dict(data)

                return componentsschemas_text_part_type_1

            parts_item = _parse_parts_item(parts_item_data)

            parts.append(parts_item)

        text_message = cls(
            parts=parts,
        )

        text_message.additional_properties = d
        return text_message

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
