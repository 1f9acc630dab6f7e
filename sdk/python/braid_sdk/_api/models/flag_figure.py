from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.capability_source import CapabilitySource

T = TypeVar("T", bound="FlagFigure")


@_attrs_define
class FlagFigure:
    """A yes/no capability figure and its source.

    Attributes:
        source (CapabilitySource): Where a capability figure came from.
            - `table`: Braid's built-in table of known models.
            - `server`: The model server said so (a discovery endpoint).
            - `override`: The operator's per-model override in the configuration, or the context's own config.
            - `default`: Nothing knew the model: Braid's default.
        value (bool): The value in force.
    """

    source: CapabilitySource
    value: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        source = self.source.value

        value = self.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "source": source,
                "value": value,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        source = CapabilitySource(d.pop("source"))

        value = d.pop("value")

        flag_figure = cls(
            source=source,
            value=value,
        )

        flag_figure.additional_properties = d
        return flag_figure

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
