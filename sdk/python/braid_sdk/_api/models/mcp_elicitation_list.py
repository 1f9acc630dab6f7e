from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.mcp_elicitation import McpElicitation


T = TypeVar("T", bound="McpElicitationList")


@_attrs_define
class McpElicitationList:
    """`GET /v1/mcp/elicitations`: the questions waiting for the person, oldest first.

    Attributes:
        elicitations (list[McpElicitation]): The waiting questions.
    """

    elicitations: list[McpElicitation]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        elicitations = []
        for elicitations_item_data in self.elicitations:
            elicitations_item = elicitations_item_data.to_dict()
            elicitations.append(elicitations_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "elicitations": elicitations,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_elicitation import McpElicitation

        d = dict(src_dict)
        elicitations = []
        _elicitations = d.pop("elicitations")
        for elicitations_item_data in _elicitations:
            elicitations_item = McpElicitation.from_dict(elicitations_item_data)

            elicitations.append(elicitations_item)

        mcp_elicitation_list = cls(
            elicitations=elicitations,
        )

        mcp_elicitation_list.additional_properties = d
        return mcp_elicitation_list

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
