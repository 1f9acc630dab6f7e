from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.model_request_record import ModelRequestRecord


T = TypeVar("T", bound="ModelRequestList")


@_attrs_define
class ModelRequestList:
    """`GET /v1/contexts/{id}/requests`: what the model was sent, newest first.

    Attributes:
        has_more (bool): Whether older records remain (ask again with `before` = the last id).
        requests (list[ModelRequestRecord]): The records, newest first.
    """

    has_more: bool
    requests: list[ModelRequestRecord]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_more = self.has_more

        requests = []
        for requests_item_data in self.requests:
            requests_item = requests_item_data.to_dict()
            requests.append(requests_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "has_more": has_more,
                "requests": requests,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.model_request_record import ModelRequestRecord

        d = dict(src_dict)
        has_more = d.pop("has_more")

        requests = []
        _requests = d.pop("requests")
        for requests_item_data in _requests:
            requests_item = ModelRequestRecord.from_dict(requests_item_data)

            requests.append(requests_item)

        model_request_list = cls(
            has_more=has_more,
            requests=requests,
        )

        model_request_list.additional_properties = d
        return model_request_list

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
